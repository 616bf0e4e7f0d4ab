-- Statements of src/modules/contacts/contact-labels.ts, as run (test/db/statements.test.ts writes this file).

-- contacts.labels (pipelined: src/db/pipeline.ts)
select id, first_name, last_name, email, deleted_at is not null as deleted
  from contacts
 where company_id = $1 and id = any($2::bigint[]);
