-- users.anyCompany
select exists (select 1 from companies) as any;

-- users.companies
select c.id, c.name, c.timezone,
          (select count(*)::int from users u where u.company_id = c.id) as users_count,
          c.created_at, c.updated_at
     from companies c
    order by c.id;

-- users.ofCompany
select id, name, email, role, active, created_at, updated_at from users where company_id = $1 order by id;

-- users.page
select t.total, u.*
     from (select count(*)::int as total from users where company_id = $1) t
     left join lateral (
       select id, name, email, role, active, created_at, updated_at from users where company_id = $1 order by id limit $2 offset $3
     ) u on true;

-- users.withCompany
select u.id, u.name, u.email, u.role, u.active, u.created_at, u.updated_at, c.name as company_name, c.timezone
     from users u join companies c on c.id = u.company_id
    where u.company_id = $1 and u.id = $2;
