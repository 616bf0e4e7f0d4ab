-- Statements of src/modules/outbox/outbox.ts, as run (test/db/statements.test.ts writes this file).

-- outbox.record
with input as (
  select e.ord, e.type, e.data::json as data
  from unnest($2::text[], $3::text[]) with ordinality as e(type, data, ord)
), recorded_events as (
  insert into api_event_outbox (company_id, type, data, created_at)
  select $1::bigint, e.type, e.data, $4::timestamptz
    from input e
   order by e.ord
  returning company_id, id, type
)
select id from recorded_events;
