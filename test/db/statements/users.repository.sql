-- Statements of src/modules/users/users.repository.ts, as run (test/db/statements.test.ts writes this file).

-- users.page (pipelined: src/db/pipeline.ts)
select (select count(*)::int from users where company_id = $1) as total,
       coalesce((select array_to_json(array_agg((select j from (select u.id, u.name, u.email, u.role, u.active, to_char(u.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as created_at, to_char(u.updated_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as updated_at) j) order by u.id))::text
                   from (select * from users where company_id = $1 order by id limit $2 offset $3::bigint) u), '[]') as data;

-- users.authorizationJson (pipelined: src/db/pipeline.ts)
select row_to_json(a)::text as json
  from (select (select row_to_json(j) from (select u.id, u.name, u.email, u.role, u.active, to_char(u.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as created_at, to_char(u.updated_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as updated_at) j) as "user",
               (select row_to_json(j) from (select c.id, c.name, c.timezone) j) as company
          from users u join companies c on c.id = u.company_id
         where u.company_id = $1 and u.id = $2) a;

-- users.ofCompany
select id, name, email, role, active, created_at, updated_at from users where company_id = $1 order by id;

-- users.companies
select c.id, c.name, c.timezone, (select count(*)::int from users u where u.company_id = c.id) as users_count, c.created_at, c.updated_at
  from companies c
 order by c.id;

-- users.anyCompany
select exists (select 1 from companies) as any;

-- users.byId
select id, name, email, role, active, created_at, updated_at from users where company_id = $1 and id = $2;

-- users.byIdAnyCompany
select company_id, id, name, email, role, active, created_at, updated_at from users where id = $1;

-- users.insert
insert into users (company_id, name, email, role)
values ($1, $2, $3, $4)
returning id, name, email, role, active, created_at, updated_at;

-- users.company
select id, name, timezone, created_at, updated_at from companies where id = $1;

-- users.insertCompany
insert into companies (name, timezone) values ($1, $2) returning id, name, timezone, created_at, updated_at;

-- users.byIdForUpdate
select company_id, id, name, email, role, active, created_at, updated_at from users where id = $1 for update;

-- users.setRole
update users set role = $3, updated_at = $4 where company_id = $1 and id = $2 returning id, name, email, role, active, created_at, updated_at;

-- users.companyForUpdate
select id, name, timezone, created_at, updated_at from companies where id = $1 for update;

-- users.setCompanyTimezone
update companies set timezone = $2, updated_at = $3 where id = $1 returning id, name, timezone, created_at, updated_at;
