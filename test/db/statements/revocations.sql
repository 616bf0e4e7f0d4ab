-- Statements of src/revocations.ts, as run (test/db/statements.test.ts writes this file).

-- auth.announce
select pg_notify($1, $2);
