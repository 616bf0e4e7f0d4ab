-- users.anyCompany
select exists (select 1 from companies) as any;

-- users.authorizationJson (pipelined: src/db/pipeline.ts)
select row_to_json(a)::text as json
     from (select (select row_to_json(j) from (select u.id, u.name, u.email, u.role, u.active, to_char(u.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as created_at,
                           to_char(u.updated_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as updated_at) j) as "user",
                  (select row_to_json(j) from (select c.id, c.name, c.timezone) j) as company
             from users u join companies c on c.id = u.company_id
            where u.company_id = $1 and u.id = $2) a;

-- users.companies
select c.id, c.name, c.timezone,
          (select count(*)::int from users u where u.company_id = c.id) as users_count,
          c.created_at, c.updated_at
     from companies c
    order by c.id;

-- users.ofCompany
select id, name, email, role, active, created_at, updated_at from users where company_id = $1 order by id;

-- users.page (pipelined: src/db/pipeline.ts)
select (select count(*)::int from users where company_id = $1) as total,
          coalesce((select array_to_json(array_agg((select j from (select u.id, u.name, u.email, u.role, u.active, to_char(u.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as created_at,
                           to_char(u.updated_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as updated_at) j) order by u.id))::text
                      from (select * from users where company_id = $1 order by id limit $2 offset $3::bigint) u), '[]') as data;
