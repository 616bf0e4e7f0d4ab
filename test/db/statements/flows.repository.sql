-- Statements of src/modules/flows/flows.repository.ts, as run (test/db/statements.test.ts writes this file).

-- flows.page
with matches as materialized (
  select id from flows where company_id = $1
),
summary as (
  select (select count(*) from matches)::int as total,
         array(select id from matches order by id limit $2 offset $3::bigint) as ids
)
select s.total, p.*
  from summary s
  left join lateral (
    select f.id, f.name, f.user_id, f.status, coalesce((select json_agg(json_build_object('position', st.position, 'day', st.day, 'kind', st.kind, 'title', st.title)
                               order by st.position)
                 from flow_steps st
                where st.company_id = f.company_id and st.flow_id = f.id), '[]') as steps, coalesce((select sum(value) from counters where company_id = f.company_id and list = 'flows.contacts' and key = f.id), 0)::bigint as contacts_count, f.created_at, f.updated_at
      from unnest(s.ids) as page_ids(page_id)
     cross join lateral (select * from flows where company_id = $1 and id = page_ids.page_id limit 1) f
     order by f.id
  ) p on true;

-- flows.pageOfUser
with matches as materialized (
  select id from flows where company_id = $1 and user_id = $4
),
summary as (
  select (select count(*) from matches)::int as total,
         array(select id from matches order by id limit $2 offset $3::bigint) as ids
)
select s.total, p.*
  from summary s
  left join lateral (
    select f.id, f.name, f.user_id, f.status, coalesce((select json_agg(json_build_object('position', st.position, 'day', st.day, 'kind', st.kind, 'title', st.title)
                               order by st.position)
                 from flow_steps st
                where st.company_id = f.company_id and st.flow_id = f.id), '[]') as steps, coalesce((select sum(value) from counters where company_id = f.company_id and list = 'flows.contacts' and key = f.id), 0)::bigint as contacts_count, f.created_at, f.updated_at
      from unnest(s.ids) as page_ids(page_id)
     cross join lateral (select * from flows where company_id = $1 and id = page_ids.page_id limit 1) f
     order by f.id
  ) p on true;

-- flows.search
with matches as materialized (
  select id from flows where company_id = $1 and name ilike $4
),
summary as (
  select (select count(*) from matches)::int as total,
         array(select id from matches order by id limit $2 offset $3::bigint) as ids
)
select s.total, p.*
  from summary s
  left join lateral (
    select f.id, f.name, f.user_id, f.status, coalesce((select json_agg(json_build_object('position', st.position, 'day', st.day, 'kind', st.kind, 'title', st.title)
                               order by st.position)
                 from flow_steps st
                where st.company_id = f.company_id and st.flow_id = f.id), '[]') as steps, coalesce((select sum(value) from counters where company_id = f.company_id and list = 'flows.contacts' and key = f.id), 0)::bigint as contacts_count, f.created_at, f.updated_at
      from unnest(s.ids) as page_ids(page_id)
     cross join lateral (select * from flows where company_id = $1 and id = page_ids.page_id limit 1) f
     order by f.id
  ) p on true;

-- flows.searchOfUser
with matches as materialized (
  select id from flows where company_id = $1 and user_id = $4 and name ilike $5
),
summary as (
  select (select count(*) from matches)::int as total,
         array(select id from matches order by id limit $2 offset $3::bigint) as ids
)
select s.total, p.*
  from summary s
  left join lateral (
    select f.id, f.name, f.user_id, f.status, coalesce((select json_agg(json_build_object('position', st.position, 'day', st.day, 'kind', st.kind, 'title', st.title)
                               order by st.position)
                 from flow_steps st
                where st.company_id = f.company_id and st.flow_id = f.id), '[]') as steps, coalesce((select sum(value) from counters where company_id = f.company_id and list = 'flows.contacts' and key = f.id), 0)::bigint as contacts_count, f.created_at, f.updated_at
      from unnest(s.ids) as page_ids(page_id)
     cross join lateral (select * from flows where company_id = $1 and id = page_ids.page_id limit 1) f
     order by f.id
  ) p on true;

-- flows.forEnrollment
select f.id, f.name, f.status,
       coalesce((select json_agg(json_build_object('day', st.day, 'kind', st.kind, 'title', st.title) order by st.position)
                   from flow_steps st
                  where st.company_id = f.company_id and st.flow_id = f.id), '[]') as steps
  from flows f
 where f.company_id = $1 and f.id = $2;

-- flows.create
with f as (
  insert into flows (company_id, user_id, name, status) values ($1, $2, $3, $4) returning *
),
s as (
  insert into flow_steps (company_id, flow_id, position, day, kind, title)
  select f.company_id, f.id, st.position, st.day, st.kind, st.title
    from f, jsonb_to_recordset($5::jsonb) as st(position integer, day integer, kind task_kind, title varchar)
  returning position, day, kind, title
)
select f.id, f.name, f.user_id, f.status, coalesce((select json_agg(json_build_object('position', s.position, 'day', s.day, 'kind', s.kind, 'title', s.title)
                                 order by s.position) from s), '[]') as steps, 0 as contacts_count, f.created_at, f.updated_at
  from f;

-- flows.byId (pipelined: src/db/pipeline.ts)
select f.id, f.name, f.user_id, f.status, coalesce((select json_agg(json_build_object('position', st.position, 'day', st.day, 'kind', st.kind, 'title', st.title)
order by st.position)
from flow_steps st
where st.company_id = f.company_id and st.flow_id = f.id), '[]') as steps, coalesce((select sum(value) from counters where company_id = f.company_id and list = 'flows.contacts' and key = f.id), 0)::bigint as contacts_count, f.created_at, f.updated_at from flows f where f.company_id = $1 and f.id = $2;

-- flows.lock
select id from flows where company_id = $1 and id = $2 for update;

-- flows.change
update flows set name = coalesce($3, name), status = coalesce($4::flow_status, status), updated_at = $5
 where company_id = $1 and id = $2;

-- flows.deleteSteps
delete from flow_steps where company_id = $1 and flow_id = $2;

-- flows.insertSteps
insert into flow_steps (company_id, flow_id, position, day, kind, title)
select $1, $2, st.position, st.day, st.kind, st.title
  from jsonb_to_recordset($3::jsonb) as st(position integer, day integer, kind task_kind, title varchar);

-- flows.enroll
insert into flow_enrollments (company_id, flow_id, contact_id, status, added_at, created_at, updated_at)
values ($1, $2, $3, 'active', $4, $4, $4)
returning id, flow_id, contact_id, status, added_at, created_at, updated_at;

-- flows.adjustContacts
insert into counters (company_id, list, key, value)
values ($1, 'flows.contacts', $2, $3)
on conflict (company_id, list, key, slot) do update set value = counters.value + excluded.value;

-- flows.activeContactsIn
select e.contact_id
  from unnest($3::bigint[]) as named (contact_id)
  join flow_enrollments e on e.company_id = $1 and e.flow_id = $2 and e.contact_id = named.contact_id and e.status = 'active';
