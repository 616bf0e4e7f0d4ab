-- Statements of src/modules/leads/lead-links.ts, as run (test/db/statements.test.ts writes this file).

-- leads.lockEmail
select pg_advisory_xact_lock(hashtextextended('lead-link:' || $1::bigint || ':' || lower($2::text), 0)) as locked;
