-- Statements of src/modules/custom-fields/custom-fields.repository.ts, as run (test/db/statements.test.ts writes this file).

-- customFields.list (pipelined: src/db/pipeline.ts)
select id, field, kind, options, created_at, updated_at from custom_fields where company_id = $1 order by id;

-- customFields.exists
select id from custom_fields where company_id = $1 and id = $2;

-- customFields.insert
with f as (
insert into custom_fields (company_id, field, kind, options, created_at, updated_at)
values ($1, $2, $3, $4::jsonb, $5, $5)
returning id, field, kind, options, created_at, updated_at
), event as (
select 1 as ord, 'custom_field.created' as type, (select row_to_json(j) from (select f.id, f.field, f.kind, f.options, to_char(f.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as created_at, to_char(f.updated_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as updated_at) j) as data from f
), recorded_events as (
insert into api_event_outbox (company_id, type, data, created_at)
select $1::bigint, e.type, e.data, $5::timestamptz
  from event e
 order by e.ord
returning company_id, id, type
)
select id, field, kind, options, created_at, updated_at from f;

-- customFields.insertMany
insert into custom_fields (company_id, field, kind, options, created_at, updated_at)
select $1, v.field, v.kind, v.options, v.now, v.now
  from rows from (json_to_recordset($2::json)
         as (field text, kind custom_field_kind, options jsonb, now timestamptz))
       with ordinality as v
 order by v.ordinality
returning id, field;

-- customFields.update
with f as (
update custom_fields
   set field = $3, kind = $4, options = coalesce($5::jsonb, options), updated_at = $6
 where company_id = $1 and id = $2
   and ($5::jsonb is not null or $4::custom_field_kind <> 'dropdown' or jsonb_array_length(options) > 0)
returning id, field, kind, options, created_at, updated_at
), event as (
select 1 as ord, 'custom_field.updated' as type, (select row_to_json(j) from (select f.id, f.field, f.kind, f.options, to_char(f.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as created_at, to_char(f.updated_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as updated_at) j) as data from f
), recorded_events as (
insert into api_event_outbox (company_id, type, data, created_at)
select $1::bigint, e.type, e.data, $6::timestamptz
  from event e
 order by e.ord
returning company_id, id, type
)
select id, field, kind, options, created_at, updated_at from f;

-- customFields.delete
with gone as (
  delete from custom_fields where company_id = $1 and id = $2 returning id
), event as (
  select 1 as ord, 'custom_field.deleted' as type,
         json_build_object('id', gone.id, 'deleted_at', to_char($3::timestamptz at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')) as data
    from gone
), recorded_events as (
  insert into api_event_outbox (company_id, type, data, created_at)
  select $1::bigint, e.type, e.data, $3::timestamptz
    from event e
   order by e.ord
  returning company_id, id, type
)
select id from gone;
