-- Statements of src/modules/contacts/contacts.repository.ts, as run (test/db/statements.test.ts writes this file).

-- contacts.jsonById (pipelined: src/db/pipeline.ts)
select (select row_to_json(j) from (select c.id, c.user_id, c.first_name, c.last_name, c.email, c.business, c.position, c.telephone, c.cellphone, c.address, c.city, c.state, c.country, c.url, c.linkedin, c.variable1, c.variable2, c.variable3, c.carousel, c.stage, c.contact_group_id, c.tags_json as tags, c.custom_fields_json as custom_fields, to_char(c.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as created_at, to_char(c.updated_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as updated_at) j)::text as json
  from contacts c
 where c.company_id = (select $1::bigint) and c.id = $2 and c.deleted_at is null;

-- contacts.page (replica: src/db/replica.ts)
with total as materialized (
  select coalesce((select sum(value) from counters where company_id = $1 and list = $2 and key = $3), 0)::bigint as n
)
select total.n as total,
       coalesce((select array_to_json(array_agg((select j from (select c.id, c.user_id, c.first_name, c.last_name, c.email, c.business, c.position, c.telephone, c.cellphone, c.address, c.city, c.state, c.country, c.url, c.linkedin, c.variable1, c.variable2, c.variable3, c.carousel, c.stage, c.contact_group_id, c.tags_json as tags, c.custom_fields_json as custom_fields, to_char(c.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as created_at, to_char(c.updated_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as updated_at) j) order by c.id))::text
                   from unnest(case when $5::bigint < total.n - $5::bigint then array(select id from contacts where company_id = (select $1::bigint) and deleted_at is null order by id limit $4 offset $5::bigint)
            else array(select id from contacts where company_id = (select $1::bigint) and deleted_at is null order by id desc limit greatest(least($4, total.n - $5::bigint), 0) offset greatest(total.n - $5::bigint - $4, 0))
       end) as page_ids(page_id)
     cross join lateral (select * from contacts where company_id = (select $1::bigint) and id = page_ids.page_id limit 1) c
                  where $5::bigint < total.n), '[]') as data
  from total;

-- contacts.pageOfStage (replica: src/db/replica.ts)
with total as materialized (
  select coalesce((select sum(value) from counters where company_id = $1 and list = $2 and key = $3), 0)::bigint as n
)
select total.n as total,
       coalesce((select array_to_json(array_agg((select j from (select c.id, c.user_id, c.first_name, c.last_name, c.email, c.business, c.position, c.telephone, c.cellphone, c.address, c.city, c.state, c.country, c.url, c.linkedin, c.variable1, c.variable2, c.variable3, c.carousel, c.stage, c.contact_group_id, c.tags_json as tags, c.custom_fields_json as custom_fields, to_char(c.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as created_at, to_char(c.updated_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as updated_at) j) order by c.id))::text
                   from unnest(case when $5::bigint < total.n - $5::bigint then array(select id from contacts where company_id = (select $1::bigint) and stage = $6::contact_stage and deleted_at is null order by id limit $4 offset $5::bigint)
            else array(select id from contacts where company_id = (select $1::bigint) and stage = $6::contact_stage and deleted_at is null order by id desc limit greatest(least($4, total.n - $5::bigint), 0) offset greatest(total.n - $5::bigint - $4, 0))
       end) as page_ids(page_id)
     cross join lateral (select * from contacts where company_id = (select $1::bigint) and id = page_ids.page_id limit 1) c
                  where $5::bigint < total.n), '[]') as data
  from total;

-- contacts.pageOfTag (replica: src/db/replica.ts)
with total as materialized (
  select coalesce((select sum(value) from counters where company_id = $1 and list = $2 and key = $3), 0)::bigint as n
)
select total.n as total,
       coalesce((select array_to_json(array_agg((select j from (select c.id, c.user_id, c.first_name, c.last_name, c.email, c.business, c.position, c.telephone, c.cellphone, c.address, c.city, c.state, c.country, c.url, c.linkedin, c.variable1, c.variable2, c.variable3, c.carousel, c.stage, c.contact_group_id, c.tags_json as tags, c.custom_fields_json as custom_fields, to_char(c.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as created_at, to_char(c.updated_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as updated_at) j) order by c.id))::text
                   from unnest(case when $5::bigint < total.n - $5::bigint then array(select ct.contact_id from contact_tags ct
         cross join lateral (select from contacts c
                              where c.company_id = (select $1::bigint) and c.id = ct.contact_id and c.deleted_at is null
                              limit 1) live
   where ct.tag_id = $6::bigint and ct.company_id = (select $1::bigint) order by ct.contact_id limit $4 offset $5::bigint)
            else array(select ct.contact_id from contact_tags ct
         cross join lateral (select from contacts c
                              where c.company_id = (select $1::bigint) and c.id = ct.contact_id and c.deleted_at is null
                              limit 1) live
   where ct.tag_id = $6::bigint and ct.company_id = (select $1::bigint) order by ct.contact_id desc limit greatest(least($4, total.n - $5::bigint), 0) offset greatest(total.n - $5::bigint - $4, 0))
       end) as page_ids(page_id)
     cross join lateral (select * from contacts where company_id = (select $1::bigint) and id = page_ids.page_id limit 1) c
                  where $5::bigint < total.n), '[]') as data
  from total;

-- contacts.pageOfTagFiltered (replica: src/db/replica.ts)
with total as materialized (
  select (select count(*) from contact_tags ct
         cross join lateral (select from contacts c
                              where c.company_id = (select $1::bigint) and c.id = ct.contact_id and c.deleted_at is null and ($5::bigint is null or c.user_id = $5) and ($6::contact_stage is null or c.stage = $6)
                              limit 1) live
   where ct.tag_id = $4::bigint and ct.company_id = (select $1::bigint)) as n
)
select total.n as total,
       coalesce((select array_to_json(array_agg((select j from (select c.id, c.user_id, c.first_name, c.last_name, c.email, c.business, c.position, c.telephone, c.cellphone, c.address, c.city, c.state, c.country, c.url, c.linkedin, c.variable1, c.variable2, c.variable3, c.carousel, c.stage, c.contact_group_id, c.tags_json as tags, c.custom_fields_json as custom_fields, to_char(c.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as created_at, to_char(c.updated_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as updated_at) j) order by c.id))::text
                   from unnest(case when $3::bigint < total.n - $3::bigint then array(select ct.contact_id from contact_tags ct
         cross join lateral (select from contacts c
                              where c.company_id = (select $1::bigint) and c.id = ct.contact_id and c.deleted_at is null and ($5::bigint is null or c.user_id = $5) and ($6::contact_stage is null or c.stage = $6)
                              limit 1) live
   where ct.tag_id = $4::bigint and ct.company_id = (select $1::bigint) order by ct.contact_id limit $2 offset $3::bigint)
            else array(select ct.contact_id from contact_tags ct
         cross join lateral (select from contacts c
                              where c.company_id = (select $1::bigint) and c.id = ct.contact_id and c.deleted_at is null and ($5::bigint is null or c.user_id = $5) and ($6::contact_stage is null or c.stage = $6)
                              limit 1) live
   where ct.tag_id = $4::bigint and ct.company_id = (select $1::bigint) order by ct.contact_id desc limit greatest(least($2, total.n - $3::bigint), 0) offset greatest(total.n - $3::bigint - $2, 0))
       end) as page_ids(page_id)
     cross join lateral (select * from contacts where company_id = (select $1::bigint) and id = page_ids.page_id limit 1) c
                  where $3::bigint < total.n), '[]') as data
  from total;

-- contacts.pageOfUser (replica: src/db/replica.ts)
with total as materialized (
  select coalesce((select sum(value) from counters where company_id = $1 and list = $2 and key = $3), 0)::bigint as n
)
select total.n as total,
       coalesce((select array_to_json(array_agg((select j from (select c.id, c.user_id, c.first_name, c.last_name, c.email, c.business, c.position, c.telephone, c.cellphone, c.address, c.city, c.state, c.country, c.url, c.linkedin, c.variable1, c.variable2, c.variable3, c.carousel, c.stage, c.contact_group_id, c.tags_json as tags, c.custom_fields_json as custom_fields, to_char(c.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as created_at, to_char(c.updated_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as updated_at) j) order by c.id))::text
                   from unnest(case when $5::bigint < total.n - $5::bigint then array(select id from contacts where company_id = (select $1::bigint) and user_id = $6 and deleted_at is null order by id limit $4 offset $5::bigint)
            else array(select id from contacts where company_id = (select $1::bigint) and user_id = $6 and deleted_at is null order by id desc limit greatest(least($4, total.n - $5::bigint), 0) offset greatest(total.n - $5::bigint - $4, 0))
       end) as page_ids(page_id)
     cross join lateral (select * from contacts where company_id = (select $1::bigint) and id = page_ids.page_id limit 1) c
                  where $5::bigint < total.n), '[]') as data
  from total;

-- contacts.pageOfUserStage (replica: src/db/replica.ts)
with total as materialized (
  select coalesce((select sum(value) from counters where company_id = $1 and list = $2 and key = $3), 0)::bigint as n
)
select total.n as total,
       coalesce((select array_to_json(array_agg((select j from (select c.id, c.user_id, c.first_name, c.last_name, c.email, c.business, c.position, c.telephone, c.cellphone, c.address, c.city, c.state, c.country, c.url, c.linkedin, c.variable1, c.variable2, c.variable3, c.carousel, c.stage, c.contact_group_id, c.tags_json as tags, c.custom_fields_json as custom_fields, to_char(c.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as created_at, to_char(c.updated_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as updated_at) j) order by c.id))::text
                   from unnest(case when $5::bigint < total.n - $5::bigint then array(select id from contacts where company_id = (select $1::bigint) and user_id = $6 and stage = $7::contact_stage and deleted_at is null order by id limit $4 offset $5::bigint)
            else array(select id from contacts where company_id = (select $1::bigint) and user_id = $6 and stage = $7::contact_stage and deleted_at is null order by id desc limit greatest(least($4, total.n - $5::bigint), 0) offset greatest(total.n - $5::bigint - $4, 0))
       end) as page_ids(page_id)
     cross join lateral (select * from contacts where company_id = (select $1::bigint) and id = page_ids.page_id limit 1) c
                  where $5::bigint < total.n), '[]') as data
  from total;

-- contacts.search (replica: src/db/replica.ts)
with scope as materialized (
  select s.n, s.n * 6 >= (select greatest(reltuples, 0) from pg_class where oid = 'contacts'::regclass) as pass
    from (select coalesce((select sum(value) from counters where company_id = $1::bigint and list = 'contacts' and key = 0), 0)::bigint as n) s
), sample as materialized (
  select count(*) filter (where t.hit) as hits, count(*) as seen
    from (select textlike(c.search_text, (select '%' || replace(replace(replace(lower($2::text), '\', '\\'), '%', '\%'), '_', '\_') || '%')) and ($5::contact_stage is null or c.stage = $5)
         and ($6::bigint is null or exists (select from contact_tags ct where ct.company_id = $1 and ct.contact_id = c.id and ct.tag_id = $6)) as hit from contacts c
           where c.company_id = (select $1::bigint) and c.deleted_at is null order by c.id limit 2000) t
), decision as materialized (
  select not (sample.hits * 20 >= sample.seen and sample.hits * scope.n > 10000::bigint * sample.seen) as collect
    from scope, sample
), candidates as materialized (
  select m.id
    from (select c.id from contacts c
           where c.company_id = (select $1::bigint) and c.deleted_at is null and c.search_text like (select '%' || replace(replace(replace(lower($2::text), '\', '\\'), '%', '\%'), '_', '\_') || '%') and ($5::contact_stage is null or c.stage = $5)
         and ($6::bigint is null or exists (select from contact_tags ct where ct.company_id = $1 and ct.contact_id = c.id and ct.tag_id = $6))
           limit 10001) m
   where (select collect from decision) -- above the LIMIT: nothing is read when not collecting
), known as (
  select case when (select collect from decision) and count(*) <= 10000 then count(*) end as n
    from candidates
), total as materialized (
  select coalesce((select n from known), case when (select collect from decision)
       then (select count(*) from contacts c where c.company_id = (select $1::bigint) and c.deleted_at is null and c.search_text like (select '%' || replace(replace(replace(lower($2::text), '\', '\\'), '%', '\%'), '_', '\_') || '%') and ($5::contact_stage is null or c.stage = $5)
         and ($6::bigint is null or exists (select from contact_tags ct where ct.company_id = $1 and ct.contact_id = c.id and ct.tag_id = $6)))
       else case
    when (select pass from scope)
    then (select count(*) from contacts c where c.company_id + 0 = $1::bigint and c.deleted_at is null and textlike(c.search_text, (select '%' || replace(replace(replace(lower($2::text), '\', '\\'), '%', '\%'), '_', '\_') || '%')) and ($5::contact_stage is null or c.stage = $5)
         and ($6::bigint is null or exists (select from contact_tags ct where ct.company_id = $1 and ct.contact_id = c.id and ct.tag_id = $6)))
    else (select count(*) from (select from contacts c where c.company_id = (select $1::bigint) and c.deleted_at is null and textlike(c.search_text, (select '%' || replace(replace(replace(lower($2::text), '\', '\\'), '%', '\%'), '_', '\_') || '%')) and ($5::contact_stage is null or c.stage = $5)
         and ($6::bigint is null or exists (select from contact_tags ct where ct.company_id = $1 and ct.contact_id = c.id and ct.tag_id = $6))
                                 order by c.id limit (select 9223372036854775807)) m)
  end
  end) as n
), page as materialized (
  select total.n as total,
         case when (select n from known) is not null then array(select id from candidates order by id limit $3 offset $4::bigint)
            when $4::bigint >= total.n then '{}'::bigint[]
            when $4::bigint < total.n - $4::bigint then array(select c.id from contacts c where c.company_id = (select $1::bigint) and c.deleted_at is null and textlike(c.search_text, (select '%' || replace(replace(replace(lower($2::text), '\', '\\'), '%', '\%'), '_', '\_') || '%')) and ($5::contact_stage is null or c.stage = $5)
         and ($6::bigint is null or exists (select from contact_tags ct where ct.company_id = $1 and ct.contact_id = c.id and ct.tag_id = $6)) order by c.id limit $3 offset $4::bigint)
            else array(select c.id from contacts c where c.company_id = (select $1::bigint) and c.deleted_at is null and textlike(c.search_text, (select '%' || replace(replace(replace(lower($2::text), '\', '\\'), '%', '\%'), '_', '\_') || '%')) and ($5::contact_stage is null or c.stage = $5)
         and ($6::bigint is null or exists (select from contact_tags ct where ct.company_id = $1 and ct.contact_id = c.id and ct.tag_id = $6)) order by c.id desc limit greatest(least($3, total.n - $4::bigint), 0) offset greatest(total.n - $4::bigint - $3, 0))
       end as ids
    from total
)
select page.total,
       coalesce((select array_to_json(array_agg((select j from (select c.id, c.user_id, c.first_name, c.last_name, c.email, c.business, c.position, c.telephone, c.cellphone, c.address, c.city, c.state, c.country, c.url, c.linkedin, c.variable1, c.variable2, c.variable3, c.carousel, c.stage, c.contact_group_id, c.tags_json as tags, c.custom_fields_json as custom_fields, to_char(c.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as created_at, to_char(c.updated_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as updated_at) j) order by c.id))::text
                   from unnest(page.ids) as page_ids(page_id)
     cross join lateral (select * from contacts where company_id = (select $1::bigint) and id = page_ids.page_id limit 1) c), '[]') as data
  from page;

-- contacts.searchFields (replica: src/db/replica.ts)
with scope as materialized (
  select s.n, s.n * 6 >= (select greatest(reltuples, 0) from pg_class where oid = 'contacts'::regclass) as pass
    from (select coalesce((select sum(value) from counters where company_id = $1::bigint and list = 'contacts' and key = 0), 0)::bigint as n) s
), sample as materialized (
  select count(*) filter (where t.hit) as hits, count(*) as seen
    from (select textlike(c.search_text, (select '%' || replace(replace(replace(lower($2::text), '\', '\\'), '%', '\%'), '_', '\_') || '%'))
         and ((c.first_name || ' ' || coalesce(c.last_name, '')) ilike (select '%' || replace(replace(replace(lower($2::text), '\', '\\'), '%', '\%'), '_', '\_') || '%')
              or coalesce(c.business, '') ilike (select '%' || replace(replace(replace(lower($2::text), '\', '\\'), '%', '\%'), '_', '\_') || '%') or c.email ilike (select '%' || replace(replace(replace(lower($2::text), '\', '\\'), '%', '\%'), '_', '\_') || '%')) and ($5::contact_stage is null or c.stage = $5)
         and ($6::bigint is null or exists (select from contact_tags ct where ct.company_id = $1 and ct.contact_id = c.id and ct.tag_id = $6)) as hit from contacts c
           where (select pass from scope) and c.company_id = (select $1::bigint) and c.deleted_at is null order by c.id limit 2000) t
), decision as materialized (
  select scope.pass and sample.hits * scope.n <= 2500::bigint * sample.seen as collect
    from scope, sample
), candidates as materialized (
  select m.id
    from (select c.id from contacts c
           where c.company_id + 0 = $1::bigint and c.deleted_at is null and textlike(c.search_text, (select '%' || replace(replace(replace(lower($2::text), '\', '\\'), '%', '\%'), '_', '\_') || '%'))
         and ((c.first_name || ' ' || coalesce(c.last_name, '')) ilike (select '%' || replace(replace(replace(lower($2::text), '\', '\\'), '%', '\%'), '_', '\_') || '%')
              or coalesce(c.business, '') ilike (select '%' || replace(replace(replace(lower($2::text), '\', '\\'), '%', '\%'), '_', '\_') || '%') or c.email ilike (select '%' || replace(replace(replace(lower($2::text), '\', '\\'), '%', '\%'), '_', '\_') || '%')) and ($5::contact_stage is null or c.stage = $5)
         and ($6::bigint is null or exists (select from contact_tags ct where ct.company_id = $1 and ct.contact_id = c.id and ct.tag_id = $6))
           limit 10001) m
   where (select collect from decision) -- above the LIMIT: nothing is read when not collecting
), known as (
  select case when (select collect from decision) and count(*) <= 10000 then count(*) end as n
    from candidates
), total as materialized (
  select coalesce((select n from known), case
    when (select pass from scope)
    then (select count(*) from contacts c where c.company_id + 0 = $1::bigint and c.deleted_at is null and textlike(c.search_text, (select '%' || replace(replace(replace(lower($2::text), '\', '\\'), '%', '\%'), '_', '\_') || '%'))
         and ((c.first_name || ' ' || coalesce(c.last_name, '')) ilike (select '%' || replace(replace(replace(lower($2::text), '\', '\\'), '%', '\%'), '_', '\_') || '%')
              or coalesce(c.business, '') ilike (select '%' || replace(replace(replace(lower($2::text), '\', '\\'), '%', '\%'), '_', '\_') || '%') or c.email ilike (select '%' || replace(replace(replace(lower($2::text), '\', '\\'), '%', '\%'), '_', '\_') || '%')) and ($5::contact_stage is null or c.stage = $5)
         and ($6::bigint is null or exists (select from contact_tags ct where ct.company_id = $1 and ct.contact_id = c.id and ct.tag_id = $6)))
    else (select count(*) from (select from contacts c where c.company_id = (select $1::bigint) and c.deleted_at is null and textlike(c.search_text, (select '%' || replace(replace(replace(lower($2::text), '\', '\\'), '%', '\%'), '_', '\_') || '%'))
         and ((c.first_name || ' ' || coalesce(c.last_name, '')) ilike (select '%' || replace(replace(replace(lower($2::text), '\', '\\'), '%', '\%'), '_', '\_') || '%')
              or coalesce(c.business, '') ilike (select '%' || replace(replace(replace(lower($2::text), '\', '\\'), '%', '\%'), '_', '\_') || '%') or c.email ilike (select '%' || replace(replace(replace(lower($2::text), '\', '\\'), '%', '\%'), '_', '\_') || '%')) and ($5::contact_stage is null or c.stage = $5)
         and ($6::bigint is null or exists (select from contact_tags ct where ct.company_id = $1 and ct.contact_id = c.id and ct.tag_id = $6))
                                 order by c.id limit (select 9223372036854775807)) m)
  end) as n
), page as materialized (
  select total.n as total,
         case when (select n from known) is not null then array(select id from candidates order by id limit $3 offset $4::bigint)
            when $4::bigint >= total.n then '{}'::bigint[]
            when $4::bigint < total.n - $4::bigint then array(select c.id from contacts c where c.company_id = (select $1::bigint) and c.deleted_at is null and textlike(c.search_text, (select '%' || replace(replace(replace(lower($2::text), '\', '\\'), '%', '\%'), '_', '\_') || '%'))
         and ((c.first_name || ' ' || coalesce(c.last_name, '')) ilike (select '%' || replace(replace(replace(lower($2::text), '\', '\\'), '%', '\%'), '_', '\_') || '%')
              or coalesce(c.business, '') ilike (select '%' || replace(replace(replace(lower($2::text), '\', '\\'), '%', '\%'), '_', '\_') || '%') or c.email ilike (select '%' || replace(replace(replace(lower($2::text), '\', '\\'), '%', '\%'), '_', '\_') || '%')) and ($5::contact_stage is null or c.stage = $5)
         and ($6::bigint is null or exists (select from contact_tags ct where ct.company_id = $1 and ct.contact_id = c.id and ct.tag_id = $6)) order by c.id limit $3 offset $4::bigint)
            else array(select c.id from contacts c where c.company_id = (select $1::bigint) and c.deleted_at is null and textlike(c.search_text, (select '%' || replace(replace(replace(lower($2::text), '\', '\\'), '%', '\%'), '_', '\_') || '%'))
         and ((c.first_name || ' ' || coalesce(c.last_name, '')) ilike (select '%' || replace(replace(replace(lower($2::text), '\', '\\'), '%', '\%'), '_', '\_') || '%')
              or coalesce(c.business, '') ilike (select '%' || replace(replace(replace(lower($2::text), '\', '\\'), '%', '\%'), '_', '\_') || '%') or c.email ilike (select '%' || replace(replace(replace(lower($2::text), '\', '\\'), '%', '\%'), '_', '\_') || '%')) and ($5::contact_stage is null or c.stage = $5)
         and ($6::bigint is null or exists (select from contact_tags ct where ct.company_id = $1 and ct.contact_id = c.id and ct.tag_id = $6)) order by c.id desc limit greatest(least($3, total.n - $4::bigint), 0) offset greatest(total.n - $4::bigint - $3, 0))
       end as ids
    from total
)
select page.total,
       coalesce((select array_to_json(array_agg((select j from (select c.id, c.user_id, c.first_name, c.last_name, c.email, c.business, c.position, c.telephone, c.cellphone, c.address, c.city, c.state, c.country, c.url, c.linkedin, c.variable1, c.variable2, c.variable3, c.carousel, c.stage, c.contact_group_id, c.tags_json as tags, c.custom_fields_json as custom_fields, to_char(c.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as created_at, to_char(c.updated_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as updated_at) j) order by c.id))::text
                   from unnest(page.ids) as page_ids(page_id)
     cross join lateral (select * from contacts where company_id = (select $1::bigint) and id = page_ids.page_id limit 1) c), '[]') as data
  from page;

-- contacts.searchFieldsOfUser (replica: src/db/replica.ts)
with scope as materialized (
  select s.n, s.n * 6 >= (select greatest(reltuples, 0) from pg_class where oid = 'contacts'::regclass) as pass
    from (select coalesce((select sum(value) from counters where company_id = $1::bigint and list = 'contacts_by_user' and key = $7), 0)::bigint as n) s
), sample as materialized (
  select count(*) filter (where t.hit) as hits, count(*) as seen
    from (select textlike(c.search_text, (select '%' || replace(replace(replace(lower($2::text), '\', '\\'), '%', '\%'), '_', '\_') || '%'))
         and ((c.first_name || ' ' || coalesce(c.last_name, '')) ilike (select '%' || replace(replace(replace(lower($2::text), '\', '\\'), '%', '\%'), '_', '\_') || '%')
              or coalesce(c.business, '') ilike (select '%' || replace(replace(replace(lower($2::text), '\', '\\'), '%', '\%'), '_', '\_') || '%') or c.email ilike (select '%' || replace(replace(replace(lower($2::text), '\', '\\'), '%', '\%'), '_', '\_') || '%')) and ($5::contact_stage is null or c.stage = $5)
         and ($6::bigint is null or exists (select from contact_tags ct where ct.company_id = $1 and ct.contact_id = c.id and ct.tag_id = $6)) as hit from contacts c
           where (select pass from scope) and c.company_id = (select $1::bigint) and c.deleted_at is null and c.user_id = $7 order by c.id limit 2000) t
), decision as materialized (
  select scope.pass and sample.hits * scope.n <= 2500::bigint * sample.seen as collect
    from scope, sample
), candidates as materialized (
  select m.id
    from (select c.id from contacts c
           where c.company_id + 0 = $1::bigint and c.deleted_at is null and c.user_id + 0 = $7 and textlike(c.search_text, (select '%' || replace(replace(replace(lower($2::text), '\', '\\'), '%', '\%'), '_', '\_') || '%'))
         and ((c.first_name || ' ' || coalesce(c.last_name, '')) ilike (select '%' || replace(replace(replace(lower($2::text), '\', '\\'), '%', '\%'), '_', '\_') || '%')
              or coalesce(c.business, '') ilike (select '%' || replace(replace(replace(lower($2::text), '\', '\\'), '%', '\%'), '_', '\_') || '%') or c.email ilike (select '%' || replace(replace(replace(lower($2::text), '\', '\\'), '%', '\%'), '_', '\_') || '%')) and ($5::contact_stage is null or c.stage = $5)
         and ($6::bigint is null or exists (select from contact_tags ct where ct.company_id = $1 and ct.contact_id = c.id and ct.tag_id = $6))
           limit 10001) m
   where (select collect from decision) -- above the LIMIT: nothing is read when not collecting
), known as (
  select case when (select collect from decision) and count(*) <= 10000 then count(*) end as n
    from candidates
), total as materialized (
  select coalesce((select n from known), case
    when (select pass from scope)
    then (select count(*) from contacts c where c.company_id + 0 = $1::bigint and c.deleted_at is null and c.user_id + 0 = $7 and textlike(c.search_text, (select '%' || replace(replace(replace(lower($2::text), '\', '\\'), '%', '\%'), '_', '\_') || '%'))
         and ((c.first_name || ' ' || coalesce(c.last_name, '')) ilike (select '%' || replace(replace(replace(lower($2::text), '\', '\\'), '%', '\%'), '_', '\_') || '%')
              or coalesce(c.business, '') ilike (select '%' || replace(replace(replace(lower($2::text), '\', '\\'), '%', '\%'), '_', '\_') || '%') or c.email ilike (select '%' || replace(replace(replace(lower($2::text), '\', '\\'), '%', '\%'), '_', '\_') || '%')) and ($5::contact_stage is null or c.stage = $5)
         and ($6::bigint is null or exists (select from contact_tags ct where ct.company_id = $1 and ct.contact_id = c.id and ct.tag_id = $6)))
    else (select count(*) from (select from contacts c where c.company_id = (select $1::bigint) and c.deleted_at is null and c.user_id = $7 and textlike(c.search_text, (select '%' || replace(replace(replace(lower($2::text), '\', '\\'), '%', '\%'), '_', '\_') || '%'))
         and ((c.first_name || ' ' || coalesce(c.last_name, '')) ilike (select '%' || replace(replace(replace(lower($2::text), '\', '\\'), '%', '\%'), '_', '\_') || '%')
              or coalesce(c.business, '') ilike (select '%' || replace(replace(replace(lower($2::text), '\', '\\'), '%', '\%'), '_', '\_') || '%') or c.email ilike (select '%' || replace(replace(replace(lower($2::text), '\', '\\'), '%', '\%'), '_', '\_') || '%')) and ($5::contact_stage is null or c.stage = $5)
         and ($6::bigint is null or exists (select from contact_tags ct where ct.company_id = $1 and ct.contact_id = c.id and ct.tag_id = $6))
                                 order by c.id limit (select 9223372036854775807)) m)
  end) as n
), page as materialized (
  select total.n as total,
         case when (select n from known) is not null then array(select id from candidates order by id limit $3 offset $4::bigint)
            when $4::bigint >= total.n then '{}'::bigint[]
            when $4::bigint < total.n - $4::bigint then array(select c.id from contacts c where c.company_id = (select $1::bigint) and c.deleted_at is null and c.user_id = $7 and textlike(c.search_text, (select '%' || replace(replace(replace(lower($2::text), '\', '\\'), '%', '\%'), '_', '\_') || '%'))
         and ((c.first_name || ' ' || coalesce(c.last_name, '')) ilike (select '%' || replace(replace(replace(lower($2::text), '\', '\\'), '%', '\%'), '_', '\_') || '%')
              or coalesce(c.business, '') ilike (select '%' || replace(replace(replace(lower($2::text), '\', '\\'), '%', '\%'), '_', '\_') || '%') or c.email ilike (select '%' || replace(replace(replace(lower($2::text), '\', '\\'), '%', '\%'), '_', '\_') || '%')) and ($5::contact_stage is null or c.stage = $5)
         and ($6::bigint is null or exists (select from contact_tags ct where ct.company_id = $1 and ct.contact_id = c.id and ct.tag_id = $6)) order by c.id limit $3 offset $4::bigint)
            else array(select c.id from contacts c where c.company_id = (select $1::bigint) and c.deleted_at is null and c.user_id = $7 and textlike(c.search_text, (select '%' || replace(replace(replace(lower($2::text), '\', '\\'), '%', '\%'), '_', '\_') || '%'))
         and ((c.first_name || ' ' || coalesce(c.last_name, '')) ilike (select '%' || replace(replace(replace(lower($2::text), '\', '\\'), '%', '\%'), '_', '\_') || '%')
              or coalesce(c.business, '') ilike (select '%' || replace(replace(replace(lower($2::text), '\', '\\'), '%', '\%'), '_', '\_') || '%') or c.email ilike (select '%' || replace(replace(replace(lower($2::text), '\', '\\'), '%', '\%'), '_', '\_') || '%')) and ($5::contact_stage is null or c.stage = $5)
         and ($6::bigint is null or exists (select from contact_tags ct where ct.company_id = $1 and ct.contact_id = c.id and ct.tag_id = $6)) order by c.id desc limit greatest(least($3, total.n - $4::bigint), 0) offset greatest(total.n - $4::bigint - $3, 0))
       end as ids
    from total
)
select page.total,
       coalesce((select array_to_json(array_agg((select j from (select c.id, c.user_id, c.first_name, c.last_name, c.email, c.business, c.position, c.telephone, c.cellphone, c.address, c.city, c.state, c.country, c.url, c.linkedin, c.variable1, c.variable2, c.variable3, c.carousel, c.stage, c.contact_group_id, c.tags_json as tags, c.custom_fields_json as custom_fields, to_char(c.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as created_at, to_char(c.updated_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as updated_at) j) order by c.id))::text
                   from unnest(page.ids) as page_ids(page_id)
     cross join lateral (select * from contacts where company_id = (select $1::bigint) and id = page_ids.page_id limit 1) c), '[]') as data
  from page;

-- contacts.searchOfUser (replica: src/db/replica.ts)
with scope as materialized (
  select s.n, s.n * 6 >= (select greatest(reltuples, 0) from pg_class where oid = 'contacts'::regclass) as pass
    from (select coalesce((select sum(value) from counters where company_id = $1::bigint and list = 'contacts_by_user' and key = $7), 0)::bigint as n) s
), sample as materialized (
  select count(*) filter (where t.hit) as hits, count(*) as seen
    from (select textlike(c.search_text, (select '%' || replace(replace(replace(lower($2::text), '\', '\\'), '%', '\%'), '_', '\_') || '%')) and ($5::contact_stage is null or c.stage = $5)
         and ($6::bigint is null or exists (select from contact_tags ct where ct.company_id = $1 and ct.contact_id = c.id and ct.tag_id = $6)) as hit from contacts c
           where c.company_id = (select $1::bigint) and c.deleted_at is null and c.user_id = $7 order by c.id limit 2000) t
), decision as materialized (
  select not (sample.hits * 20 >= sample.seen and sample.hits * scope.n > 10000::bigint * sample.seen) as collect
    from scope, sample
), candidates as materialized (
  select m.id
    from (select c.id from contacts c
           where c.company_id = (select $1::bigint) and c.deleted_at is null and c.user_id = $7 and c.search_text like (select '%' || replace(replace(replace(lower($2::text), '\', '\\'), '%', '\%'), '_', '\_') || '%') and ($5::contact_stage is null or c.stage = $5)
         and ($6::bigint is null or exists (select from contact_tags ct where ct.company_id = $1 and ct.contact_id = c.id and ct.tag_id = $6))
           limit 10001) m
   where (select collect from decision) -- above the LIMIT: nothing is read when not collecting
), known as (
  select case when (select collect from decision) and count(*) <= 10000 then count(*) end as n
    from candidates
), total as materialized (
  select coalesce((select n from known), case when (select collect from decision)
       then (select count(*) from contacts c where c.company_id = (select $1::bigint) and c.deleted_at is null and c.user_id = $7 and c.search_text like (select '%' || replace(replace(replace(lower($2::text), '\', '\\'), '%', '\%'), '_', '\_') || '%') and ($5::contact_stage is null or c.stage = $5)
         and ($6::bigint is null or exists (select from contact_tags ct where ct.company_id = $1 and ct.contact_id = c.id and ct.tag_id = $6)))
       else case
    when (select pass from scope)
    then (select count(*) from contacts c where c.company_id + 0 = $1::bigint and c.deleted_at is null and c.user_id + 0 = $7 and textlike(c.search_text, (select '%' || replace(replace(replace(lower($2::text), '\', '\\'), '%', '\%'), '_', '\_') || '%')) and ($5::contact_stage is null or c.stage = $5)
         and ($6::bigint is null or exists (select from contact_tags ct where ct.company_id = $1 and ct.contact_id = c.id and ct.tag_id = $6)))
    else (select count(*) from (select from contacts c where c.company_id = (select $1::bigint) and c.deleted_at is null and c.user_id = $7 and textlike(c.search_text, (select '%' || replace(replace(replace(lower($2::text), '\', '\\'), '%', '\%'), '_', '\_') || '%')) and ($5::contact_stage is null or c.stage = $5)
         and ($6::bigint is null or exists (select from contact_tags ct where ct.company_id = $1 and ct.contact_id = c.id and ct.tag_id = $6))
                                 order by c.id limit (select 9223372036854775807)) m)
  end
  end) as n
), page as materialized (
  select total.n as total,
         case when (select n from known) is not null then array(select id from candidates order by id limit $3 offset $4::bigint)
            when $4::bigint >= total.n then '{}'::bigint[]
            when $4::bigint < total.n - $4::bigint then array(select c.id from contacts c where c.company_id = (select $1::bigint) and c.deleted_at is null and c.user_id = $7 and textlike(c.search_text, (select '%' || replace(replace(replace(lower($2::text), '\', '\\'), '%', '\%'), '_', '\_') || '%')) and ($5::contact_stage is null or c.stage = $5)
         and ($6::bigint is null or exists (select from contact_tags ct where ct.company_id = $1 and ct.contact_id = c.id and ct.tag_id = $6)) order by c.id limit $3 offset $4::bigint)
            else array(select c.id from contacts c where c.company_id = (select $1::bigint) and c.deleted_at is null and c.user_id = $7 and textlike(c.search_text, (select '%' || replace(replace(replace(lower($2::text), '\', '\\'), '%', '\%'), '_', '\_') || '%')) and ($5::contact_stage is null or c.stage = $5)
         and ($6::bigint is null or exists (select from contact_tags ct where ct.company_id = $1 and ct.contact_id = c.id and ct.tag_id = $6)) order by c.id desc limit greatest(least($3, total.n - $4::bigint), 0) offset greatest(total.n - $4::bigint - $3, 0))
       end as ids
    from total
)
select page.total,
       coalesce((select array_to_json(array_agg((select j from (select c.id, c.user_id, c.first_name, c.last_name, c.email, c.business, c.position, c.telephone, c.cellphone, c.address, c.city, c.state, c.country, c.url, c.linkedin, c.variable1, c.variable2, c.variable3, c.carousel, c.stage, c.contact_group_id, c.tags_json as tags, c.custom_fields_json as custom_fields, to_char(c.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as created_at, to_char(c.updated_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as updated_at) j) order by c.id))::text
                   from unnest(page.ids) as page_ids(page_id)
     cross join lateral (select * from contacts where company_id = (select $1::bigint) and id = page_ids.page_id limit 1) c), '[]') as data
  from page;

-- contacts.searchShort (replica: src/db/replica.ts)
with scope as materialized (
  select s.n, s.n * 6 >= (select greatest(reltuples, 0) from pg_class where oid = 'contacts'::regclass) as pass
    from (select coalesce((select sum(value) from counters where company_id = $1::bigint and list = 'contacts' and key = 0), 0)::bigint as n) s
), sample as materialized (
  select count(*) filter (where t.hit) as hits, count(*) as seen
    from (select textlike(c.search_text, (select '%' || replace(replace(replace(lower($2::text), '\', '\\'), '%', '\%'), '_', '\_') || '%')) and ($5::contact_stage is null or c.stage = $5)
         and ($6::bigint is null or exists (select from contact_tags ct where ct.company_id = $1 and ct.contact_id = c.id and ct.tag_id = $6)) as hit from contacts c
           where (select pass from scope) and c.company_id = (select $1::bigint) and c.deleted_at is null order by c.id limit 2000) t
), decision as materialized (
  select scope.pass and sample.hits * scope.n <= 2500::bigint * sample.seen as collect
    from scope, sample
), candidates as materialized (
  select m.id
    from (select c.id from contacts c
           where c.company_id + 0 = $1::bigint and c.deleted_at is null and textlike(c.search_text, (select '%' || replace(replace(replace(lower($2::text), '\', '\\'), '%', '\%'), '_', '\_') || '%')) and ($5::contact_stage is null or c.stage = $5)
         and ($6::bigint is null or exists (select from contact_tags ct where ct.company_id = $1 and ct.contact_id = c.id and ct.tag_id = $6))
           limit 10001) m
   where (select collect from decision) -- above the LIMIT: nothing is read when not collecting
), known as (
  select case when (select collect from decision) and count(*) <= 10000 then count(*) end as n
    from candidates
), total as materialized (
  select coalesce((select n from known), case
    when (select pass from scope)
    then (select count(*) from contacts c where c.company_id + 0 = $1::bigint and c.deleted_at is null and textlike(c.search_text, (select '%' || replace(replace(replace(lower($2::text), '\', '\\'), '%', '\%'), '_', '\_') || '%')) and ($5::contact_stage is null or c.stage = $5)
         and ($6::bigint is null or exists (select from contact_tags ct where ct.company_id = $1 and ct.contact_id = c.id and ct.tag_id = $6)))
    else (select count(*) from (select from contacts c where c.company_id = (select $1::bigint) and c.deleted_at is null and textlike(c.search_text, (select '%' || replace(replace(replace(lower($2::text), '\', '\\'), '%', '\%'), '_', '\_') || '%')) and ($5::contact_stage is null or c.stage = $5)
         and ($6::bigint is null or exists (select from contact_tags ct where ct.company_id = $1 and ct.contact_id = c.id and ct.tag_id = $6))
                                 order by c.id limit (select 9223372036854775807)) m)
  end) as n
), page as materialized (
  select total.n as total,
         case when (select n from known) is not null then array(select id from candidates order by id limit $3 offset $4::bigint)
            when $4::bigint >= total.n then '{}'::bigint[]
            when $4::bigint < total.n - $4::bigint then array(select c.id from contacts c where c.company_id = (select $1::bigint) and c.deleted_at is null and textlike(c.search_text, (select '%' || replace(replace(replace(lower($2::text), '\', '\\'), '%', '\%'), '_', '\_') || '%')) and ($5::contact_stage is null or c.stage = $5)
         and ($6::bigint is null or exists (select from contact_tags ct where ct.company_id = $1 and ct.contact_id = c.id and ct.tag_id = $6)) order by c.id limit $3 offset $4::bigint)
            else array(select c.id from contacts c where c.company_id = (select $1::bigint) and c.deleted_at is null and textlike(c.search_text, (select '%' || replace(replace(replace(lower($2::text), '\', '\\'), '%', '\%'), '_', '\_') || '%')) and ($5::contact_stage is null or c.stage = $5)
         and ($6::bigint is null or exists (select from contact_tags ct where ct.company_id = $1 and ct.contact_id = c.id and ct.tag_id = $6)) order by c.id desc limit greatest(least($3, total.n - $4::bigint), 0) offset greatest(total.n - $4::bigint - $3, 0))
       end as ids
    from total
)
select page.total,
       coalesce((select array_to_json(array_agg((select j from (select c.id, c.user_id, c.first_name, c.last_name, c.email, c.business, c.position, c.telephone, c.cellphone, c.address, c.city, c.state, c.country, c.url, c.linkedin, c.variable1, c.variable2, c.variable3, c.carousel, c.stage, c.contact_group_id, c.tags_json as tags, c.custom_fields_json as custom_fields, to_char(c.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as created_at, to_char(c.updated_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as updated_at) j) order by c.id))::text
                   from unnest(page.ids) as page_ids(page_id)
     cross join lateral (select * from contacts where company_id = (select $1::bigint) and id = page_ids.page_id limit 1) c), '[]') as data
  from page;

-- contacts.searchShortOfUser (replica: src/db/replica.ts)
with scope as materialized (
  select s.n, s.n * 6 >= (select greatest(reltuples, 0) from pg_class where oid = 'contacts'::regclass) as pass
    from (select coalesce((select sum(value) from counters where company_id = $1::bigint and list = 'contacts_by_user' and key = $7), 0)::bigint as n) s
), sample as materialized (
  select count(*) filter (where t.hit) as hits, count(*) as seen
    from (select textlike(c.search_text, (select '%' || replace(replace(replace(lower($2::text), '\', '\\'), '%', '\%'), '_', '\_') || '%')) and ($5::contact_stage is null or c.stage = $5)
         and ($6::bigint is null or exists (select from contact_tags ct where ct.company_id = $1 and ct.contact_id = c.id and ct.tag_id = $6)) as hit from contacts c
           where (select pass from scope) and c.company_id = (select $1::bigint) and c.deleted_at is null and c.user_id = $7 order by c.id limit 2000) t
), decision as materialized (
  select scope.pass and sample.hits * scope.n <= 2500::bigint * sample.seen as collect
    from scope, sample
), candidates as materialized (
  select m.id
    from (select c.id from contacts c
           where c.company_id + 0 = $1::bigint and c.deleted_at is null and c.user_id + 0 = $7 and textlike(c.search_text, (select '%' || replace(replace(replace(lower($2::text), '\', '\\'), '%', '\%'), '_', '\_') || '%')) and ($5::contact_stage is null or c.stage = $5)
         and ($6::bigint is null or exists (select from contact_tags ct where ct.company_id = $1 and ct.contact_id = c.id and ct.tag_id = $6))
           limit 10001) m
   where (select collect from decision) -- above the LIMIT: nothing is read when not collecting
), known as (
  select case when (select collect from decision) and count(*) <= 10000 then count(*) end as n
    from candidates
), total as materialized (
  select coalesce((select n from known), case
    when (select pass from scope)
    then (select count(*) from contacts c where c.company_id + 0 = $1::bigint and c.deleted_at is null and c.user_id + 0 = $7 and textlike(c.search_text, (select '%' || replace(replace(replace(lower($2::text), '\', '\\'), '%', '\%'), '_', '\_') || '%')) and ($5::contact_stage is null or c.stage = $5)
         and ($6::bigint is null or exists (select from contact_tags ct where ct.company_id = $1 and ct.contact_id = c.id and ct.tag_id = $6)))
    else (select count(*) from (select from contacts c where c.company_id = (select $1::bigint) and c.deleted_at is null and c.user_id = $7 and textlike(c.search_text, (select '%' || replace(replace(replace(lower($2::text), '\', '\\'), '%', '\%'), '_', '\_') || '%')) and ($5::contact_stage is null or c.stage = $5)
         and ($6::bigint is null or exists (select from contact_tags ct where ct.company_id = $1 and ct.contact_id = c.id and ct.tag_id = $6))
                                 order by c.id limit (select 9223372036854775807)) m)
  end) as n
), page as materialized (
  select total.n as total,
         case when (select n from known) is not null then array(select id from candidates order by id limit $3 offset $4::bigint)
            when $4::bigint >= total.n then '{}'::bigint[]
            when $4::bigint < total.n - $4::bigint then array(select c.id from contacts c where c.company_id = (select $1::bigint) and c.deleted_at is null and c.user_id = $7 and textlike(c.search_text, (select '%' || replace(replace(replace(lower($2::text), '\', '\\'), '%', '\%'), '_', '\_') || '%')) and ($5::contact_stage is null or c.stage = $5)
         and ($6::bigint is null or exists (select from contact_tags ct where ct.company_id = $1 and ct.contact_id = c.id and ct.tag_id = $6)) order by c.id limit $3 offset $4::bigint)
            else array(select c.id from contacts c where c.company_id = (select $1::bigint) and c.deleted_at is null and c.user_id = $7 and textlike(c.search_text, (select '%' || replace(replace(replace(lower($2::text), '\', '\\'), '%', '\%'), '_', '\_') || '%')) and ($5::contact_stage is null or c.stage = $5)
         and ($6::bigint is null or exists (select from contact_tags ct where ct.company_id = $1 and ct.contact_id = c.id and ct.tag_id = $6)) order by c.id desc limit greatest(least($3, total.n - $4::bigint), 0) offset greatest(total.n - $4::bigint - $3, 0))
       end as ids
    from total
)
select page.total,
       coalesce((select array_to_json(array_agg((select j from (select c.id, c.user_id, c.first_name, c.last_name, c.email, c.business, c.position, c.telephone, c.cellphone, c.address, c.city, c.state, c.country, c.url, c.linkedin, c.variable1, c.variable2, c.variable3, c.carousel, c.stage, c.contact_group_id, c.tags_json as tags, c.custom_fields_json as custom_fields, to_char(c.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as created_at, to_char(c.updated_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as updated_at) j) order by c.id))::text
                   from unnest(page.ids) as page_ids(page_id)
     cross join lateral (select * from contacts where company_id = (select $1::bigint) and id = page_ids.page_id limit 1) c), '[]') as data
  from page;

-- contacts.searchGram (replica: src/db/replica.ts)
with term as materialized (
  select t.lowered, '%' || replace(replace(replace(t.lowered, '\', '\\'), '%', '\%'), '_', '\_') || '%' as pattern,
         'contacts.gram:' || right(t.lowered, 1) as list,
         0 + case when char_length(t.lowered) = 2 then ascii(t.lowered)::bigint else 0 end as key,
         t.lowered ~ '^[a-z0-9]{2}$' as pair
    from (select lower($2::text) as lowered) t
), total as materialized (
  select coalesce((select sum(value) from counters where company_id = $1 and list = (select list from term) and key = (select key from term)), 0)::bigint
       + (select coalesce(sum(coalesce(true and textlike(s.added, (select pattern from term)), false)::int
                              - coalesce(true and textlike(s.removed, (select pattern from term)), false)::int), 0)
            from contact_search_changes s where s.company_id = $1) as n
), scope as materialized (
  select s.n, s.n * 6 >= (select greatest(reltuples, 0) from pg_class where oid = 'contacts'::regclass) as pass
    from (select coalesce((select sum(value) from counters where company_id = $1::bigint and list = 'contacts' and key = 0), 0)::bigint as n) s
), way as materialized (
  select case
           when $4::bigint >= total.n then 'none'
           when least($4::bigint + $3, total.n - $4::bigint) * scope.n
                <= total.n * 20000 then 'walk'
           when total.n <= 10000 and (select pair from term) then 'index'
           when total.n <= 10000 and scope.pass then 'pass'
           else 'walk'
         end as way
    from total, scope
), before as materialized (
  select chr(n.key::int) as x
    from (select company_id, list, key, slot, value from counters) n
   where n.company_id = $1 and n.list = (select 'contacts.gram:' || left(lowered, 1) from term) and n.key > 0
     and (select way from way) = 'index'
   group by n.key
  having sum(n.value) > 0
  union
  select x from contact_search_changes s, unnest(string_to_array(s.added, null)) x
   where s.company_id = $1 and (select way from way) = 'index'
  union
  select E'\x1f'
), gram_patterns as materialized (
  select '%' || replace(replace(replace(b.x || t.lowered, '\', '\\'), '%', '\%'), '_', '\_') || '%' as pattern from before b, term t
  union all
  select replace(replace(replace(lowered, '\', '\\'), '%', '\%'), '_', '\_') || '%' from term where (select way from way) = 'index'
), candidates as materialized (
  select distinct c.id
    from gram_patterns
   cross join lateral (select c.id from contacts c
                        where c.company_id = (select $1::bigint) and c.deleted_at is null and c.search_text like gram_patterns.pattern
                          and textlike(c.search_text, (select pattern from term))
                        limit 10000) c
   where (select way from way) = 'index'
  union all
  select m.id
    from (select c.id from contacts c where c.company_id + 0 = $1::bigint and c.deleted_at is null and textlike(c.search_text, (select pattern from term))
           limit (select n from total)) m
   where (select way from way) = 'pass' -- above the LIMIT: nothing is read otherwise
), page as materialized (
  select total.n as total,
         case when (select way from way) in ('index', 'pass') then array(select id from candidates order by id limit $3 offset $4::bigint)
            when $4::bigint >= total.n then '{}'::bigint[]
            when $4::bigint < total.n - $4::bigint then array(select c.id from contacts c where c.company_id = (select $1::bigint) and c.deleted_at is null and textlike(c.search_text, (select pattern from term)) and pg_backend_pid() <> 0
                   order by c.id limit $3 offset $4::bigint)
            else array(select c.id from contacts c where c.company_id = (select $1::bigint) and c.deleted_at is null and textlike(c.search_text, (select pattern from term)) and pg_backend_pid() <> 0
                   order by c.id desc limit greatest(least($3, total.n - $4::bigint), 0) offset greatest(total.n - $4::bigint - $3, 0))
       end as ids
    from total
)
select page.total,
       coalesce((select array_to_json(array_agg((select j from (select c.id, c.user_id, c.first_name, c.last_name, c.email, c.business, c.position, c.telephone, c.cellphone, c.address, c.city, c.state, c.country, c.url, c.linkedin, c.variable1, c.variable2, c.variable3, c.carousel, c.stage, c.contact_group_id, c.tags_json as tags, c.custom_fields_json as custom_fields, to_char(c.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as created_at, to_char(c.updated_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as updated_at) j) order by c.id))::text
                   from unnest(page.ids) as page_ids(page_id)
     cross join lateral (select * from contacts where company_id = (select $1::bigint) and id = page_ids.page_id limit 1) c), '[]') as data
  from page;

-- contacts.searchGramAtStage (replica: src/db/replica.ts)
with term as materialized (
  select t.lowered, '%' || replace(replace(replace(t.lowered, '\', '\\'), '%', '\%'), '_', '\_') || '%' as pattern,
         'contacts.stage_gram:' || right(t.lowered, 1) as list,
         $6::bigint * 1114112 + case when char_length(t.lowered) = 2 then ascii(t.lowered)::bigint else 0 end as key,
         t.lowered ~ '^[a-z0-9]{2}$' as pair
    from (select lower($2::text) as lowered) t
), total as materialized (
  select coalesce((select sum(value) from counters where company_id = $1 and list = (select list from term) and key = (select key from term)), 0)::bigint
       + (select coalesce(sum(coalesce(s.added_stage = $6::smallint and textlike(s.added, (select pattern from term)), false)::int
                              - coalesce(s.removed_stage = $6::smallint and textlike(s.removed, (select pattern from term)), false)::int), 0)
            from contact_search_changes s where s.company_id = $1) as n
), scope as materialized (
  select s.n, s.n * 6 >= (select greatest(reltuples, 0) from pg_class where oid = 'contacts'::regclass) as pass
    from (select coalesce((select sum(value) from counters where company_id = $1::bigint and list = 'contacts_by_stage' and key = $6::bigint), 0)::bigint as n) s
), way as materialized (
  select case
           when $4::bigint >= total.n then 'none'
           when least($4::bigint + $3, total.n - $4::bigint) * scope.n
                <= total.n * 20000 then 'walk'
           when total.n <= 10000 and (select pair from term) then 'index'
           when total.n <= 10000 and scope.pass then 'pass'
           else 'walk'
         end as way
    from total, scope
), before as materialized (
  select chr(n.key::int) as x
    from (select company_id, list, key, slot, value from counters) n
   where n.company_id = $1 and n.list = (select 'contacts.gram:' || left(lowered, 1) from term) and n.key > 0
     and (select way from way) = 'index'
   group by n.key
  having sum(n.value) > 0
  union
  select x from contact_search_changes s, unnest(string_to_array(s.added, null)) x
   where s.company_id = $1 and (select way from way) = 'index'
  union
  select E'\x1f'
), gram_patterns as materialized (
  select '%' || replace(replace(replace(b.x || t.lowered, '\', '\\'), '%', '\%'), '_', '\_') || '%' as pattern from before b, term t
  union all
  select replace(replace(replace(lowered, '\', '\\'), '%', '\%'), '_', '\_') || '%' from term where (select way from way) = 'index'
), candidates as materialized (
  select distinct c.id
    from gram_patterns
   cross join lateral (select c.id from contacts c
                        where c.company_id = (select $1::bigint) and c.deleted_at is null and c.stage::text = $5::contact_stage::text and c.search_text like gram_patterns.pattern
                          and textlike(c.search_text, (select pattern from term))
                        limit 10000) c
   where (select way from way) = 'index'
  union all
  select m.id
    from (select c.id from contacts c where c.company_id + 0 = $1::bigint and c.deleted_at is null and c.stage = $5::contact_stage and textlike(c.search_text, (select pattern from term))
           limit (select n from total)) m
   where (select way from way) = 'pass' -- above the LIMIT: nothing is read otherwise
), page as materialized (
  select total.n as total,
         case when (select way from way) in ('index', 'pass') then array(select id from candidates order by id limit $3 offset $4::bigint)
            when $4::bigint >= total.n then '{}'::bigint[]
            when $4::bigint < total.n - $4::bigint then array(select c.id from contacts c where c.company_id = (select $1::bigint) and c.deleted_at is null and c.stage = $5::contact_stage and textlike(c.search_text, (select pattern from term)) and pg_backend_pid() <> 0
                   order by c.id limit $3 offset $4::bigint)
            else array(select c.id from contacts c where c.company_id = (select $1::bigint) and c.deleted_at is null and c.stage = $5::contact_stage and textlike(c.search_text, (select pattern from term)) and pg_backend_pid() <> 0
                   order by c.id desc limit greatest(least($3, total.n - $4::bigint), 0) offset greatest(total.n - $4::bigint - $3, 0))
       end as ids
    from total
)
select page.total,
       coalesce((select array_to_json(array_agg((select j from (select c.id, c.user_id, c.first_name, c.last_name, c.email, c.business, c.position, c.telephone, c.cellphone, c.address, c.city, c.state, c.country, c.url, c.linkedin, c.variable1, c.variable2, c.variable3, c.carousel, c.stage, c.contact_group_id, c.tags_json as tags, c.custom_fields_json as custom_fields, to_char(c.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as created_at, to_char(c.updated_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as updated_at) j) order by c.id))::text
                   from unnest(page.ids) as page_ids(page_id)
     cross join lateral (select * from contacts where company_id = (select $1::bigint) and id = page_ids.page_id limit 1) c), '[]') as data
  from page;

-- contacts.searchGramOfUser (replica: src/db/replica.ts)
with term as materialized (
  select t.lowered, '%' || replace(replace(replace(t.lowered, '\', '\\'), '%', '\%'), '_', '\_') || '%' as pattern,
         'contacts.user_gram:' || right(t.lowered, 1) as list,
         $5::bigint * 1114112 + case when char_length(t.lowered) = 2 then ascii(t.lowered)::bigint else 0 end as key,
         t.lowered ~ '^[a-z0-9]{2}$' as pair
    from (select lower($2::text) as lowered) t
), total as materialized (
  select coalesce((select sum(value) from counters where company_id = $1 and list = (select list from term) and key = (select key from term)), 0)::bigint
       + (select coalesce(sum(coalesce(s.added_user_id = $5::bigint and textlike(s.added, (select pattern from term)), false)::int
                              - coalesce(s.removed_user_id = $5::bigint and textlike(s.removed, (select pattern from term)), false)::int), 0)
            from contact_search_changes s where s.company_id = $1) as n
), scope as materialized (
  select s.n, s.n * 6 >= (select greatest(reltuples, 0) from pg_class where oid = 'contacts'::regclass) as pass
    from (select coalesce((select sum(value) from counters where company_id = $1::bigint and list = 'contacts_by_user' and key = $5::bigint), 0)::bigint as n) s
), way as materialized (
  select case
           when $4::bigint >= total.n then 'none'
           when least($4::bigint + $3, total.n - $4::bigint) * scope.n
                <= total.n * 20000 then 'walk'
           when total.n <= 10000 and (select pair from term) then 'index'
           when total.n <= 10000 and scope.pass then 'pass'
           else 'walk'
         end as way
    from total, scope
), before as materialized (
  select chr(n.key::int) as x
    from (select company_id, list, key, slot, value from counters) n
   where n.company_id = $1 and n.list = (select 'contacts.gram:' || left(lowered, 1) from term) and n.key > 0
     and (select way from way) = 'index'
   group by n.key
  having sum(n.value) > 0
  union
  select x from contact_search_changes s, unnest(string_to_array(s.added, null)) x
   where s.company_id = $1 and (select way from way) = 'index'
  union
  select E'\x1f'
), gram_patterns as materialized (
  select '%' || replace(replace(replace(b.x || t.lowered, '\', '\\'), '%', '\%'), '_', '\_') || '%' as pattern from before b, term t
  union all
  select replace(replace(replace(lowered, '\', '\\'), '%', '\%'), '_', '\_') || '%' from term where (select way from way) = 'index'
), candidates as materialized (
  select distinct c.id
    from gram_patterns
   cross join lateral (select c.id from contacts c
                        where c.company_id = (select $1::bigint) and c.deleted_at is null and c.user_id + 0 = $5::bigint and c.search_text like gram_patterns.pattern
                          and textlike(c.search_text, (select pattern from term))
                        limit 10000) c
   where (select way from way) = 'index'
  union all
  select m.id
    from (select c.id from contacts c where c.company_id + 0 = $1::bigint and c.deleted_at is null and c.user_id + 0 = $5::bigint and textlike(c.search_text, (select pattern from term))
           limit (select n from total)) m
   where (select way from way) = 'pass' -- above the LIMIT: nothing is read otherwise
), page as materialized (
  select total.n as total,
         case when (select way from way) in ('index', 'pass') then array(select id from candidates order by id limit $3 offset $4::bigint)
            when $4::bigint >= total.n then '{}'::bigint[]
            when $4::bigint < total.n - $4::bigint then array(select c.id from contacts c where c.company_id = (select $1::bigint) and c.deleted_at is null and c.user_id = $5::bigint and textlike(c.search_text, (select pattern from term)) and pg_backend_pid() <> 0
                   order by c.id limit $3 offset $4::bigint)
            else array(select c.id from contacts c where c.company_id = (select $1::bigint) and c.deleted_at is null and c.user_id = $5::bigint and textlike(c.search_text, (select pattern from term)) and pg_backend_pid() <> 0
                   order by c.id desc limit greatest(least($3, total.n - $4::bigint), 0) offset greatest(total.n - $4::bigint - $3, 0))
       end as ids
    from total
)
select page.total,
       coalesce((select array_to_json(array_agg((select j from (select c.id, c.user_id, c.first_name, c.last_name, c.email, c.business, c.position, c.telephone, c.cellphone, c.address, c.city, c.state, c.country, c.url, c.linkedin, c.variable1, c.variable2, c.variable3, c.carousel, c.stage, c.contact_group_id, c.tags_json as tags, c.custom_fields_json as custom_fields, to_char(c.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as created_at, to_char(c.updated_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as updated_at) j) order by c.id))::text
                   from unnest(page.ids) as page_ids(page_id)
     cross join lateral (select * from contacts where company_id = (select $1::bigint) and id = page_ids.page_id limit 1) c), '[]') as data
  from page;

-- contacts.walk (replica: src/db/replica.ts)
select to_char((c.updated_at) at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as sync_at, c.id,
       case when c.deleted_at is null then (select row_to_json(j) from (select c.id, c.user_id, c.first_name, c.last_name, c.email, c.business, c.position, c.telephone, c.cellphone, c.address, c.city, c.state, c.country, c.url, c.linkedin, c.variable1, c.variable2, c.variable3, c.carousel, c.stage, c.contact_group_id, c.tags_json as tags, c.custom_fields_json as custom_fields, to_char(c.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as created_at, to_char(c.updated_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as updated_at) j)
            else (select row_to_json(j) from (select c.id, true as deleted, to_char(c.deleted_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as deleted_at) j)
       end::text as json
  from contacts c
 where c.company_id = (select $1::bigint)
   and (c.updated_at, c.id) > ($2::timestamptz, $3::bigint)
   and c.updated_at < least($4::timestamptz, $5::timestamptz)
 order by c.updated_at, c.id
 limit $6;

-- contacts.references
select (select coalesce(json_agg(json_build_object('id', t.id, 'name', t.name, 'color', t.color) order by t.id), '[]')
from tags t where t.company_id = $1 and t.id = any($2::bigint[])) as tags,
(select coalesce(json_agg(json_build_object('id', f.id, 'field', f.field, 'kind', f.kind, 'options', f.options) order by f.id), '[]')
from custom_fields f where f.company_id = $1 and lower(f.field) = any($3::text[])) as custom_fields;

-- contacts.delete
with deleted as (
  update contacts set deleted_at = $3, updated_at = $3
   where company_id = $1 and id = $2 and deleted_at is null
  returning id, user_id
), unlinked as (
  update leads set contact_id = null, updated_at = now()
   where company_id = $1 and contact_id = $2 and exists (select from deleted)
  returning user_id
), ended as (
  update flow_enrollments set status = 'removed', updated_at = $3
   where company_id = $1 and contact_id = $2 and status = 'active' and exists (select from deleted)
  returning flow_id
), evented as (
  insert into contact_events (company_id, contact_id, kind, user_id, data, occurred_at)
  select $1, d.id, 'contact_deleted', $4, '{}', $3 from deleted d
  returning 1
), counted as (
  insert into counters (company_id, list, key, slot, value)
  select $1, x.list, x.key, counter_slot(), sum(x.delta)::bigint
    from (select 'contacts' as list, 0::bigint as key, -1 as delta from deleted
          union all select 'contacts_by_user', d.user_id, -1 from deleted d
          union all select 'leads_linked', u.user_id, -1 from unlinked u
          union all select 'flows.contacts', e.flow_id, -1 from ended e) x
   where (select count(*) from evented) >= 0
   group by x.list, x.key
   order by x.list, x.key
  on conflict (company_id, list, key, slot) do update set value = counters.value + excluded.value
  returning value
), api_event as (
  select 1::bigint as ord, 'contact.deleted'::text as type, $5::json as data from deleted
), recorded_events as (
  insert into api_event_outbox (company_id, type, data, created_at)
  select $1::bigint, e.type, e.data, $3::timestamptz
    from api_event e
   order by e.ord
  returning company_id, id, type
)
select (select count(*) from deleted)::int as deleted;

-- contacts.insertMany
insert into contacts (company_id, user_id, first_name, last_name, email, business, business_id, position,
                      telephone, cellphone, city, state, country, url, linkedin, carousel, stage,
                      created_at, updated_at)
select $1, v.user_id, v.first_name, v.last_name, v.email, v.business, v.business_id, v.position,
       v.telephone, v.cellphone, v.city, v.state, v.country, v.url, v.linkedin, v.carousel, v.stage,
       v.created_at, v.updated_at
  from rows from (json_to_recordset($2::json)
         as (user_id bigint, first_name text, last_name text, email text, business text, business_id bigint,
             position text, telephone text, cellphone text, city text, state text, country text, url text,
             linkedin text, carousel boolean, stage contact_stage, created_at timestamptz, updated_at timestamptz))
       with ordinality as v
 order by v.ordinality
returning id, user_id, first_name, created_at;

-- contacts.insertTags
insert into contact_tags (company_id, contact_id, tag_id, created_at)
select $1, p.contact_id, p.tag_id, p.created_at
  from unnest($2::bigint[], $3::bigint[], $4::timestamptz[]) as p(contact_id, tag_id, created_at);

-- contacts.insertCustomValues
insert into contact_custom_values (company_id, contact_id, custom_field_id, value, created_at, updated_at)
select $1, v.contact_id, v.custom_field_id, v.value, v.created_at, v.created_at
  from unnest($2::bigint[], $3::bigint[], $4::text[], $5::timestamptz[]) as v(contact_id, custom_field_id, value, created_at);

-- contacts.exportBatch
select c.id, c.user_id, c.first_name, c.last_name, c.email, c.business, c.position, c.telephone, c.cellphone, c.address, c.city, c.state, c.country, c.url, c.linkedin, c.variable1, c.variable2, c.variable3, c.carousel, c.stage, c.contact_group_id, c.tags_json as tags, c.custom_fields_json as custom_fields, c.created_at, c.updated_at
  from contacts c
 where c.company_id = (select $1::bigint) and c.deleted_at is null and c.id > $3::bigint
   and ($4::bigint is null or c.user_id = $4::bigint)
   and ($6::contact_stage is null or c.stage = $6)
           and ($7::bigint is null or exists (select from contact_tags ct where ct.company_id = $1 and ct.contact_id = c.id and ct.tag_id = $7))
   and ($2::text is null or (textlike(c.search_text, (select '%' || replace(replace(replace(lower($2::text), '\', '\\'), '%', '\%'), '_', '\_') || '%'))
           and ((c.first_name || ' ' || coalesce(c.last_name, '')) ilike (select '%' || replace(replace(replace(lower($2::text), '\', '\\'), '%', '\%'), '_', '\_') || '%')
                or coalesce(c.business, '') ilike (select '%' || replace(replace(replace(lower($2::text), '\', '\\'), '%', '\%'), '_', '\_') || '%') or c.email ilike (select '%' || replace(replace(replace(lower($2::text), '\', '\\'), '%', '\%'), '_', '\_') || '%'))))
 order by c.id
 limit $5;

-- contacts.foldSearchChanges
with folded as (
  delete from contact_search_changes s
   where s.company_id = $1
     and s.id in (select id from contact_search_changes where company_id = $1 order by id limit $2 for update skip locked)
  returning s.id, s.added, s.added_user_id, s.added_stage, s.removed, s.removed_user_id, s.removed_stage
), grams as (
  select distinct f.id, t.sign, t.user_id, t.stage, g.tail, g.head
    from folded f
   cross join lateral (values (f.added, 1, f.added_user_id, f.added_stage),
                              (f.removed, -1, f.removed_user_id, f.removed_stage)) t(text, sign, user_id, stage)
   cross join lateral contact_search_grams(t.text) g
   where t.text is not null
), deltas as (
  select 'contacts.gram:' || tail as list, head as key, sum(sign) as delta from grams group by tail, head
  union all
  select 'contacts.user_gram:' || tail, user_id * 1114112 + head, sum(sign) from grams group by tail, user_id, head
  union all
  select 'contacts.stage_gram:' || tail, stage * 1114112 + head, sum(sign) from grams where stage is not null group by tail, stage, head
), counted as (
  insert into counters (company_id, list, key, slot, value)
  select $1::bigint, list, key, counter_slot(), delta
    from deltas
   where delta <> 0
   order by list, key
  on conflict (company_id, list, key, slot) do update set value = counters.value + excluded.value
)
select count(*)::int as folded from folded;

-- contacts.searchChangesCompanies
with recursive pending as (
  (select company_id from contact_search_changes order by company_id limit 1)
  union all
  select (select s.company_id from contact_search_changes s where s.company_id > p.company_id order by s.company_id limit 1)
    from pending p
   where p.company_id is not null
)
select company_id from pending where company_id is not null limit $1;

-- businesses.ofContact
select b.id, b.name, b.linkedin_url, b.sector, b.colaborators_count, b.telephone, (select count(*) from contacts x
         where x.company_id = b.company_id and x.business_id = b.id and x.deleted_at is null)::int as contacts_count, b.created_at, b.updated_at
  from (select company_id, business_id from contacts
         where company_id = (select $1::bigint) and id = $2 and deleted_at is null limit 1) c
  join businesses b on b.company_id = c.company_id and b.id = c.business_id;

-- events.contactPage
with total as materialized (
  select exists (select from contacts c
                  where c.company_id = (select $1::bigint) and c.id = $2 and c.deleted_at is null) as live,
         (select count(*) from contact_events
           where company_id = (select $1::bigint) and contact_id = $2) as n
)
select total.live, total.n as total, p.*
  from total
  left join lateral (
    select e.id, e.contact_id, e.kind, e.user_id, e.data, e.occurred_at,
           e.occurred_at as created_at, e.occurred_at as updated_at
      from unnest(case when $4::bigint < total.n - $4::bigint then array(select id from contact_events
                                    where company_id = (select $1::bigint) and contact_id = $2
                                    order by id desc limit $3 offset $4::bigint)
              else array(select id from contact_events
                                    where company_id = (select $1::bigint) and contact_id = $2
                                    order by id limit greatest(least($3, total.n - $4::bigint), 0) offset greatest(total.n - $4::bigint - $3, 0))
         end) as page_ids(page_id)
       cross join lateral (select * from contact_events where company_id = (select $1::bigint) and id = page_ids.page_id limit 1) e
     where $4::bigint < total.n
       and total.live
     order by e.id desc
  ) p on true;

-- tags.delete
with gone as (
  delete from tags where company_id = $1 and id = $2 returning id, name
), event as (
  select 1 as ord, 'tag.deleted' as type, json_build_object('id', gone.id, 'deleted_at', to_char($4::timestamptz at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')) as data
    from gone
), recorded_events as (
  insert into api_event_outbox (company_id, type, data, created_at)
  select $1::bigint, e.type, e.data, $4::timestamptz
    from event e
   order by e.ord
  returning company_id, id, type
)
insert into contact_events (company_id, contact_id, kind, user_id, data, occurred_at)
select ct.company_id, ct.contact_id, 'tag_removed', $3,
       jsonb_build_object('tag_id', gone.id, 'name', gone.name, 'reason', 'tag_deleted'), $4
  from gone
  join contact_tags ct on ct.company_id = $1 and ct.tag_id = gone.id
  join contacts c on c.company_id = ct.company_id and c.id = ct.contact_id
 where c.deleted_at is null
 order by ct.contact_id;

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

-- leads.firstContacts
select id, email, first_name, last_name
  from contacts where company_id = $1 and deleted_at is null order by id limit $2;

-- tasks.lockLiveContact
select id, company_id, user_id, first_name, last_name from contacts where company_id = $1 and id = $2 and deleted_at is null for share;

-- tasks.liveContactAnyCompany
select id, company_id, user_id, first_name, last_name from contacts where id = $1 and deleted_at is null;

-- tasks.firstLiveContacts
select id, company_id, user_id, first_name, last_name from contacts where company_id = $1 and deleted_at is null order by id limit $2;
