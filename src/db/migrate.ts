// Applies the migrations of migrations/ that the database has not had yet: SQL files written
// by hand, applied in name order, once each, at start (docs/architecture.md, "The database").
// The runner's statements are sent as they are, not through defineQuery: they run before
// the schema exists, and a migration is DDL, which a prepared statement cannot hold.
import { readdirSync, readFileSync } from 'node:fs'
import type pg from 'pg'

const folder = new URL('../../migrations/', import.meta.url)

/** drizzle-kit's separator between the statements of a file, which the files it wrote have. */
const STATEMENT_BREAKPOINT = '--> statement-breakpoint'

// Beside the domain, not in its public schema. applied_at is null for the migrations Drizzle's
// migrator applied (adoptDrizzleJournal), as it did not record when.
const CREATE_JOURNAL = `create schema if not exists migrations;
create table if not exists migrations.applied (name text primary key, applied_at timestamptz)`

/** A migration: its file's name without `.sql`, and its statements. */
interface Migration {
  name: string
  statements: string[]
}

function readMigrations(): Migration[] {
  return readdirSync(folder)
    .filter((file) => file.endsWith('.sql'))
    .sort()
    .map((file) => ({
      name: file.slice(0, -'.sql'.length),
      statements: readFileSync(new URL(file, folder), 'utf8')
        .split(STATEMENT_BREAKPOINT)
        .filter((statement) => statement.trim() !== ''),
    }))
}

/** The names of the migrations this build carries, in the order they apply. */
export function migrationNames(): string[] {
  return readMigrations().map((migration) => migration.name)
}

/** The schema version of this build: the name of its last migration (`/healthz`, `admin --version`). */
export function schemaVersion(): string {
  return migrationNames().at(-1) ?? 'none'
}

/**
 * Applies the migrations not applied yet, on a connection of its own (the caller holds the
 * migration lock), all in one transaction as Drizzle's migrator did: a failed migration
 * leaves the database as it was.
 */
export async function applyMigrations(client: pg.ClientBase, options: { upTo?: string } = {}): Promise<void> {
  await client.query('begin')
  try {
    await migrateWithin(client, options)
    await client.query('commit')
  } catch (err) {
    await client.query('rollback').catch(() => undefined)
    throw err
  }
}

/**
 * The migrations not applied yet, inside the caller's transaction; `upTo` stops after that
 * one (a restore first rebuilds the schema its backup was taken with).
 */
export async function migrateWithin(client: pg.ClientBase, options: { upTo?: string } = {}): Promise<void> {
  const all = readMigrations()
  const last = options.upTo === undefined ? all.length : all.findIndex((m) => m.name === options.upTo) + 1
  if (last === 0) throw new Error(`this build has no migration ${String(options.upTo)}`)
  const migrations = all.slice(0, last)
  await client.query(CREATE_JOURNAL)
  await adoptDrizzleJournal(client, migrations)
  const { rows } = await client.query<{ name: string }>('select name from migrations.applied')
  const applied = new Set(rows.map((row) => row.name))
  for (const migration of migrations.filter((m) => !applied.has(m.name))) {
    await apply(client, migration)
  }
}

async function apply(client: pg.ClientBase, { name, statements }: Migration): Promise<void> {
  try {
    for (const statement of statements) await client.query(statement)
  } catch (err) {
    throw new Error(`migration ${name} failed: ${err instanceof Error ? err.message : String(err)}`, { cause: err })
  }
  await client.query('insert into migrations.applied (name, applied_at) values ($1, now())', [name])
}

/**
 * A database migrated before this runner has Drizzle's journal, drizzle.__drizzle_migrations:
 * one row per migration applied, the files in name order (its journal's order, whose `when`
 * increased with the number). So N rows there are the first N files, which the empty journal
 * of ours takes over once; Drizzle's table stays as it was.
 */
async function adoptDrizzleJournal(client: pg.ClientBase, migrations: Migration[]): Promise<void> {
  const { rows } = await client.query<{ adopt: boolean }>(
    `select to_regclass('drizzle.__drizzle_migrations') is not null
            and not exists (select from migrations.applied) as adopt`,
  )
  if (!rows[0]?.adopt) return
  await client.query(
    `insert into migrations.applied (name)
     select name from unnest($1::text[]) with ordinality as m(name, position)
      where position <= (select count(*) from drizzle.__drizzle_migrations)`,
    [migrations.map((m) => m.name)],
  )
}
