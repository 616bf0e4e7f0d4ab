// What a backup reads of the database's own catalogue: the tables of engage's schemas with
// the COPY statements that move them, the foreign keys that order a restore, and the
// identity sequences to move past the restored ids. PostgreSQL writes each COPY statement
// itself (format with %I), from the catalogue, so no statement text is built in TypeScript.
import { defineQuery } from '../db/query.js'

/** engage's schemas: its tables, and the migrations journal that says which schema they have. */
export const SCHEMAS = ['public', 'migrations']

export interface TableRow {
  /** schema.name, as the file's section header names it. */
  name: string
  /** Its columns in order, without generated ones (PostgreSQL computes those again). */
  columns: string[]
  /** COPY … TO STDOUT, ordered by the primary key so the same rows give the same bytes. */
  copy_out: string
  copy_in: string
}

export const tablesStatement = defineQuery<TableRow>(
  'backup.tables',
  `select n.nspname || '.' || c.relname as name,
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
    order by 1`,
)

export const referencesStatement = defineQuery<{ from: string; to: string }>(
  'backup.references',
  `select fn.nspname || '.' || f.relname as "from", tn.nspname || '.' || t.relname as "to"
     from pg_constraint k
     join pg_class f on f.oid = k.conrelid
     join pg_namespace fn on fn.oid = f.relnamespace
     join pg_class t on t.oid = k.confrelid
     join pg_namespace tn on tn.oid = t.relnamespace
    where k.contype = 'f' and fn.nspname = any($1::text[]) and k.conrelid <> k.confrelid`,
)

/** One setval per identity or serial sequence: the next id follows the largest restored one. */
export const sequenceResetsStatement = defineQuery<{ reset: string }>(
  'backup.sequenceResets',
  `select format('select setval(%L, coalesce(max(%I), 1), max(%I) is not null) from %I.%I',
                 s.oid::regclass::text, a.attname, a.attname, n.nspname, t.relname) as reset
     from pg_class s
     join pg_depend d on d.objid = s.oid and d.classid = 'pg_class'::regclass
                     and d.refclassid = 'pg_class'::regclass and d.deptype in ('a', 'i')
     join pg_class t on t.oid = d.refobjid
     join pg_namespace n on n.oid = t.relnamespace
     join pg_attribute a on a.attrelid = t.oid and a.attnum = d.refobjsubid
    where s.relkind = 'S' and n.nspname = any($1::text[])
    order by 1`,
)

/** The migrations a database has had, in order: the schema a backup was taken with. */
export const appliedMigrationsStatement = defineQuery<{ name: string }>(
  'backup.appliedMigrations',
  `select name from migrations.applied order by name`,
)

/** How many tables engage's schemas hold: none in an empty database. */
export const tableCountStatement = defineQuery<{ count: number }>(
  'backup.tableCount',
  `select count(*)::int as count
     from pg_class c join pg_namespace n on n.oid = c.relnamespace
    where c.relkind in ('r', 'p') and n.nspname = any($1::text[])`,
)

/** Only one backup at a time across instances sharing the database (scheduled or by hand). */
export const backupLockStatement = defineQuery<{ locked: boolean }>(
  'backup.lock',
  `select pg_try_advisory_xact_lock(7401231) as locked`,
)

export const serverVersionStatement = defineQuery<{ version: string }>(
  'backup.serverVersion',
  `select current_setting('server_version') as version`,
)

/** The statements a restore runs around its load, each written by PostgreSQL from the catalogue. */
export const loadFramingStatement = defineQuery<{ truncate: string; disable_triggers: string[]; enable_triggers: string[] }>(
  'backup.loadFraming',
  `select 'truncate ' || string_agg(format('%I.%I', n.nspname, c.relname), ', ' order by n.nspname, c.relname) as truncate,
          array_agg(format('alter table %I.%I disable trigger user', n.nspname, c.relname) order by n.nspname, c.relname) as disable_triggers,
          array_agg(format('alter table %I.%I enable trigger user', n.nspname, c.relname) order by n.nspname, c.relname) as enable_triggers
     from pg_class c join pg_namespace n on n.oid = c.relnamespace
    where c.relkind in ('r', 'p') and not c.relispartition and n.nspname = any($1::text[])`,
)
