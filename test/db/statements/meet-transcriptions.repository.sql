-- Statements of src/modules/meet-transcriptions/meet-transcriptions.repository.ts, as run (test/db/statements.test.ts writes this file).

-- meetTranscriptions.byId (pipelined: src/db/pipeline.ts)
select id, user_id, company_id, meet_id, status, stopped_at, task_id, transcript, created_at, updated_at from meet_transcriptions where company_id = $1 and id = $2;

-- meetTranscriptions.status
select status from meet_transcriptions where company_id = $1 and id = $2;

-- meetTranscriptions.page
with total as materialized (
  select (coalesce((select sum(value) from counters where company_id = $1 and list = 'meet_transcriptions' and key = $2), 0)::bigint)::int as n
),
page as materialized (
  select case when $4::bigint >= (select n from total) then '{}'::bigint[]
            when $4::bigint < (select n from total) - $4::bigint then array(select id from meet_transcriptions
           where company_id = $1 and user_id = $2
           order by id asc limit $3 offset $4::bigint)
            else array(select id from meet_transcriptions
           where company_id = $1 and user_id = $2
           order by id desc limit greatest(least($3, (select n from total) - $4::bigint), 0) offset greatest((select n from total) - $4::bigint - $3, 0))
       end as ids
)
select total.n as total, p.*
  from total
  left join lateral (
    select id, user_id, company_id, meet_id, status, stopped_at, task_id, transcript_length, created_at, updated_at
      from unnest((select ids from page)::bigint[]) as page_ids(page_id)
     cross join lateral (select * from meet_transcriptions where company_id = $1 and id = page_ids.page_id limit 1) meet_transcriptions
     order by id
  ) p on true;

-- meetTranscriptions.pageWithoutTask
with total as materialized (
  select (coalesce((select sum(value) from counters where company_id = $1 and list = 'meet_transcriptions' and key = $2), 0)::bigint - coalesce((select sum(value) from counters where company_id = $1 and list = 'meet_transcriptions_linked' and key = $2), 0)::bigint)::int as n
),
page as materialized (
  select case when $4::bigint >= (select n from total) then '{}'::bigint[]
            when $4::bigint < (select n from total) - $4::bigint then array(select id from meet_transcriptions
           where company_id = $1 and user_id = $2 and (task_id is not null) is false
           order by id asc limit $3 offset $4::bigint)
            else array(select id from meet_transcriptions
           where company_id = $1 and user_id = $2 and (task_id is not null) is false
           order by id desc limit greatest(least($3, (select n from total) - $4::bigint), 0) offset greatest((select n from total) - $4::bigint - $3, 0))
       end as ids
)
select total.n as total, p.*
  from total
  left join lateral (
    select id, user_id, company_id, meet_id, status, stopped_at, task_id, transcript_length, created_at, updated_at
      from unnest((select ids from page)::bigint[]) as page_ids(page_id)
     cross join lateral (select * from meet_transcriptions where company_id = $1 and id = page_ids.page_id limit 1) meet_transcriptions
     order by id
  ) p on true;

-- meetTranscriptions.pageWithTask
with total as materialized (
  select (coalesce((select sum(value) from counters where company_id = $1 and list = 'meet_transcriptions_linked' and key = $2), 0)::bigint)::int as n
),
page as materialized (
  select case when $4::bigint >= (select n from total) then '{}'::bigint[]
            when $4::bigint < (select n from total) - $4::bigint then array(select id from meet_transcriptions
           where company_id = $1 and user_id = $2 and (task_id is not null) = true
           order by id asc limit $3 offset $4::bigint)
            else array(select id from meet_transcriptions
           where company_id = $1 and user_id = $2 and (task_id is not null) = true
           order by id desc limit greatest(least($3, (select n from total) - $4::bigint), 0) offset greatest((select n from total) - $4::bigint - $3, 0))
       end as ids
)
select total.n as total, p.*
  from total
  left join lateral (
    select id, user_id, company_id, meet_id, status, stopped_at, task_id, transcript_length, created_at, updated_at
      from unnest((select ids from page)::bigint[]) as page_ids(page_id)
     cross join lateral (select * from meet_transcriptions where company_id = $1 and id = page_ids.page_id limit 1) meet_transcriptions
     order by id
  ) p on true;

-- meetTranscriptions.walk (replica: src/db/replica.ts)
select to_char((updated_at) at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as sync_at, id, user_id, company_id, meet_id, status, stopped_at, task_id, transcript_length, created_at, updated_at
  from meet_transcriptions
 where company_id = (select $1::bigint)
   and (updated_at, id) > ($2::timestamptz, $3::bigint)
   and updated_at < least($4::timestamptz, $5::timestamptz)
 order by updated_at, id
 limit $6;

-- meetTranscriptions.count (replica: src/db/replica.ts)
select (case $3::text when 'with' then linked when 'without' then every - linked else every end)::int as count
  from (select coalesce(sum(value) filter (where list = 'meet_transcriptions'), 0) as every,
               coalesce(sum(value) filter (where list = 'meet_transcriptions_linked'), 0) as linked
          from (select company_id, list, key, slot, value from counters) k
         where company_id = $1 and list in ('meet_transcriptions', 'meet_transcriptions_linked') and key = $2) c;

-- meetTranscriptions.ofContact (pipelined: src/db/pipeline.ts)
select t.*
  from (select id from tasks where company_id = $1 and contact_id = $2) k
 cross join lateral (
   select id, user_id, company_id, meet_id, status, stopped_at, task_id, transcript_length, created_at, updated_at
     from meet_transcriptions
    where task_id = k.id and company_id = $1
    order by id desc
    limit $3
 ) t
 order by t.id desc
 limit $3;

-- meetTranscriptions.insert
with t as (
  insert into meet_transcriptions (company_id, user_id, meet_id) values ($1, $2, $3)
  returning id, user_id, company_id, meet_id, status, stopped_at, task_id, transcript, created_at, updated_at
),
counted as (
  insert into counters (company_id, list, key, value)
  select $1, 'meet_transcriptions', user_id, 1 from t
  on conflict (company_id, list, key, slot) do update set value = counters.value + excluded.value
  returning value
), api_event as (
  select 1 as ord, 'meet_transcription.created' as type, (select row_to_json(j) from (select t.id, t.user_id, t.company_id, t.meet_id, t.status, to_char(t.stopped_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as stopped_at, t.task_id, t.transcript, to_char(t.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as created_at, to_char(t.updated_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as updated_at) j) as data from t
), recorded_events as (
  insert into api_event_outbox (company_id, type, data, created_at)
  select $1::bigint, e.type, e.data, now()
    from api_event e
   order by e.ord
  returning company_id, id, type
)
select * from t;

-- meetTranscriptions.stop
with instant as (
  select at from (select coalesce($3::date::timestamp at time zone $4::text, $5::timestamptz) as at) v
   where at between '0001-01-01 00:00:00+00' and '9999-12-31 23:59:59.999+00'
),
stopped as (
  update meet_transcriptions t set status = 'stopped', stopped_at = instant.at, updated_at = now()
    from instant
   where t.company_id = $1 and t.id = $2 and t.status = 'recording'
  returning t.id, t.user_id, t.company_id, t.meet_id, t.status, t.stopped_at, t.task_id, t.transcript, t.created_at, t.updated_at
), api_event as (
  select 1 as ord, 'meet_transcription.stopped' as type, (select row_to_json(j) from (select stopped.id, stopped.user_id, stopped.company_id, stopped.meet_id, stopped.status, to_char(stopped.stopped_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as stopped_at, stopped.task_id, stopped.transcript, to_char(stopped.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as created_at, to_char(stopped.updated_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as updated_at) j) as data from stopped
), recorded_events as (
  insert into api_event_outbox (company_id, type, data, created_at)
  select $1::bigint, e.type, e.data, now()
    from api_event e
   order by e.ord
  returning company_id, id, type
)
select exists(select 1 from instant) as in_range, stopped.*
  from (select) one left join stopped on true;

-- meetTranscriptions.transcript
with t as (
  update meet_transcriptions
     set status = 'transcribed', transcript = $3, transcript_length = $4, updated_at = now()
   where company_id = $1 and id = $2 and status in ('stopped', 'transcribed')
  returning id, user_id, company_id, meet_id, status, stopped_at, task_id, created_at, updated_at
), api_event as (
  select 1 as ord, 'meet_transcription.transcribed' as type, (select row_to_json(j) from (select t.id, t.user_id, t.company_id, t.meet_id, t.status, to_char(t.stopped_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as stopped_at, t.task_id, $3::text as transcript, to_char(t.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as created_at, to_char(t.updated_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as updated_at) j) as data from t
), recorded_events as (
  insert into api_event_outbox (company_id, type, data, created_at)
  select $1::bigint, e.type, e.data, now()
    from api_event e
   order by e.ord
  returning company_id, id, type
)
select * from t;

-- meetTranscriptions.link
with locked as (
  select id, task_id from meet_transcriptions where company_id = $1 and id = $2 for update
),
task as (
  select id, contact_id from tasks where company_id = $1 and id = $3
),
linked as (
  update meet_transcriptions t set task_id = task.id, updated_at = now()
    from locked, task
   where t.company_id = $1 and t.id = locked.id
  returning t.id, t.user_id, t.company_id, t.meet_id, t.status, t.stopped_at, t.task_id, t.transcript, t.created_at, t.updated_at, locked.task_id as previous_task_id
),
event as (
  insert into contact_events (company_id, contact_id, kind, user_id, data, occurred_at)
  select $1, task.contact_id, 'meet_transcription_linked', $4,
         jsonb_build_object('meet_transcription_id', linked.id, 'meet_id', linked.meet_id, 'task_id', task.id), now()
    from linked, task
),
counted as (
  insert into counters (company_id, list, key, value)
  select $1, 'meet_transcriptions_linked', user_id, 1 from linked where previous_task_id is null
  on conflict (company_id, list, key, slot) do update set value = counters.value + excluded.value
  returning value
), api_event as (
  select 1 as ord, 'meet_transcription.linked_to_task' as type, (select row_to_json(j) from (select linked.id, linked.user_id, linked.company_id, linked.meet_id, linked.status, to_char(linked.stopped_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as stopped_at, linked.task_id, linked.transcript, to_char(linked.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as created_at, to_char(linked.updated_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as updated_at) j) as data from linked
), recorded_events as (
  insert into api_event_outbox (company_id, type, data, created_at)
  select $1::bigint, e.type, e.data, now()
    from api_event e
   order by e.ord
  returning company_id, id, type
)
select exists(select 1 from locked) as found, exists(select 1 from task) as task_found,
       linked.id, linked.user_id, linked.company_id, linked.meet_id, linked.status, linked.stopped_at, linked.task_id, linked.transcript, linked.created_at, linked.updated_at
  from (select) one left join linked on true;

-- meetTranscriptions.firstTasks
select id from tasks where company_id = $1 order by id limit $2;
