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
