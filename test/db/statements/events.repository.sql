-- Statements of src/modules/events/events.repository.ts, as run (test/db/statements.test.ts writes this file).

-- events.insert
insert into contact_events (company_id, contact_id, kind, user_id, data, occurred_at)
select $1, e.contact_id, e.kind, e.user_id, e.data, coalesce(e.occurred_at, now())
  from unnest($2::bigint[], $3::contact_event_kind[], $4::bigint[], $5::jsonb[], $6::timestamptz[])
       with ordinality as e(contact_id, kind, user_id, data, occurred_at, n)
 order by e.n;
