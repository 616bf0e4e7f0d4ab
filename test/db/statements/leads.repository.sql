-- Statements of src/modules/leads/leads.repository.ts, as run (test/db/statements.test.ts writes this file).

-- leads.byId (pipelined: src/db/pipeline.ts)
select id, user_id, contact_id, first_name, last_name, email, provider, position, linkedin_url, telephone, city, state_province, country, degree_of_connection, business_name, business_linkedin_url, business_sector, business_colaborators_count, business_telephone, created_at, updated_at from leads where company_id = (select $1::bigint) and id = $2;

-- leads.count (replica: src/db/replica.ts)
select (select coalesce(sum(k.value * case k.list when 'leads' then 1 else 0 end), 0)::bigint
from (select company_id, list, key, slot, value from counters) k
where k.company_id = (select $1::bigint) and k.list in ('leads', 'leads_linked') and k.key = $2) as count;

-- leads.countLinked (replica: src/db/replica.ts)
select (select coalesce(sum(k.value * case k.list when 'leads' then 0 else 1 end), 0)::bigint
from (select company_id, list, key, slot, value from counters) k
where k.company_id = (select $1::bigint) and k.list in ('leads', 'leads_linked') and k.key = $2) as count;

-- leads.countUnlinked (replica: src/db/replica.ts)
select (select coalesce(sum(k.value * case k.list when 'leads' then 1 else -1 end), 0)::bigint
from (select company_id, list, key, slot, value from counters) k
where k.company_id = (select $1::bigint) and k.list in ('leads', 'leads_linked') and k.key = $2) as count;

-- leads.page
with total as materialized (select (select coalesce(sum(k.value * case k.list when 'leads' then 1 else 0 end), 0)::bigint
        from (select company_id, list, key, slot, value from counters) k
       where k.company_id = (select $1::bigint) and k.list in ('leads', 'leads_linked') and k.key = $2) as n)
select total.n as total, p.*
  from total
  left join lateral (
    select id, user_id, contact_id, first_name, last_name, email, provider, position, linkedin_url, telephone, city, state_province, country, degree_of_connection, business_name, business_linkedin_url, business_sector, business_colaborators_count, business_telephone, created_at, updated_at
      from unnest(case when $4::bigint >= total.n then '{}'::bigint[]
            when $4::bigint < total.n - $4::bigint then array(select id from leads where company_id = (select $1::bigint) and user_id = $2 order by id limit $3 offset $4::bigint)
            else array(select id from leads where company_id = (select $1::bigint) and user_id = $2 order by id desc limit greatest(least($3, total.n - $4::bigint), 0) offset greatest(total.n - $4::bigint - $3, 0))
       end) as page_ids(page_id)
     cross join lateral (select * from leads where company_id = (select $1::bigint) and id = page_ids.page_id limit 1) leads
     order by id
  ) p on true;

-- leads.pageLinked
with total as materialized (select (select coalesce(sum(k.value * case k.list when 'leads' then 0 else 1 end), 0)::bigint
        from (select company_id, list, key, slot, value from counters) k
       where k.company_id = (select $1::bigint) and k.list in ('leads', 'leads_linked') and k.key = $2) as n)
select total.n as total, p.*
  from total
  left join lateral (
    select id, user_id, contact_id, first_name, last_name, email, provider, position, linkedin_url, telephone, city, state_province, country, degree_of_connection, business_name, business_linkedin_url, business_sector, business_colaborators_count, business_telephone, created_at, updated_at
      from unnest(case when $4::bigint >= total.n then '{}'::bigint[]
            when $4::bigint < total.n - $4::bigint then array(select id from leads where company_id = (select $1::bigint) and user_id = $2 and (contact_id is not null) = true order by id limit $3 offset $4::bigint)
            else array(select id from leads where company_id = (select $1::bigint) and user_id = $2 and (contact_id is not null) = true order by id desc limit greatest(least($3, total.n - $4::bigint), 0) offset greatest(total.n - $4::bigint - $3, 0))
       end) as page_ids(page_id)
     cross join lateral (select * from leads where company_id = (select $1::bigint) and id = page_ids.page_id limit 1) leads
     order by id
  ) p on true;

-- leads.pageUnlinked
with total as materialized (select (select coalesce(sum(k.value * case k.list when 'leads' then 1 else -1 end), 0)::bigint
        from (select company_id, list, key, slot, value from counters) k
       where k.company_id = (select $1::bigint) and k.list in ('leads', 'leads_linked') and k.key = $2) as n)
select total.n as total, p.*
  from total
  left join lateral (
    select id, user_id, contact_id, first_name, last_name, email, provider, position, linkedin_url, telephone, city, state_province, country, degree_of_connection, business_name, business_linkedin_url, business_sector, business_colaborators_count, business_telephone, created_at, updated_at
      from unnest(case when $4::bigint >= total.n then '{}'::bigint[]
            when $4::bigint < total.n - $4::bigint then array(select id from leads where company_id = (select $1::bigint) and user_id = $2 and (contact_id is not null) is false order by id limit $3 offset $4::bigint)
            else array(select id from leads where company_id = (select $1::bigint) and user_id = $2 and (contact_id is not null) is false order by id desc limit greatest(least($3, total.n - $4::bigint), 0) offset greatest(total.n - $4::bigint - $3, 0))
       end) as page_ids(page_id)
     cross join lateral (select * from leads where company_id = (select $1::bigint) and id = page_ids.page_id limit 1) leads
     order by id
  ) p on true;

-- leads.walk (replica: src/db/replica.ts)
select to_char((updated_at) at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as sync_at, id, user_id, contact_id, first_name, last_name, email, provider, position, linkedin_url, telephone, city, state_province, country, degree_of_connection, business_name, business_linkedin_url, business_sector, business_colaborators_count, business_telephone, created_at, updated_at
  from leads
 where company_id = (select $1::bigint)
   and (updated_at, id) > ($2::timestamptz, $3::bigint)
   and updated_at < least($4::timestamptz, $5::timestamptz)
 order by updated_at, id
 limit $6;

-- leads.lock
select id, user_id, contact_id, first_name, last_name, email, provider, position, linkedin_url, telephone, city, state_province, country, degree_of_connection, business_name, business_linkedin_url, business_sector, business_colaborators_count, business_telephone, created_at, updated_at from leads where company_id = (select $1::bigint) and id = $2 for update;

-- leads.ofContact (pipelined: src/db/pipeline.ts)
with linked as materialized (select id, user_id, contact_id, first_name, last_name, email, provider, position, linkedin_url, telephone, city, state_province, country, degree_of_connection, business_name, business_linkedin_url, business_sector, business_colaborators_count, business_telephone, created_at, updated_at from leads where company_id = (select $1::bigint) and contact_id = $2)
select * from linked order by id limit $3;
