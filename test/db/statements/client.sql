-- Statements of src/db/client.ts, as run (test/db/statements.test.ts writes this file).

-- db.ping
select 1 as one;
