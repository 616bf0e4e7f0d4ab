-- Statements of src/modules/contacts/contact-labels.ts, as run (test/db/statements.test.ts writes this file).

-- contacts.labels (pipelined: src/db/pipeline.ts)
select id, first_name as "firstName", last_name as "lastName", email, deleted_at is not null as deleted
  from contacts
 where company_id = $1 and id = any($2::bigint[]);
