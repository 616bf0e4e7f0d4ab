-- Statements of src/modules/webhooks/publish.ts, as run (test/db/statements.test.ts writes this file).

-- webhooks.publish
with batch as materialized (
  select id, company_id from api_event_outbox order by id limit $1::int
), locked as (
  select count(pg_advisory_xact_lock(hashtextextended('events:' || c.company_id, 0)))::int as n
    from (select distinct company_id from batch order by company_id offset 0) c
), staged as (
  delete from api_event_outbox o
   using batch b
   where o.company_id = b.company_id and o.id = b.id and (select n from locked) >= 0
  returning o.*
), numbered as (
  insert into counters (company_id, list, key, value)
  select company_id, 'events', 0, count(*) from staged group by company_id order by company_id
  on conflict (company_id, list, key, slot) do update set value = counters.value + excluded.value
  returning company_id, value
), published as (
  insert into api_events (company_id, sequence, type, data, created_at)
  select s.company_id,
         n.value - count(*) over (partition by s.company_id) + row_number() over (partition by s.company_id order by s.id),
         s.type, s.data, s.created_at
    from staged s
    join numbered n on n.company_id = s.company_id
   order by s.id
  returning company_id, id, type, created_at
), fanned as (
  insert into webhook_deliveries (company_id, subscription_id, event_id, next_attempt_at, created_at)
  select p.company_id, s.id, p.id, p.created_at, p.created_at
    from published p
    join webhook_subscriptions s
      on s.company_id = p.company_id and s.enabled
     and (p.type = any (s.events) or ('*' = any (s.events) and p.type <> 'audit_event.created'))
   order by p.id, s.id
  returning 1
)
select (select count(*) from published)::int as events, (select count(*) from fanned)::int as deliveries;

-- webhooks.publishCompany
with locked as (
  select count(pg_advisory_xact_lock(hashtextextended('events:' || $1::bigint, 0)))::int as n
), staged as (
  delete from api_event_outbox o
   where o.company_id = $1
     and o.id in (select id from api_event_outbox where company_id = $1 order by id limit $2::int)
     and (select n from locked) >= 0
  returning o.*
), numbered as (
  insert into counters (company_id, list, key, value)
  select company_id, 'events', 0, count(*) from staged group by company_id order by company_id
  on conflict (company_id, list, key, slot) do update set value = counters.value + excluded.value
  returning company_id, value
), published as (
  insert into api_events (company_id, sequence, type, data, created_at)
  select s.company_id,
         n.value - count(*) over (partition by s.company_id) + row_number() over (partition by s.company_id order by s.id),
         s.type, s.data, s.created_at
    from staged s
    join numbered n on n.company_id = s.company_id
   order by s.id
  returning company_id, id, type, created_at
), fanned as (
  insert into webhook_deliveries (company_id, subscription_id, event_id, next_attempt_at, created_at)
  select p.company_id, s.id, p.id, p.created_at, p.created_at
    from published p
    join webhook_subscriptions s
      on s.company_id = p.company_id and s.enabled
     and (p.type = any (s.events) or ('*' = any (s.events) and p.type <> 'audit_event.created'))
   order by p.id, s.id
  returning 1
)
select (select count(*) from published)::int as events, (select count(*) from fanned)::int as deliveries;
