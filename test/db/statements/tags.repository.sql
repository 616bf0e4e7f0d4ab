-- Statements of src/modules/tags/tags.repository.ts, as run (test/db/statements.test.ts writes this file).

-- tags.list (pipelined: src/db/pipeline.ts)
select id, name, color, created_at, updated_at from tags where company_id = $1 order by id;

-- tags.insert
with t as (
  insert into tags (company_id, name, color, created_at, updated_at) values ($1, $2, $3, $4, $4) returning id, name, color, created_at, updated_at
), event as (
  select 1 as ord, 'tag.created' as type, (select row_to_json(j) from (select t.id, t.name, t.color, to_char(t.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as created_at, to_char(t.updated_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as updated_at) j) as data from t
), recorded_events as (
  insert into api_event_outbox (company_id, type, data, created_at)
  select $1::bigint, e.type, e.data, $4::timestamptz
    from event e
   order by e.ord
  returning company_id, id, type
)
select id, name, color, created_at, updated_at from t;

-- tags.insertMany
insert into tags (company_id, name, color, created_at, updated_at)
select $1, t.name, t.color, $4, $4
  from unnest($2::text[], $3::text[]) with ordinality as t(name, color, n)
 order by t.n
returning id, name;

-- tags.update
with t as (
  update tags set name = $3, color = $4, updated_at = $5 where company_id = $1 and id = $2 returning id, name, color, created_at, updated_at
), event as (
  select 1 as ord, 'tag.updated' as type, (select row_to_json(j) from (select t.id, t.name, t.color, to_char(t.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as created_at, to_char(t.updated_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as updated_at) j) as data from t
), recorded_events as (
  insert into api_event_outbox (company_id, type, data, created_at)
  select $1::bigint, e.type, e.data, $5::timestamptz
    from event e
   order by e.ord
  returning company_id, id, type
)
select id, name, color, created_at, updated_at from t;

-- tags.lock
select id from tags where company_id = $1 and id = $2 for update;
