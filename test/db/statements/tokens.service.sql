-- Statements of src/modules/auth/tokens.service.ts, as run (test/db/statements.test.ts writes this file).

-- auth.announce
select pg_notify($1, $2);
