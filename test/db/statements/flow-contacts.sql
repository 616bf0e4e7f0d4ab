-- Statements of src/modules/flows/flow-contacts.ts, as run (test/db/statements.test.ts writes this file).

-- flows.activeContactsPage
select id, contact_id, added_at
  from flow_enrollments
 where company_id = $1 and flow_id = $2 and status = 'active'
 order by contact_id
 limit $3 offset $4;
