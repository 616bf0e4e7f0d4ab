-- outbox.record
with input as (
     select e.ord, e.type, e.data::json as data
     from unnest($2::text[], $3::text[]) with ordinality as e(type, data, ord)
   ), event_sequence as (
     insert into counters (company_id, list, key, value)
     select $1::bigint, 'events', 0, count(*) from input
     having count(*) > 0
     on conflict (company_id, list, key) do update set value = counters.value + excluded.value
     returning value
   ), recorded_events as (
     insert into api_events (company_id, sequence, type, data, created_at)
     select $1::bigint, s.value - (select count(*) from input) + e.ord, e.type, e.data, $4::timestamptz
     from input e, event_sequence s
     order by e.ord
     returning company_id, id, type
   )
   select id from recorded_events;
