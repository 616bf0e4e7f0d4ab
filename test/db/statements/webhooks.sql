-- webhooks.byId (pipelined: src/db/pipeline.ts)
select s.id, s.url, s.events, s.description, s.enabled, s.disabled_reason, s.disabled_at, s.created_at, s.updated_at from webhook_subscriptions s where s.company_id = (select $1::bigint) and s.id = $2;

-- webhooks.delete
delete from webhook_subscriptions where company_id = (select $1::bigint) and id = $2 returning id;

-- webhooks.deliveriesPage
with sub as materialized (
     select id from webhook_subscriptions where company_id = (select $1::bigint) and id = $2
   ), total as materialized (
     select count(*)::int as n from webhook_deliveries
      where company_id = (select $1::bigint) and subscription_id = (select id from sub)
   )
   select exists (select 1 from sub) as found, total.n as total, p.*
     from total
     left join lateral (
       select d.id, d.event_id, e.type as event_type, d.status, d.attempts, d.last_response_status, d.last_attempt_at,
   d.next_attempt_at, d.last_error, d.delivered_at, d.created_at
         from webhook_deliveries d
         join api_events e on e.company_id = d.company_id and e.id = d.event_id
        where d.company_id = (select $1::bigint) and d.subscription_id = $2
        order by d.id desc limit $3 offset $4
     ) p on $4 < total.n;

-- webhooks.deliveryById (pipelined: src/db/pipeline.ts)
select d.id, d.event_id, e.type as event_type, d.status, d.attempts, d.last_response_status, d.last_attempt_at,
   d.next_attempt_at, d.last_error, d.delivered_at, d.created_at
     from webhook_deliveries d
     join api_events e on e.company_id = d.company_id and e.id = d.event_id
    where d.company_id = (select $1::bigint) and d.subscription_id = $2 and d.id = $3;

-- webhooks.deliveryClaim
with candidates as (
     select d.company_id, d.id, d.subscription_id, d.next_attempt_at
       from webhook_deliveries d
      where d.status = 'pending' and d.next_attempt_at <= $1::timestamptz
        and d.subscription_id <> all ($4::bigint[])
      order by d.next_attempt_at
      limit $2::int * 4
      for update skip locked
   ), ranked as (
     select c.company_id, c.id, c.subscription_id, c.next_attempt_at,
            row_number() over (partition by c.subscription_id order by c.next_attempt_at, c.id) as rank
       from candidates c
   ), chosen as (
     select r.company_id, r.id, r.subscription_id
       from ranked r
       left join unnest($5::bigint[], $6::int[]) as busy (subscription_id, in_flight) on busy.subscription_id = r.subscription_id
      where r.rank <= $7::int - coalesce(busy.in_flight, 0)
      order by r.next_attempt_at, r.id
      limit $2::int
   ), leased as (
     update webhook_deliveries d
        set attempts = d.attempts + case when s.enabled then 1 else 0 end,
            status = case when s.enabled then 'pending' else 'failed' end,
            next_attempt_at = case when s.enabled then $1::timestamptz + $3::int * interval '1 millisecond' end,
            last_attempt_at = case when s.enabled then $1::timestamptz else d.last_attempt_at end,
            first_attempt_at = coalesce(d.first_attempt_at, case when s.enabled then $1::timestamptz end),
            last_error = case when s.enabled then d.last_error else 'not attempted: the subscription is disabled' end
       from chosen c
       join webhook_subscriptions s on s.company_id = c.company_id and s.id = c.subscription_id
      where d.company_id = c.company_id and d.id = c.id
      returning d.company_id, d.id, d.subscription_id, d.event_id, d.attempts, d.first_attempt_at, s.enabled,
                s.url, s.secret, s.previous_secret, s.previous_secret_expires_at
   )
   select l.company_id, l.id, l.subscription_id, l.attempts, l.first_attempt_at, l.enabled, l.url, l.secret,
          case when l.previous_secret_expires_at > $1::timestamptz then l.previous_secret end as previous_secret,
          e.id as event_id, e.type, e.sequence, e.created_at as event_created_at, e.data::text as data
     from leased l
     join api_events e on e.company_id = l.company_id and e.id = l.event_id
    order by e.created_at, e.id;

-- webhooks.deliveryPrune
with old as (
     select company_id, id from api_events
      where created_at < $1::timestamptz
      order by created_at
      limit $2::int
      for update skip locked
   ), gone as (
     delete from api_events e using old where e.company_id = old.company_id and e.id = old.id
     returning 1
   )
   select count(*)::int as deleted from gone;

-- webhooks.deliveryRecord
with outcome as (
     select *
       from unnest($1::bigint[], $2::bigint[], $3::int[], $4::text[], $5::int[], $6::text[], $7::timestamptz[])
         as o (company_id, id, attempts, status, response_status, error, next_attempt_at)
   ), recorded as (
     update webhook_deliveries d
        set status = o.status,
            next_attempt_at = o.next_attempt_at,
            last_response_status = o.response_status,
            last_error = o.error,
            delivered_at = case when o.status = 'delivered' then $8::timestamptz end
       from outcome o
      where d.company_id = o.company_id and d.id = o.id and d.status = 'pending' and d.attempts = o.attempts
      returning d.company_id, d.subscription_id, d.last_attempt_at, o.status = 'delivered' as delivered, o.error
   ), by_subscription as (
     select company_id, subscription_id, bool_or(delivered) as delivered,
            min(last_attempt_at) filter (where not delivered) as failed_since,
            (array_agg(error order by last_attempt_at desc) filter (where not delivered))[1] as last_error
       from recorded
      group by company_id, subscription_id
   ), verdict as (
     select s.company_id, s.id, b.delivered, b.failed_since, b.last_error, s.failing_since as was_failing_since,
            not b.delivered and s.enabled
              and coalesce(s.failing_since, b.failed_since) <= $8::timestamptz - $9::int * interval '1 millisecond' as disable
       from by_subscription b
       join webhook_subscriptions s on s.company_id = b.company_id and s.id = b.subscription_id
   )
   update webhook_subscriptions s
      set failing_since = case when v.delivered then null else coalesce(s.failing_since, v.failed_since) end,
          enabled = s.enabled and not v.disable,
          disabled_at = case when v.disable then $8::timestamptz else s.disabled_at end,
          disabled_reason = case when v.disable
            then 'every delivery failed since '
                 || to_char(coalesce(s.failing_since, v.failed_since) at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"')
                 || '; last attempt: ' || coalesce(v.last_error, 'failed')
            else s.disabled_reason end,
          updated_at = case when v.disable then $8::timestamptz else s.updated_at end
     from verdict v
    where s.company_id = v.company_id and s.id = v.id
      and case when v.delivered then v.was_failing_since is not null else v.was_failing_since is null or v.disable end
    returning s.id, v.disable as disabled;

-- webhooks.deliveryRetry
with target as (
     select d.company_id, d.id, s.enabled
       from webhook_deliveries d
       join webhook_subscriptions s on s.company_id = d.company_id and s.id = d.subscription_id
      where d.company_id = (select $1::bigint) and d.subscription_id = $2 and d.id = $3
   ), d as (
     update webhook_deliveries d
        set status = 'pending', attempts = 0, first_attempt_at = null, next_attempt_at = $4, delivered_at = null
       from target t
      where t.enabled and d.company_id = t.company_id and d.id = t.id
      returning d.*
   )
   select target.enabled, d.id, d.event_id, e.type as event_type, d.status, d.attempts, d.last_response_status, d.last_attempt_at,
   d.next_attempt_at, d.last_error, d.delivered_at, d.created_at
     from target
     left join d on true
     left join api_events e on e.company_id = d.company_id and e.id = d.event_id;

-- webhooks.eventById (pipelined: src/db/pipeline.ts)
select id, type, created_at, sequence, data from api_events where company_id = (select $1::bigint) and id = $2 and type <> 'ping';

-- webhooks.eventsOfTypesPage
with total as materialized (select count(*)::int as n from api_events where company_id = (select $1::bigint) and id > $3::bigint and type <> 'ping'
          and ($2::timestamptz is null or created_at >= $2::timestamptz) and type = any ($6::text[]))
     select total.n as total, p.*
       from total
       left join lateral (
         select id, type, created_at, sequence, data from api_events where company_id = (select $1::bigint) and id > $3::bigint and type <> 'ping'
          and ($2::timestamptz is null or created_at >= $2::timestamptz) and type = any ($6::text[]) order by id limit $4 offset $5
       ) p on $5 < total.n;

-- webhooks.eventsPage
with total as materialized (select count(*)::int as n from api_events where company_id = (select $1::bigint) and id > $3::bigint and type <> 'ping'
          and ($2::timestamptz is null or created_at >= $2::timestamptz))
     select total.n as total, p.*
       from total
       left join lateral (
         select id, type, created_at, sequence, data from api_events where company_id = (select $1::bigint) and id > $3::bigint and type <> 'ping'
          and ($2::timestamptz is null or created_at >= $2::timestamptz) order by id limit $4 offset $5
       ) p on $5 < total.n;

-- webhooks.insert
insert into webhook_subscriptions as s (company_id, url, events, description, secret, created_at, updated_at)
   select $1, $2, $3::text[], $4, $5, $6, $6
    where (select count(*) from webhook_subscriptions where company_id = (select $1::bigint)) < $7::int
   returning s.id, s.url, s.events, s.description, s.enabled, s.disabled_reason, s.disabled_at, s.created_at, s.updated_at;

-- webhooks.lockCompany
select pg_advisory_xact_lock(hashtextextended('webhooks:' || $1::bigint, 0))::text as locked;

-- webhooks.overview
select s.id, s.url, s.events, s.description, s.enabled, s.disabled_reason, s.disabled_at, s.created_at, s.updated_at, last.status as last_delivery_status,
          coalesce(last.delivered_at, last.last_attempt_at) as last_delivery_at, last.last_error as last_delivery_error
     from webhook_subscriptions s
     left join lateral (
       select d.status, d.delivered_at, d.last_attempt_at, d.last_error
         from webhook_deliveries d
        where d.company_id = s.company_id and d.subscription_id = s.id
        order by d.id desc limit 1
     ) last on true
    where s.company_id = (select $1::bigint)
    order by s.id;

-- webhooks.page
with total as materialized (select count(*)::int as n from webhook_subscriptions where company_id = (select $1::bigint))
   select total.n as total, p.*
     from total
     left join lateral (
       select s.id, s.url, s.events, s.description, s.enabled, s.disabled_reason, s.disabled_at, s.created_at, s.updated_at from webhook_subscriptions s
        where s.company_id = (select $1::bigint)
        order by s.id limit $2 offset $3
     ) p on $3 < total.n;

-- webhooks.ping
with s as (
     select company_id, id, enabled from webhook_subscriptions where company_id = (select $1::bigint) and id = $2
   ), event as (
     insert into api_events (company_id, sequence, type, data, created_at)
     select s.company_id, 0, 'ping', json_build_object('webhook_id', s.id), $3 from s where s.enabled
     returning company_id, id
   ), d as (
     insert into webhook_deliveries (company_id, subscription_id, event_id, next_attempt_at, created_at)
     select event.company_id, $2, event.id, $3, $3 from event
     returning *
   )
   select s.enabled, d.id, d.event_id, 'ping'::varchar as event_type, d.status, d.attempts, d.last_response_status, d.last_attempt_at,
   d.next_attempt_at, d.last_error, d.delivered_at, d.created_at
     from s left join d on true;

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
        and (p.type = any (s.events) or '*' = any (s.events))
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
        and (p.type = any (s.events) or '*' = any (s.events))
      order by p.id, s.id
     returning 1
   )
   select (select count(*) from published)::int as events, (select count(*) from fanned)::int as deliveries;

-- webhooks.rotate
update webhook_subscriptions s
      set previous_secret = s.secret, previous_secret_expires_at = $4, secret = $3, updated_at = $5
    where s.company_id = (select $1::bigint) and s.id = $2
    returning s.id, s.url, s.events, s.description, s.enabled, s.disabled_reason, s.disabled_at, s.created_at, s.updated_at, s.previous_secret_expires_at;

-- webhooks.update
update webhook_subscriptions s
      set url = coalesce($3, s.url),
          events = coalesce($4::text[], s.events),
          description = case when $5::boolean then $6 else s.description end,
          enabled = coalesce($7::boolean, s.enabled),
          disabled_reason = case when $7::boolean then null
                                 when not $7::boolean and s.enabled then 'disabled through the API'
                                 else s.disabled_reason end,
          disabled_at = case when $7::boolean then null
                             when not $7::boolean and s.enabled then $8::timestamptz
                             else s.disabled_at end,
          failing_since = case when $7::boolean and not s.enabled then null else s.failing_since end,
          updated_at = $8::timestamptz
    where s.company_id = (select $1::bigint) and s.id = $2
    returning s.id, s.url, s.events, s.description, s.enabled, s.disabled_reason, s.disabled_at, s.created_at, s.updated_at;
