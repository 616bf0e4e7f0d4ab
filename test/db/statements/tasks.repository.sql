-- Statements of src/modules/tasks/tasks.repository.ts, as run (test/db/statements.test.ts writes this file).

-- tasks.page (replica: src/db/replica.ts)
with total as materialized (select case when $9::text[] is null then (select count(*) from tasks
            where company_id = (select $1::bigint) and due_date >= coalesce($6::date, '-infinity') and due_date <= coalesce($7::date, 'infinity') and ($8::task_kind is null or kind = $8::task_kind)
              and done = any(case when $5::boolean is null then '{f,t}'::boolean[] else array[$5::boolean] end))
         else (select coalesce(sum(k.value * c.sign), 0)
                 from unnest($9::text[], $10::bigint[], $11::bigint[], $12::int[]) as c(list, low, high, sign)
                 join (select company_id, list, key, slot, value from counters) k on k.company_id = (select $1::bigint) and k.list = c.list and k.key >= c.low and k.key <= c.high)
    end::bigint as n)
select total.n as total, p.*
  from total
  left join lateral (
    select t.id, t.kind, t.title, to_char(t.due_date, 'YYYY-MM-DD') as due_date, t.done, t.done_at, case when t.done then 'done' when t.due_date < $2::date then 'overdue' when t.due_date = $2::date then 'today'
          else 'future' end as status, t.assigned_to_id, t.flow_id, t.contact_id, t.created_at, t.updated_at
      from unnest(case when $4::bigint >= total.n then '{}'::bigint[]
            when $4::bigint < total.n - $4::bigint then array(
             select id from (
               (select due_date, id from tasks where company_id = (select $1::bigint) and due_date >= coalesce($6::date, '-infinity') and due_date <= coalesce($7::date, 'infinity') and ($8::task_kind is null or kind = $8::task_kind) and done = false and $5::boolean is not true
                 order by due_date asc, id asc limit $3 + $4::bigint)
               union all
               (select due_date, id from tasks where company_id = (select $1::bigint) and due_date >= coalesce($6::date, '-infinity') and due_date <= coalesce($7::date, 'infinity') and ($8::task_kind is null or kind = $8::task_kind) and done = true and $5::boolean is not false
                 order by due_date asc, id asc limit $3 + $4::bigint)
             ) s
             order by due_date asc, id asc limit $3 offset $4::bigint)
            else array(
             select id from (
               (select due_date, id from tasks where company_id = (select $1::bigint) and due_date >= coalesce($6::date, '-infinity') and due_date <= coalesce($7::date, 'infinity') and ($8::task_kind is null or kind = $8::task_kind) and done = false and $5::boolean is not true
                 order by due_date desc, id desc limit greatest(least($3, total.n - $4::bigint), 0) + greatest(total.n - $4::bigint - $3, 0))
               union all
               (select due_date, id from tasks where company_id = (select $1::bigint) and due_date >= coalesce($6::date, '-infinity') and due_date <= coalesce($7::date, 'infinity') and ($8::task_kind is null or kind = $8::task_kind) and done = true and $5::boolean is not false
                 order by due_date desc, id desc limit greatest(least($3, total.n - $4::bigint), 0) + greatest(total.n - $4::bigint - $3, 0))
             ) s
             order by due_date desc, id desc limit greatest(least($3, total.n - $4::bigint), 0) offset greatest(total.n - $4::bigint - $3, 0))
       end) as page_ids(page_id)
     cross join lateral (select * from tasks where company_id = (select $1::bigint) and id = page_ids.page_id limit 1) t
     order by t.due_date, t.id
  ) p on true;

-- tasks.pageByDoneDate (replica: src/db/replica.ts)
with days as (
  select d::date as day
    from generate_series(greatest($13::date, (select min(done_on) from tasks where company_id = (select $1::bigint) and done)),
                         least($14::date, (select max(done_on) from tasks where company_id = (select $1::bigint) and done)),
                         interval '1 day') as d
),
total as materialized (select case when $9::text[] is null then (select count(*) from tasks
            where company_id = (select $1::bigint) and done
              and done_on >= coalesce($13::date, '-infinity') and done_on <= coalesce($14::date, 'infinity')
              and due_date >= coalesce($6::date, '-infinity') and due_date <= coalesce($7::date, 'infinity') and ($8::task_kind is null or kind = $8::task_kind) and ((select $15::bigint)::bigint is null or assigned_to_id = (select $15::bigint)::bigint) and ((select $16::bigint)::bigint is null or flow_id = (select $16::bigint)::bigint)
              and $5::boolean is not false)
         else (select coalesce(sum(k.value * c.sign), 0)
                 from unnest($9::text[], $10::bigint[], $11::bigint[], $12::int[]) as c(list, low, high, sign)
                 join (select company_id, list, key, slot, value from counters) k on k.company_id = (select $1::bigint) and k.list = c.list and k.key >= c.low and k.key <= c.high)
    end::bigint as n)
select total.n as total, p.*
  from total
  left join lateral (
    select t.id, t.kind, t.title, to_char(t.due_date, 'YYYY-MM-DD') as due_date, t.done, t.done_at, case when t.done then 'done' when t.due_date < $2::date then 'overdue' when t.due_date = $2::date then 'today'
          else 'future' end as status, t.assigned_to_id, t.flow_id, t.contact_id, t.created_at, t.updated_at
      from unnest(case when $4::bigint >= total.n then '{}'::bigint[]
            when $4::bigint < total.n - $4::bigint then array(
             select x.id from days, lateral (
               select due_date, id from tasks
                where company_id = (select $1::bigint) and done and done_on = days.day and due_date >= coalesce($6::date, '-infinity') and due_date <= coalesce($7::date, 'infinity') and ($8::task_kind is null or kind = $8::task_kind) and ((select $15::bigint)::bigint is null or assigned_to_id = (select $15::bigint)::bigint) and ((select $16::bigint)::bigint is null or flow_id = (select $16::bigint)::bigint)
              and $5::boolean is not false
                order by due_date asc, id asc limit $3 + $4::bigint
             ) x
             order by due_date asc, id asc limit $3 offset $4::bigint)
            else array(
             select x.id from days, lateral (
               select due_date, id from tasks
                where company_id = (select $1::bigint) and done and done_on = days.day and due_date >= coalesce($6::date, '-infinity') and due_date <= coalesce($7::date, 'infinity') and ($8::task_kind is null or kind = $8::task_kind) and ((select $15::bigint)::bigint is null or assigned_to_id = (select $15::bigint)::bigint) and ((select $16::bigint)::bigint is null or flow_id = (select $16::bigint)::bigint)
              and $5::boolean is not false
                order by due_date desc, id desc limit greatest(least($3, total.n - $4::bigint), 0) + greatest(total.n - $4::bigint - $3, 0)
             ) x
             order by due_date desc, id desc limit greatest(least($3, total.n - $4::bigint), 0) offset greatest(total.n - $4::bigint - $3, 0))
       end) as page_ids(page_id)
     cross join lateral (select * from tasks where company_id = (select $1::bigint) and id = page_ids.page_id limit 1) t
     order by t.due_date, t.id
  ) p on true;

-- tasks.pageOfAssignee (replica: src/db/replica.ts)
with total as materialized (select case when $9::text[] is null then (select count(*) from tasks
            where company_id = (select $1::bigint) and assigned_to_id = $13 and due_date >= coalesce($6::date, '-infinity') and due_date <= coalesce($7::date, 'infinity') and ($8::task_kind is null or kind = $8::task_kind)
              and done = any(case when $5::boolean is null then '{f,t}'::boolean[] else array[$5::boolean] end))
         else (select coalesce(sum(k.value * c.sign), 0)
                 from unnest($9::text[], $10::bigint[], $11::bigint[], $12::int[]) as c(list, low, high, sign)
                 join (select company_id, list, key, slot, value from counters) k on k.company_id = (select $1::bigint) and k.list = c.list and k.key >= c.low and k.key <= c.high)
    end::bigint as n)
select total.n as total, p.*
  from total
  left join lateral (
    select t.id, t.kind, t.title, to_char(t.due_date, 'YYYY-MM-DD') as due_date, t.done, t.done_at, case when t.done then 'done' when t.due_date < $2::date then 'overdue' when t.due_date = $2::date then 'today'
          else 'future' end as status, t.assigned_to_id, t.flow_id, t.contact_id, t.created_at, t.updated_at
      from unnest(case when $4::bigint >= total.n then '{}'::bigint[]
            when $4::bigint < total.n - $4::bigint then array(
             select id from (
               (select due_date, id from tasks where company_id = (select $1::bigint) and assigned_to_id = $13 and due_date >= coalesce($6::date, '-infinity') and due_date <= coalesce($7::date, 'infinity') and ($8::task_kind is null or kind = $8::task_kind) and done = false and $5::boolean is not true
                 order by due_date asc, id asc limit $3 + $4::bigint)
               union all
               (select due_date, id from tasks where company_id = (select $1::bigint) and assigned_to_id = $13 and due_date >= coalesce($6::date, '-infinity') and due_date <= coalesce($7::date, 'infinity') and ($8::task_kind is null or kind = $8::task_kind) and done = true and $5::boolean is not false
                 order by due_date asc, id asc limit $3 + $4::bigint)
             ) s
             order by due_date asc, id asc limit $3 offset $4::bigint)
            else array(
             select id from (
               (select due_date, id from tasks where company_id = (select $1::bigint) and assigned_to_id = $13 and due_date >= coalesce($6::date, '-infinity') and due_date <= coalesce($7::date, 'infinity') and ($8::task_kind is null or kind = $8::task_kind) and done = false and $5::boolean is not true
                 order by due_date desc, id desc limit greatest(least($3, total.n - $4::bigint), 0) + greatest(total.n - $4::bigint - $3, 0))
               union all
               (select due_date, id from tasks where company_id = (select $1::bigint) and assigned_to_id = $13 and due_date >= coalesce($6::date, '-infinity') and due_date <= coalesce($7::date, 'infinity') and ($8::task_kind is null or kind = $8::task_kind) and done = true and $5::boolean is not false
                 order by due_date desc, id desc limit greatest(least($3, total.n - $4::bigint), 0) + greatest(total.n - $4::bigint - $3, 0))
             ) s
             order by due_date desc, id desc limit greatest(least($3, total.n - $4::bigint), 0) offset greatest(total.n - $4::bigint - $3, 0))
       end) as page_ids(page_id)
     cross join lateral (select * from tasks where company_id = (select $1::bigint) and id = page_ids.page_id limit 1) t
     order by t.due_date, t.id
  ) p on true;

-- tasks.pageOfContact (replica: src/db/replica.ts)
with matches as materialized (
  select due_date, id from tasks
   where company_id = (select $1::bigint) and contact_id = $13 and due_date >= coalesce($6::date, '-infinity') and due_date <= coalesce($7::date, 'infinity') and ($8::task_kind is null or kind = $8::task_kind)
     and ($5::boolean is null or done = $5::boolean)
     and ($14::bigint is null or assigned_to_id = $14::bigint) and ($15::bigint is null or flow_id = $15::bigint)
     and ($16::date is null or done_on >= $16::date) and ($17::date is null or done_on <= $17::date)
),
total as materialized (select case when $9::text[] is null then (select count(*) from matches)
         else (select coalesce(sum(k.value * c.sign), 0)
                 from unnest($9::text[], $10::bigint[], $11::bigint[], $12::int[]) as c(list, low, high, sign)
                 join (select company_id, list, key, slot, value from counters) k on k.company_id = (select $1::bigint) and k.list = c.list and k.key >= c.low and k.key <= c.high)
    end::bigint as n)
select total.n as total, p.*
  from total
  left join lateral (
    select t.id, t.kind, t.title, to_char(t.due_date, 'YYYY-MM-DD') as due_date, t.done, t.done_at, case when t.done then 'done' when t.due_date < $2::date then 'overdue' when t.due_date = $2::date then 'today'
          else 'future' end as status, t.assigned_to_id, t.flow_id, t.contact_id, t.created_at, t.updated_at
      from unnest(case when $4::bigint >= total.n then '{}'::bigint[]
            when $4::bigint < total.n - $4::bigint then array(select id from matches order by due_date asc, id asc limit $3 offset $4::bigint)
            else array(select id from matches order by due_date desc, id desc limit greatest(least($3, total.n - $4::bigint), 0) offset greatest(total.n - $4::bigint - $3, 0))
       end) as page_ids(page_id)
     cross join lateral (select * from tasks where company_id = (select $1::bigint) and id = page_ids.page_id limit 1) t
     order by t.due_date, t.id
  ) p on true;

-- tasks.pageOfFlow (replica: src/db/replica.ts)
with total as materialized (select case when $9::text[] is null then (select count(*) from tasks
            where company_id = (select $1::bigint) and flow_id = $13 and ($14::bigint is null or assigned_to_id = $14::bigint) and due_date >= coalesce($6::date, '-infinity') and due_date <= coalesce($7::date, 'infinity') and ($8::task_kind is null or kind = $8::task_kind)
              and done = any(case when $5::boolean is null then '{f,t}'::boolean[] else array[$5::boolean] end))
         else (select coalesce(sum(k.value * c.sign), 0)
                 from unnest($9::text[], $10::bigint[], $11::bigint[], $12::int[]) as c(list, low, high, sign)
                 join (select company_id, list, key, slot, value from counters) k on k.company_id = (select $1::bigint) and k.list = c.list and k.key >= c.low and k.key <= c.high)
    end::bigint as n)
select total.n as total, p.*
  from total
  left join lateral (
    select t.id, t.kind, t.title, to_char(t.due_date, 'YYYY-MM-DD') as due_date, t.done, t.done_at, case when t.done then 'done' when t.due_date < $2::date then 'overdue' when t.due_date = $2::date then 'today'
          else 'future' end as status, t.assigned_to_id, t.flow_id, t.contact_id, t.created_at, t.updated_at
      from unnest(case when $4::bigint >= total.n then '{}'::bigint[]
            when $4::bigint < total.n - $4::bigint then array(
             select id from (
               (select due_date, id from tasks where company_id = (select $1::bigint) and flow_id = $13 and ($14::bigint is null or assigned_to_id = $14::bigint) and due_date >= coalesce($6::date, '-infinity') and due_date <= coalesce($7::date, 'infinity') and ($8::task_kind is null or kind = $8::task_kind) and done = false and $5::boolean is not true
                 order by due_date asc, id asc limit $3 + $4::bigint)
               union all
               (select due_date, id from tasks where company_id = (select $1::bigint) and flow_id = $13 and ($14::bigint is null or assigned_to_id = $14::bigint) and due_date >= coalesce($6::date, '-infinity') and due_date <= coalesce($7::date, 'infinity') and ($8::task_kind is null or kind = $8::task_kind) and done = true and $5::boolean is not false
                 order by due_date asc, id asc limit $3 + $4::bigint)
             ) s
             order by due_date asc, id asc limit $3 offset $4::bigint)
            else array(
             select id from (
               (select due_date, id from tasks where company_id = (select $1::bigint) and flow_id = $13 and ($14::bigint is null or assigned_to_id = $14::bigint) and due_date >= coalesce($6::date, '-infinity') and due_date <= coalesce($7::date, 'infinity') and ($8::task_kind is null or kind = $8::task_kind) and done = false and $5::boolean is not true
                 order by due_date desc, id desc limit greatest(least($3, total.n - $4::bigint), 0) + greatest(total.n - $4::bigint - $3, 0))
               union all
               (select due_date, id from tasks where company_id = (select $1::bigint) and flow_id = $13 and ($14::bigint is null or assigned_to_id = $14::bigint) and due_date >= coalesce($6::date, '-infinity') and due_date <= coalesce($7::date, 'infinity') and ($8::task_kind is null or kind = $8::task_kind) and done = true and $5::boolean is not false
                 order by due_date desc, id desc limit greatest(least($3, total.n - $4::bigint), 0) + greatest(total.n - $4::bigint - $3, 0))
             ) s
             order by due_date desc, id desc limit greatest(least($3, total.n - $4::bigint), 0) offset greatest(total.n - $4::bigint - $3, 0))
       end) as page_ids(page_id)
     cross join lateral (select * from tasks where company_id = (select $1::bigint) and id = page_ids.page_id limit 1) t
     order by t.due_date, t.id
  ) p on true;

-- tasks.walk (replica: src/db/replica.ts)
select to_char((t.updated_at) at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as sync_at, t.id, t.kind, t.title, to_char(t.due_date, 'YYYY-MM-DD') as due_date, t.done, t.done_at, case when t.done then 'done' when t.due_date < $7::date then 'overdue' when t.due_date = $7::date then 'today'
            else 'future' end as status, t.assigned_to_id, t.flow_id, t.contact_id, t.created_at, t.updated_at
  from tasks t
 where t.company_id = (select $1::bigint)
   and (t.updated_at, t.id) > ($2::timestamptz, $3::bigint)
   and t.updated_at < least($4::timestamptz, $5::timestamptz)
 order by t.updated_at, t.id
 limit $6;

-- tasks.insert
with inserted as (
  insert into tasks (company_id, kind, title, due_date, assigned_to_id, flow_id, enrollment_id, contact_id,
                     created_at, updated_at)
  select $1, v.kind, v.title, v.due_date, v.assigned_to_id, v.flow_id, v.enrollment_id, v.contact_id,
         coalesce($9::timestamptz, now()), coalesce($9::timestamptz, now())
    from unnest($2::task_kind[], $3::text[], $4::date[], $5::bigint[], $6::bigint[], $7::bigint[], $8::bigint[])
           with ordinality as v(kind, title, due_date, assigned_to_id, flow_id, enrollment_id, contact_id, n)
   order by v.n
  returning id, kind, title, to_char(due_date, 'YYYY-MM-DD') as due_date, done, done_at, case when done then 'done' when due_date < $13::date then 'overdue' when due_date = $13::date then 'today'
            else 'future' end as status, assigned_to_id, flow_id, contact_id, created_at, updated_at
), counted as (
  insert into counters (company_id, list, key, value)
  select $1, d.list, d.key, d.delta
    from unnest($10::text[], $11::bigint[], $12::bigint[]) with ordinality as d(list, key, delta, n)
   order by d.n
  on conflict (company_id, list, key, slot) do update set value = counters.value + excluded.value
)
select * from inserted order by id;

-- tasks.complete
with completed as (
  update tasks set done = true, done_at = $3, done_on = $4, updated_at = $3
   where company_id = $1 and id = $2 and not done
  returning *, due_date - date '1970-01-01' as due_day, done_on - date '1970-01-01' as done_day
), event as (
  insert into contact_events (company_id, contact_id, kind, user_id, data, occurred_at)
  select $1, c.contact_id, 'task_completed', $5,
         jsonb_build_object('task_id', c.id, 'title', c.title, 'kind', c.kind, 'flow_id', c.flow_id), $3
    from completed c
), counted as (
  insert into counters (company_id, list, key, value)
  select $1, d.list, d.key, d.delta
    from completed c, lateral (values ('tasks.done', 0::bigint, 1),
              ('tasks.assignee.done', c.assigned_to_id, 1),
              ('tasks.kind.done', array_position(array['phonecall', 'email', 'linkedin', 'social', 'meeting'], c.kind::text) - 1, 1),
              ('tasks.open_due', c.due_day, -1),
              ('tasks.open_due.u' || c.assigned_to_id, c.due_day, -1),
              ('tasks.done_on', c.done_day, 1),
              ('tasks.done_on.u' || c.assigned_to_id, c.done_day, 1),
              ('tasks.open_due.k' || (array_position(array['phonecall', 'email', 'linkedin', 'social', 'meeting'], c.kind::text) - 1), c.due_day, -1),
              ('tasks.kind.done.u' || c.assigned_to_id, array_position(array['phonecall', 'email', 'linkedin', 'social', 'meeting'], c.kind::text) - 1, 1),
              ('tasks.flow.done', c.flow_id, 1),
              ('tasks.flow.done.u' || c.assigned_to_id, c.flow_id, 1)) as d(list, key, delta)
   where d.key is not null
   order by d.list collate "C", d.key
  on conflict (company_id, list, key, slot) do update set value = counters.value + excluded.value
)
select c.id, c.kind, c.title, to_char(c.due_date, 'YYYY-MM-DD') as due_date, c.done, c.done_at, 'done' as status, c.assigned_to_id, c.flow_id, c.contact_id, c.created_at, c.updated_at from completed c;

-- tasks.byId (pipelined: src/db/pipeline.ts)
select t.id, t.kind, t.title, to_char(t.due_date, 'YYYY-MM-DD') as due_date, t.done, t.done_at, case when t.done then 'done' when t.due_date < $2::date then 'overdue' when t.due_date = $2::date then 'today'
            else 'future' end as status, t.assigned_to_id, t.flow_id, t.contact_id, t.created_at, t.updated_at from tasks t where t.company_id = $1 and t.id = $3;

-- tasks.byIdAnyCompany
select company_id, id from tasks where id = $1;
