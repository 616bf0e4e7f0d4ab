-- contacts.byId
select c.id, c.user_id, c.first_name, c.last_name, c.email, c.business, c.position, c.telephone,
          c.cellphone, c.address, c.city, c.state, c.country, c.url, c.linkedin, c.variable1,
          c.variable2, c.variable3, c.carousel, c.stage, c.contact_group_id,
          coalesce((select json_agg(json_build_object('id', t.id, 'name', t.name, 'color', t.color) order by t.id)
                      from contact_tags ct
                      join tags t on t.company_id = ct.company_id and t.id = ct.tag_id
                     where ct.company_id = c.company_id and ct.contact_id = c.id), '[]') as tags,
          coalesce((select json_agg(json_build_object('field', f.field, 'value', v.value) order by f.id)
                      from contact_custom_values v
                      join custom_fields f on f.company_id = v.company_id and f.id = v.custom_field_id
                     where v.company_id = c.company_id and v.contact_id = c.id), '[]') as custom_fields,
          c.created_at, c.updated_at
     from contacts c
    where c.company_id = (select $1::bigint) and c.id = $2 and c.deleted_at is null;

-- contacts.insert
with business as (
     insert into businesses (company_id, name)
     select $1, $22::text where $22::text is not null
     on conflict (company_id, lower(name)) do update set updated_at = businesses.updated_at
     returning id
   ), c as (
     insert into contacts (company_id, user_id, first_name, last_name, email, business, position, telephone,
                           cellphone, address, city, state, country, url, linkedin, variable1, variable2,
                           variable3, carousel, stage, contact_group_id, business_id, created_at, updated_at)
     values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21,
             (select id from business), $23, $23)
     returning *
   ), tagged as (
     insert into contact_tags (company_id, contact_id, tag_id, created_at)
     select $1, c.id, tag_id, $23 from c, unnest($24::bigint[]) as tag_id
   ), valued as (
     insert into contact_custom_values (company_id, contact_id, custom_field_id, value, created_at, updated_at)
     select $1, c.id, v.field_id, v.value, $23, $23 from c, unnest($25::bigint[], $26::text[]) as v(field_id, value)
   ), event as (
     insert into contact_events (company_id, contact_id, kind, user_id, data, occurred_at)
     select $1, c.id, 'contact_created', $2, '{}', $23 from c
   ), linked as (
     update leads l set contact_id = c.id, updated_at = now()
       from c
      where l.company_id = $1 and lower(l.email) = lower($5) and l.contact_id is null
     returning l.user_id
   ), counted as (
     insert into counters (company_id, list, key, value)
     select $1, d.list, d.key, d.delta
       from (select 'contacts' as list, 0::bigint as key, 1::bigint as delta
             union all select 'contacts_by_user', $2, 1
             union all select 'leads_linked', user_id, count(*) from linked group by user_id) d
      order by d.list, d.key
     on conflict (company_id, list, key) do update set value = counters.value + excluded.value
   )
   select c.id, c.user_id, c.first_name, c.last_name, c.email, c.business, c.position, c.telephone,
          c.cellphone, c.address, c.city, c.state, c.country, c.url, c.linkedin, c.variable1,
          c.variable2, c.variable3, c.carousel, c.stage, c.contact_group_id,
          coalesce((select json_agg(json_build_object('id', t.id, 'name', t.name, 'color', t.color) order by t.id)
                      from tags t where t.company_id = $1 and t.id = any($24::bigint[])), '[]') as tags,
          coalesce((select json_agg(json_build_object('field', f.field, 'value', v.value) order by f.id)
                      from unnest($25::bigint[], $26::text[]) as v(field_id, value)
                      join custom_fields f on f.company_id = $1 and f.id = v.field_id), '[]') as custom_fields,
          c.created_at, c.updated_at
     from c;

-- contacts.page
with total as (
       select coalesce((select value from counters where company_id = $1 and list = $2 and key = $3), 0) as n
     )
     select total.n as total, p.*
       from total
       left join lateral (
         select c.id, c.user_id, c.first_name, c.last_name, c.email, c.business, c.position, c.telephone,
          c.cellphone, c.address, c.city, c.state, c.country, c.url, c.linkedin, c.variable1,
          c.variable2, c.variable3, c.carousel, c.stage, c.contact_group_id,
          coalesce((select json_agg(json_build_object('id', t.id, 'name', t.name, 'color', t.color) order by t.id)
                      from contact_tags ct
                      join tags t on t.company_id = ct.company_id and t.id = ct.tag_id
                     where ct.company_id = c.company_id and ct.contact_id = c.id), '[]') as tags,
          coalesce((select json_agg(json_build_object('field', f.field, 'value', v.value) order by f.id)
                      from contact_custom_values v
                      join custom_fields f on f.company_id = v.company_id and f.id = v.custom_field_id
                     where v.company_id = c.company_id and v.contact_id = c.id), '[]') as custom_fields,
          c.created_at, c.updated_at
           from contacts c
          where c.company_id = (select $1::bigint)
            and c.id = any(case when $5::bigint < total.n - $5::bigint
                             then array(select id from contacts where company_id = (select $1::bigint) and deleted_at is null order by id limit $4 offset $5)
                             else array(select id from contacts where company_id = (select $1::bigint) and deleted_at is null order by id desc
                                         limit greatest(least($4, total.n - $5), 0)
                                        offset greatest(total.n - $5 - $4, 0))
                           end)
            and $5 < total.n
          order by c.id
       ) p on true;

-- contacts.pageOfUser
with total as (
       select coalesce((select value from counters where company_id = $1 and list = $2 and key = $3), 0) as n
     )
     select total.n as total, p.*
       from total
       left join lateral (
         select c.id, c.user_id, c.first_name, c.last_name, c.email, c.business, c.position, c.telephone,
          c.cellphone, c.address, c.city, c.state, c.country, c.url, c.linkedin, c.variable1,
          c.variable2, c.variable3, c.carousel, c.stage, c.contact_group_id,
          coalesce((select json_agg(json_build_object('id', t.id, 'name', t.name, 'color', t.color) order by t.id)
                      from contact_tags ct
                      join tags t on t.company_id = ct.company_id and t.id = ct.tag_id
                     where ct.company_id = c.company_id and ct.contact_id = c.id), '[]') as tags,
          coalesce((select json_agg(json_build_object('field', f.field, 'value', v.value) order by f.id)
                      from contact_custom_values v
                      join custom_fields f on f.company_id = v.company_id and f.id = v.custom_field_id
                     where v.company_id = c.company_id and v.contact_id = c.id), '[]') as custom_fields,
          c.created_at, c.updated_at
           from contacts c
          where c.company_id = (select $1::bigint)
            and c.id = any(case when $5::bigint < total.n - $5::bigint
                             then array(select id from contacts where company_id = (select $1::bigint) and user_id = $6 and deleted_at is null order by id limit $4 offset $5)
                             else array(select id from contacts where company_id = (select $1::bigint) and user_id = $6 and deleted_at is null order by id desc
                                         limit greatest(least($4, total.n - $5), 0)
                                        offset greatest(total.n - $5 - $4, 0))
                           end)
            and $5 < total.n
          order by c.id
       ) p on true;

-- contacts.references
select (select coalesce(json_agg(json_build_object('id', t.id, 'name', t.name, 'color', t.color) order by t.id), '[]')
             from tags t where t.company_id = $1 and t.id = any($2::bigint[])) as tags,
          (select coalesce(json_agg(json_build_object('id', f.id, 'field', f.field, 'kind', f.kind, 'options', f.options) order by f.id), '[]')
             from custom_fields f where f.company_id = $1 and lower(f.field) = any($3::text[])) as custom_fields;

-- contacts.referencesLockingEmail
select (select coalesce(json_agg(json_build_object('id', t.id, 'name', t.name, 'color', t.color) order by t.id), '[]')
             from tags t where t.company_id = $1 and t.id = any($2::bigint[])) as tags,
          (select coalesce(json_agg(json_build_object('id', f.id, 'field', f.field, 'kind', f.kind, 'options', f.options) order by f.id), '[]')
             from custom_fields f where f.company_id = $1 and lower(f.field) = any($3::text[])) as custom_fields
     from (select pg_advisory_xact_lock(hashtextextended('lead-link:' || $1::bigint || ':' || lower($4::text), 0))) as lock;
