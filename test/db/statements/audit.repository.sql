-- Statements of src/modules/audit/audit.repository.ts, as run (test/db/statements.test.ts writes this file).

-- audit.insert
with recorded as (
  insert into audit_events (company_id, occurred_at, action, actor_type, actor_id, actor_label, on_behalf_of_id,
                            on_behalf_of_label, target_type, target_id, target_label, outcome, reason, ip, user_agent,
                            request_id, changes)
  values ($1, $2, $3, $4::text, $5::bigint,
          coalesce($6::text, case when $4::text = 'api_token' then (
            select coalesce(t.label, t.prefix || '…') || ' (' || u.name || ')'
              from api_tokens t join users u on u.company_id = t.company_id and u.id = t.user_id
             where t.company_id = $1 and t.id = $5::bigint) end),
          $16::bigint,
          (select u.name from users u where u.company_id = $1 and u.id = $16::bigint),
          $7, $8, $9, $10, $11, $12, $13, $14, $15::json)
  returning id, occurred_at, action, actor_type, actor_id, actor_label, on_behalf_of_id, on_behalf_of_label, target_type,
    target_id, target_label, outcome, reason, ip, user_agent, request_id, changes
), streamed as (
  select 1 as ord, 'audit_event.created'::text as type,
         (select row_to_json(j) from (select r.id, to_char(r.occurred_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as occurred_at, r.action, json_build_object('type', r.actor_type, 'id', r.actor_id, 'label', r.actor_label, 'on_behalf_of', case when r.on_behalf_of_id is not null then json_build_object('id', r.on_behalf_of_id, 'label', r.on_behalf_of_label) end) as actor, json_build_object('type', r.target_type, 'id', r.target_id, 'label', r.target_label) as target, r.outcome, r.reason, r.ip, r.user_agent, r.request_id, r.changes) j) as data
    from recorded r
   where exists (select from webhook_subscriptions s
                  where s.company_id = $1 and s.enabled and 'audit_event.created' = any (s.events))
), recorded_events as (
  insert into api_event_outbox (company_id, type, data, created_at)
  select $1::bigint, e.type, e.data, $2::timestamptz
    from streamed e
   order by e.ord
  returning company_id, id, type
)
select id from recorded;

-- audit.pageAction
select e.id, e.occurred_at, e.action, json_build_object('type', e.actor_type, 'id', e.actor_id, 'label', e.actor_label, 'on_behalf_of', case when e.on_behalf_of_id is not null then json_build_object('id', e.on_behalf_of_id, 'label', e.on_behalf_of_label) end) as actor, json_build_object('type', e.target_type, 'id', e.target_id, 'label', e.target_label) as target, e.outcome, e.reason, e.ip, e.user_agent, e.request_id, e.changes, s.hit, s.n
  from (
    -- audit_events_action_idx; narrow rows through the row numbering, whole ones only for what is sent
    select occurred_at, id,
           ($7::text is null or target_type = $7)
       and ($8::bigint is null or target_id = $8)
       and ($9::text is null or actor_type = $9)
       and ($10::bigint is null or actor_id = $10)
       and ($11::text is null or outcome = $11) as hit,
           row_number() over (order by occurred_at desc, id desc)::int as n
      from audit_events
     where company_id = $1
       and action = $6
       and (occurred_at, id) < ($2::timestamptz, $3::bigint)
       and occurred_at >= $4::timestamptz
     order by occurred_at desc, id desc
     limit $12
  ) s
  join audit_events e on e.company_id = $1 and e.id = s.id
 where s.hit or s.n = $12
 order by s.occurred_at desc, s.id desc
 limit $5;

-- audit.pageActor
select e.id, e.occurred_at, e.action, json_build_object('type', e.actor_type, 'id', e.actor_id, 'label', e.actor_label, 'on_behalf_of', case when e.on_behalf_of_id is not null then json_build_object('id', e.on_behalf_of_id, 'label', e.on_behalf_of_label) end) as actor, json_build_object('type', e.target_type, 'id', e.target_id, 'label', e.target_label) as target, e.outcome, e.reason, e.ip, e.user_agent, e.request_id, e.changes, s.hit, s.n
  from (
    -- audit_events_actor_idx; narrow rows through the row numbering, whole ones only for what is sent
    select occurred_at, id,
           ($6::text is null or action = $6)
       and ($7::text is null or target_type = $7)
       and ($8::bigint is null or target_id = $8)
       and ($11::text is null or outcome = $11) as hit,
           row_number() over (order by occurred_at desc, id desc)::int as n
      from audit_events
     where company_id = $1
       and actor_type = $9
       and actor_id = $10
       and (occurred_at, id) < ($2::timestamptz, $3::bigint)
       and occurred_at >= $4::timestamptz
     order by occurred_at desc, id desc
     limit $12
  ) s
  join audit_events e on e.company_id = $1 and e.id = s.id
 where s.hit or s.n = $12
 order by s.occurred_at desc, s.id desc
 limit $5;

-- audit.pageActorType
select e.id, e.occurred_at, e.action, json_build_object('type', e.actor_type, 'id', e.actor_id, 'label', e.actor_label, 'on_behalf_of', case when e.on_behalf_of_id is not null then json_build_object('id', e.on_behalf_of_id, 'label', e.on_behalf_of_label) end) as actor, json_build_object('type', e.target_type, 'id', e.target_id, 'label', e.target_label) as target, e.outcome, e.reason, e.ip, e.user_agent, e.request_id, e.changes, s.hit, s.n
  from (
    -- audit_events_actor_type_idx; narrow rows through the row numbering, whole ones only for what is sent
    select occurred_at, id,
           ($6::text is null or action = $6)
       and ($7::text is null or target_type = $7)
       and ($8::bigint is null or target_id = $8)
       and ($10::bigint is null or actor_id = $10)
       and ($11::text is null or outcome = $11) as hit,
           row_number() over (order by occurred_at desc, id desc)::int as n
      from audit_events
     where company_id = $1
       and actor_type = $9
       and (occurred_at, id) < ($2::timestamptz, $3::bigint)
       and occurred_at >= $4::timestamptz
     order by occurred_at desc, id desc
     limit $12
  ) s
  join audit_events e on e.company_id = $1 and e.id = s.id
 where s.hit or s.n = $12
 order by s.occurred_at desc, s.id desc
 limit $5;

-- audit.pageFailures
select e.id, e.occurred_at, e.action, json_build_object('type', e.actor_type, 'id', e.actor_id, 'label', e.actor_label, 'on_behalf_of', case when e.on_behalf_of_id is not null then json_build_object('id', e.on_behalf_of_id, 'label', e.on_behalf_of_label) end) as actor, json_build_object('type', e.target_type, 'id', e.target_id, 'label', e.target_label) as target, e.outcome, e.reason, e.ip, e.user_agent, e.request_id, e.changes, s.hit, s.n
  from (
    -- audit_events_failure_idx; narrow rows through the row numbering, whole ones only for what is sent
    select occurred_at, id,
           ($6::text is null or action = $6)
       and ($7::text is null or target_type = $7)
       and ($8::bigint is null or target_id = $8)
       and ($9::text is null or actor_type = $9)
       and ($10::bigint is null or actor_id = $10)
       and ($11::text is null or outcome = $11) as hit,
           row_number() over (order by occurred_at desc, id desc)::int as n
      from audit_events
     where company_id = $1
       and outcome = 'failure'
       and (occurred_at, id) < ($2::timestamptz, $3::bigint)
       and occurred_at >= $4::timestamptz
     order by occurred_at desc, id desc
     limit $12
  ) s
  join audit_events e on e.company_id = $1 and e.id = s.id
 where s.hit or s.n = $12
 order by s.occurred_at desc, s.id desc
 limit $5;

-- audit.pageTarget
select e.id, e.occurred_at, e.action, json_build_object('type', e.actor_type, 'id', e.actor_id, 'label', e.actor_label, 'on_behalf_of', case when e.on_behalf_of_id is not null then json_build_object('id', e.on_behalf_of_id, 'label', e.on_behalf_of_label) end) as actor, json_build_object('type', e.target_type, 'id', e.target_id, 'label', e.target_label) as target, e.outcome, e.reason, e.ip, e.user_agent, e.request_id, e.changes, s.hit, s.n
  from (
    -- audit_events_target_idx; narrow rows through the row numbering, whole ones only for what is sent
    select occurred_at, id,
           ($6::text is null or action = $6)
       and ($9::text is null or actor_type = $9)
       and ($10::bigint is null or actor_id = $10)
       and ($11::text is null or outcome = $11) as hit,
           row_number() over (order by occurred_at desc, id desc)::int as n
      from audit_events
     where company_id = $1
       and target_type = $7
       and target_id = $8
       and (occurred_at, id) < ($2::timestamptz, $3::bigint)
       and occurred_at >= $4::timestamptz
     order by occurred_at desc, id desc
     limit $12
  ) s
  join audit_events e on e.company_id = $1 and e.id = s.id
 where s.hit or s.n = $12
 order by s.occurred_at desc, s.id desc
 limit $5;

-- audit.pageTargetType
select e.id, e.occurred_at, e.action, json_build_object('type', e.actor_type, 'id', e.actor_id, 'label', e.actor_label, 'on_behalf_of', case when e.on_behalf_of_id is not null then json_build_object('id', e.on_behalf_of_id, 'label', e.on_behalf_of_label) end) as actor, json_build_object('type', e.target_type, 'id', e.target_id, 'label', e.target_label) as target, e.outcome, e.reason, e.ip, e.user_agent, e.request_id, e.changes, s.hit, s.n
  from (
    -- audit_events_target_type_idx; narrow rows through the row numbering, whole ones only for what is sent
    select occurred_at, id,
           ($6::text is null or action = $6)
       and ($8::bigint is null or target_id = $8)
       and ($9::text is null or actor_type = $9)
       and ($10::bigint is null or actor_id = $10)
       and ($11::text is null or outcome = $11) as hit,
           row_number() over (order by occurred_at desc, id desc)::int as n
      from audit_events
     where company_id = $1
       and target_type = $7
       and (occurred_at, id) < ($2::timestamptz, $3::bigint)
       and occurred_at >= $4::timestamptz
     order by occurred_at desc, id desc
     limit $12
  ) s
  join audit_events e on e.company_id = $1 and e.id = s.id
 where s.hit or s.n = $12
 order by s.occurred_at desc, s.id desc
 limit $5;

-- audit.pageTime
select e.id, e.occurred_at, e.action, json_build_object('type', e.actor_type, 'id', e.actor_id, 'label', e.actor_label, 'on_behalf_of', case when e.on_behalf_of_id is not null then json_build_object('id', e.on_behalf_of_id, 'label', e.on_behalf_of_label) end) as actor, json_build_object('type', e.target_type, 'id', e.target_id, 'label', e.target_label) as target, e.outcome, e.reason, e.ip, e.user_agent, e.request_id, e.changes, s.hit, s.n
  from (
    -- audit_events_time_idx; narrow rows through the row numbering, whole ones only for what is sent
    select occurred_at, id,
           ($6::text is null or action = $6)
       and ($7::text is null or target_type = $7)
       and ($8::bigint is null or target_id = $8)
       and ($9::text is null or actor_type = $9)
       and ($10::bigint is null or actor_id = $10)
       and ($11::text is null or outcome = $11) as hit,
           row_number() over (order by occurred_at desc, id desc)::int as n
      from audit_events
     where company_id = $1
       and (occurred_at, id) < ($2::timestamptz, $3::bigint)
       and occurred_at >= $4::timestamptz
     order by occurred_at desc, id desc
     limit $12
  ) s
  join audit_events e on e.company_id = $1 and e.id = s.id
 where s.hit or s.n = $12
 order by s.occurred_at desc, s.id desc
 limit $5;

-- audit.exportBatch
select e.id, e.occurred_at, e.action, json_build_object('type', e.actor_type, 'id', e.actor_id, 'label', e.actor_label, 'on_behalf_of', case when e.on_behalf_of_id is not null then json_build_object('id', e.on_behalf_of_id, 'label', e.on_behalf_of_label) end) as actor, json_build_object('type', e.target_type, 'id', e.target_id, 'label', e.target_label) as target, e.outcome, e.reason, e.ip, e.user_agent, e.request_id, e.changes
  from audit_events e
 where company_id = $1
   and (occurred_at, id) > ($2::timestamptz, $3::bigint)
   and occurred_at < $4::timestamptz
 order by occurred_at, id
 limit $5;

-- audit.prune
with old as (
  select e.company_id, e.id
    from companies c
    cross join lateral (
      select company_id, id from audit_events a
       where a.company_id = c.id and a.occurred_at < $1::timestamptz
       order by a.occurred_at, a.id
       limit $2::int
    ) e
   limit $2::int
), locked as (
  select a.company_id, a.id from audit_events a join old using (company_id, id)
     for update of a skip locked
), gone as (
  delete from audit_events a using locked l where a.company_id = l.company_id and a.id = l.id
  returning 1
)
select count(*)::int as deleted from gone;
