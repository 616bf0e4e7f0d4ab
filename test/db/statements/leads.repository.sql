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

-- leads.insert
with contact as (
  select id from contacts
   where company_id = $1 and lower(email) = lower($5) and deleted_at is null
     for share
), business as (
  insert into businesses (company_id, name, linkedin_url, sector, colaborators_count, telephone)
  select $1, $19::text, $15, $16, $17, $18 where $19::text is not null
  on conflict (company_id, lower(name)) do update set
    linkedin_url = coalesce(excluded.linkedin_url, businesses.linkedin_url),
    sector = coalesce(excluded.sector, businesses.sector),
    colaborators_count = coalesce(excluded.colaborators_count, businesses.colaborators_count),
    telephone = coalesce(excluded.telephone, businesses.telephone),
    updated_at = case when coalesce(excluded.linkedin_url, excluded.sector, excluded.colaborators_count::text, excluded.telephone) is not null
                      then now() else businesses.updated_at end
  returning id
), lead as (
  insert into leads (company_id, user_id, contact_id, first_name, last_name, email, provider, position, linkedin_url,
                     telephone, city, state_province, country, degree_of_connection, business_name,
                     business_linkedin_url, business_sector, business_colaborators_count, business_telephone, business_id)
  values ($1, $2, (select id from contact), $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18,
          (select id from business))
  returning id, user_id, contact_id, first_name, last_name, email, provider, position, linkedin_url, telephone, city, state_province, country, degree_of_connection, business_name, business_linkedin_url, business_sector, business_colaborators_count, business_telephone, created_at, updated_at
), counted as (
  insert into counters (company_id, list, key, value)
  select $1, d.list, lead.user_id, 1
    from lead, (values ('leads', true), ('leads_linked', false)) as d(list, all_leads)
   where d.all_leads or lead.contact_id is not null
   order by d.list
  on conflict (company_id, list, key, slot) do update set value = counters.value + excluded.value
  returning value
), event as (
  select e.ord, e.type, (select row_to_json(j) from (select lead.id, lead.user_id, lead.contact_id, lead.first_name, lead.last_name, lead.email, lead.provider, lead.position, lead.linkedin_url, lead.telephone, lead.city, lead.state_province, lead.country, lead.degree_of_connection, lead.business_name, lead.business_linkedin_url, lead.business_sector, lead.business_colaborators_count, lead.business_telephone, to_char(lead.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as created_at, to_char(lead.updated_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as updated_at) j) as data
    from lead, (values (1, 'lead.created'), (2, 'lead.linked')) as e(ord, type)
   where e.ord = 1 or lead.contact_id is not null
), recorded_events as (
  insert into api_event_outbox (company_id, type, data, created_at)
  select $1::bigint, e.type, e.data, now()
    from event e
   order by e.ord
  returning company_id, id, type
)
select * from lead;

-- leads.lock
select id, user_id, contact_id, first_name, last_name, email, provider, position, linkedin_url, telephone, city, state_province, country, degree_of_connection, business_name, business_linkedin_url, business_sector, business_colaborators_count, business_telephone, created_at, updated_at from leads where company_id = (select $1::bigint) and id = $2 for update;

-- leads.link
with contact as (
  select id from contacts where company_id = $1 and id = $3 and deleted_at is null for share
), lead as (
  update leads l set contact_id = contact.id, updated_at = now()
    from contact
   where l.company_id = $1 and l.id = $2
  returning l.id, l.user_id, l.contact_id, l.first_name, l.last_name, l.email, l.provider, l.position, l.linkedin_url, l.telephone, l.city, l.state_province, l.country, l.degree_of_connection, l.business_name, l.business_linkedin_url, l.business_sector, l.business_colaborators_count, l.business_telephone, l.created_at, l.updated_at
), counted as (
  insert into counters (company_id, list, key, value)
  select $1, 'leads_linked', lead.user_id, 1 from lead where $4::boolean
  on conflict (company_id, list, key, slot) do update set value = counters.value + excluded.value
  returning value
), event as (
  select 1 as ord, 'lead.linked' as type, (select row_to_json(j) from (select lead.id, lead.user_id, lead.contact_id, lead.first_name, lead.last_name, lead.email, lead.provider, lead.position, lead.linkedin_url, lead.telephone, lead.city, lead.state_province, lead.country, lead.degree_of_connection, lead.business_name, lead.business_linkedin_url, lead.business_sector, lead.business_colaborators_count, lead.business_telephone, to_char(lead.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as created_at, to_char(lead.updated_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as updated_at) j) as data from lead
), recorded_events as (
  insert into api_event_outbox (company_id, type, data, created_at)
  select $1::bigint, e.type, e.data, now()
    from event e
   order by e.ord
  returning company_id, id, type
)
select * from lead;

-- leads.ofContact (pipelined: src/db/pipeline.ts)
with linked as materialized (select id, user_id, contact_id, first_name, last_name, email, provider, position, linkedin_url, telephone, city, state_province, country, degree_of_connection, business_name, business_linkedin_url, business_sector, business_colaborators_count, business_telephone, created_at, updated_at from leads where company_id = (select $1::bigint) and contact_id = $2)
select * from linked order by id limit $3;

-- leads.firstContacts
select id, email, first_name, last_name
  from contacts where company_id = $1 and deleted_at is null order by id limit $2;
