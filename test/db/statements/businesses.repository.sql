-- Statements of src/modules/businesses/businesses.repository.ts, as run (test/db/statements.test.ts writes this file).

-- businesses.upsert
insert into businesses (company_id, name, linkedin_url, sector, colaborators_count, telephone)
values ($1, $2, $3, $4, $5, $6)
on conflict (company_id, lower(name)) do update set
  linkedin_url = coalesce(excluded.linkedin_url, businesses.linkedin_url),
  sector = coalesce(excluded.sector, businesses.sector),
  colaborators_count = coalesce(excluded.colaborators_count, businesses.colaborators_count),
  telephone = coalesce(excluded.telephone, businesses.telephone),
  updated_at = case
    when coalesce(excluded.linkedin_url, excluded.sector, excluded.colaborators_count::text, excluded.telephone) is not null
    then now() else businesses.updated_at end
returning id;

-- businesses.insertMany
insert into businesses (company_id, name, linkedin_url, sector, colaborators_count, telephone, created_at, updated_at)
select $1, v.name, v."linkedinUrl", v.sector, v."colaboratorsCount", v.telephone, v."createdAt", v."createdAt"
  from rows from (json_to_recordset($2::json)
         as (name text, "linkedinUrl" text, sector text, "colaboratorsCount" integer, telephone text,
             "createdAt" timestamptz))
       with ordinality as v
 order by v.ordinality
returning id, name;
