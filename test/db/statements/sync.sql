-- Statements of src/http/sync.ts, as run (test/db/statements.test.ts writes this file).

-- sync.highWaterMark
select to_char((least(now(), min(xact_start)) - $1::int * interval '1 millisecond') at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as at,
       pg_current_wal_insert_lsn()::text as lsn
  from pg_stat_activity
 where datname = current_database() and backend_type = 'client backend'
   and pid <> pg_backend_pid() and xact_start is not null;
