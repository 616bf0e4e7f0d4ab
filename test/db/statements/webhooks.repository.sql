-- Statements of src/modules/webhooks/webhooks.repository.ts, as run (test/db/statements.test.ts writes this file).

-- webhooks.lockCompany
select pg_advisory_xact_lock(hashtextextended('webhooks:' || $1::bigint, 0))::text as locked;

-- webhooks.insert
insert into webhook_subscriptions as s (company_id, url, events, description, secret, created_at, updated_at)
select $1, $2, $3::text[], $4, $5, $6, $6
 where (select count(*) from webhook_subscriptions where company_id = (select $1::bigint)) < $7::int
returning s.id, s.url, s.events, s.description, s.enabled, s.disabled_reason, s.disabled_at, s.created_at, s.updated_at;

-- webhooks.page
with total as materialized (select count(*)::int as n from webhook_subscriptions where company_id = (select $1::bigint))
select total.n as total, p.*
  from total
  left join lateral (
    select s.id, s.url, s.events, s.description, s.enabled, s.disabled_reason, s.disabled_at, s.created_at, s.updated_at from webhook_subscriptions s
     where s.company_id = (select $1::bigint)
     order by s.id limit $2 offset $3::bigint
  ) p on $3::bigint < total.n;

-- webhooks.byId (pipelined: src/db/pipeline.ts)
select s.id, s.url, s.events, s.description, s.enabled, s.disabled_reason, s.disabled_at, s.created_at, s.updated_at from webhook_subscriptions s where s.company_id = (select $1::bigint) and s.id = $2;

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
  from webhook_subscriptions was
 where s.company_id = (select $1::bigint) and s.id = $2 and was.company_id = s.company_id and was.id = s.id
 returning s.id, s.url, s.events, s.description, s.enabled, s.disabled_reason, s.disabled_at, s.created_at, s.updated_at, json_build_object('url', was.url, 'events', was.events, 'description', was.description, 'enabled', was.enabled) as was;

-- webhooks.delete
delete from webhook_subscriptions where company_id = (select $1::bigint) and id = $2 returning id, url;

-- webhooks.rotate
update webhook_subscriptions s
   set previous_secret = s.secret, previous_secret_expires_at = $4, secret = $3, updated_at = $5
 where s.company_id = (select $1::bigint) and s.id = $2
 returning s.id, s.url, s.events, s.description, s.enabled, s.disabled_reason, s.disabled_at, s.created_at, s.updated_at, s.previous_secret_expires_at;

-- webhooks.ping
with s as (
  select company_id, id, enabled from webhook_subscriptions where company_id = (select $1::bigint) and id = $2
), event as (
  insert into api_events (company_id, sequence, type, data, created_at)
  -- row_to_json writes compact JSON as every other event's data; json_build_object spaces its colons.
  select s.company_id, 0, 'ping', (select row_to_json(p) from (select s.id as webhook_id) p), $3 from s where s.enabled
  returning company_id, id, type
), d as (
  insert into webhook_deliveries (company_id, subscription_id, event_id, next_attempt_at, created_at)
  select event.company_id, $2, event.id, $3, $3 from event
  returning *
)
select s.enabled, d.id, d.event_id, e.type as event_type, d.status, d.attempts, d.last_response_status, d.last_attempt_at, d.next_attempt_at, d.last_error, d.delivered_at, d.created_at
  from s left join d on true left join event e on true;

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
    select d.id, d.event_id, e.type as event_type, d.status, d.attempts, d.last_response_status, d.last_attempt_at, d.next_attempt_at, d.last_error, d.delivered_at, d.created_at
      from webhook_deliveries d
      join api_events e on e.company_id = d.company_id and e.id = d.event_id
     where d.company_id = (select $1::bigint) and d.subscription_id = $2
     order by d.id desc limit $3 offset $4::bigint
  ) p on $4::bigint < total.n;

-- webhooks.deliveryById (pipelined: src/db/pipeline.ts)
select d.id, d.event_id, e.type as event_type, d.status, d.attempts, d.last_response_status, d.last_attempt_at, d.next_attempt_at, d.last_error, d.delivered_at, d.created_at
  from webhook_deliveries d
  join api_events e on e.company_id = d.company_id and e.id = d.event_id
 where d.company_id = (select $1::bigint) and d.subscription_id = $2 and d.id = $3;

-- webhooks.deliveryRetry
with target as (
  select d.company_id, d.id, s.enabled, s.url
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
select target.enabled, target.url as subscription_url, d.id, d.event_id, e.type as event_type, d.status, d.attempts, d.last_response_status, d.last_attempt_at, d.next_attempt_at, d.last_error, d.delivered_at, d.created_at
  from target
  left join d on true
  left join api_events e on e.company_id = d.company_id and e.id = d.event_id;

-- webhooks.eventsOfTypesPage
with total as materialized (select count(*)::int as n from api_events where company_id = (select $1::bigint) and id > $3::bigint and type <> 'ping'
     and ($2::timestamptz is null or created_at >= $2::timestamptz) and type = any ($6::text[]))
select total.n as total, p.*
  from total
  left join lateral (
    select id, type, created_at, sequence, data from api_events where company_id = (select $1::bigint) and id > $3::bigint and type <> 'ping'
     and ($2::timestamptz is null or created_at >= $2::timestamptz) and type = any ($6::text[]) order by id limit $4 offset $5::bigint
  ) p on $5::bigint < total.n;

-- webhooks.eventsPage
with total as materialized (select count(*)::int as n from api_events where company_id = (select $1::bigint) and id > $3::bigint and type <> 'ping'
     and ($2::timestamptz is null or created_at >= $2::timestamptz))
select total.n as total, p.*
  from total
  left join lateral (
    select id, type, created_at, sequence, data from api_events where company_id = (select $1::bigint) and id > $3::bigint and type <> 'ping'
     and ($2::timestamptz is null or created_at >= $2::timestamptz) order by id limit $4 offset $5::bigint
  ) p on $5::bigint < total.n;

-- webhooks.eventById (pipelined: src/db/pipeline.ts)
select id, type, created_at, sequence, data from api_events where company_id = (select $1::bigint) and id = $2 and type <> 'ping';
