-- Statements of src/backup/catalog.ts, as run (test/db/statements.test.ts writes this file).

-- backup.tables
select n.nspname || '.' || c.relname as name,
       cols.names as columns,
       format('copy (select %s from %I.%I%s) to stdout', cols.list, n.nspname, c.relname,
              coalesce(' order by ' || pk.list, '')) as copy_out,
       format('copy %I.%I (%s) from stdin', n.nspname, c.relname, cols.list) as copy_in
  from pg_class c
  join pg_namespace n on n.oid = c.relnamespace
 cross join lateral (
       select array_agg(a.attname::text order by a.attnum) as names,
              string_agg(quote_ident(a.attname), ', ' order by a.attnum) as list
         from pg_attribute a
        where a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped and a.attgenerated = '') cols
  left join lateral (
       select string_agg(quote_ident(a.attname), ', ' order by k.position) as list
         from pg_index i
        cross join unnest(i.indkey) with ordinality as k(attnum, position)
         join pg_attribute a on a.attrelid = i.indrelid and a.attnum = k.attnum
        where i.indrelid = c.oid and i.indisprimary) pk on true
 where c.relkind in ('r', 'p') and not c.relispartition and n.nspname = any($1::text[])
 order by 1;

-- backup.references
select fn.nspname || '.' || f.relname as "from", tn.nspname || '.' || t.relname as "to"
  from pg_constraint k
  join pg_class f on f.oid = k.conrelid
  join pg_namespace fn on fn.oid = f.relnamespace
  join pg_class t on t.oid = k.confrelid
  join pg_namespace tn on tn.oid = t.relnamespace
 where k.contype = 'f' and fn.nspname = any($1::text[]) and k.conrelid <> k.confrelid;

-- backup.sequenceResets
select format('select setval(%L, coalesce(max(%I), 1), max(%I) is not null) from %I.%I',
              s.oid::regclass::text, a.attname, a.attname, n.nspname, t.relname) as reset
  from pg_class s
  join pg_depend d on d.objid = s.oid and d.classid = 'pg_class'::regclass
                  and d.refclassid = 'pg_class'::regclass and d.deptype in ('a', 'i')
  join pg_class t on t.oid = d.refobjid
  join pg_namespace n on n.oid = t.relnamespace
  join pg_attribute a on a.attrelid = t.oid and a.attnum = d.refobjsubid
 where s.relkind = 'S' and n.nspname = any($1::text[])
 order by 1;

-- backup.appliedMigrations
select name from migrations.applied order by name;

-- backup.tableCount
select count(*)::int as count
  from pg_class c join pg_namespace n on n.oid = c.relnamespace
 where c.relkind in ('r', 'p') and n.nspname = any($1::text[]);

-- backup.lock
select pg_try_advisory_xact_lock(7401231) as locked;

-- backup.serverVersion
select current_setting('server_version') as version;

-- backup.loadFraming
select 'truncate ' || string_agg(format('%I.%I', n.nspname, c.relname), ', ' order by n.nspname, c.relname) as truncate,
       array_agg(format('alter table %I.%I disable trigger user', n.nspname, c.relname) order by n.nspname, c.relname) as disable_triggers,
       array_agg(format('alter table %I.%I enable trigger user', n.nspname, c.relname) order by n.nspname, c.relname) as enable_triggers
  from pg_class c join pg_namespace n on n.oid = c.relnamespace
 where c.relkind in ('r', 'p') and not c.relispartition and n.nspname = any($1::text[]);
