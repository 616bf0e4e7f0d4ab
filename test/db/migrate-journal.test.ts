// The migration runner (src/db/migrate.ts) applies each file of migrations/ once: on a fresh
// database all of them, then nothing; on a database Drizzle's migrator brought up to some
// file (its journal, drizzle.__drizzle_migrations, as that migrator left it), only the files
// after it. A migration that ran twice would fail here (CREATE TYPE, CREATE TABLE), and the
// statements sent are watched as well.
import assert from 'node:assert/strict'
import { createHash, randomBytes } from 'node:crypto'
import { readdirSync, readFileSync } from 'node:fs'
import { after, before, describe, test } from 'node:test'
import pg from 'pg'
import { applyMigrations } from '../../src/db/migrate.js'
import { backends } from '../helpers/app.js'

const folder = new URL('../../migrations/', import.meta.url)
const files = readdirSync(folder).filter((file) => file.endsWith('.sql')).sort()
const names = files.map((file) => file.slice(0, -'.sql'.length))
const textOf = (file: string) => readFileSync(new URL(file, folder), 'utf8')
const statementsOf = (file: string) => textOf(file).split('--> statement-breakpoint')

/**
 * What Drizzle's node-postgres migrator did for the first `count` files on a new database:
 * its journal table, then each file's statements and a row of the file's hash and its
 * journal entry's `when` (increasing with the number; its value does not matter here).
 */
async function migrateAsDrizzleDid(client: pg.Client, count: number): Promise<void> {
  await client.query('CREATE SCHEMA IF NOT EXISTS "drizzle"')
  await client.query('CREATE TABLE IF NOT EXISTS "drizzle"."__drizzle_migrations" (id SERIAL PRIMARY KEY, hash text NOT NULL, created_at bigint)')
  await client.query('begin')
  for (const [index, file] of files.slice(0, count).entries()) {
    for (const statement of statementsOf(file)) await client.query(statement)
    await client.query('insert into "drizzle"."__drizzle_migrations" ("hash", "created_at") values($1, $2)', [
      createHash('sha256').update(textOf(file)).digest('hex'),
      1_795_319_602_301 + index * 1_000,
    ])
  }
  await client.query('commit')
}

/** Runs the migrations, answering which statements of the migration files were sent. */
async function migrationStatementsSent(client: pg.Client): Promise<string[]> {
  const statements = new Set(files.flatMap(statementsOf))
  const sent: string[] = []
  const query = client.query.bind(client) as (...args: unknown[]) => unknown
  client.query = ((...args: unknown[]) => {
    if (typeof args[0] === 'string' && statements.has(args[0])) sent.push(args[0])
    return query(...args)
  }) as typeof client.query
  try {
    await applyMigrations(client)
  } finally {
    client.query = query as typeof client.query
  }
  return sent
}

const journal = async (client: pg.Client) =>
  (await client.query<{ name: string; recorded: boolean }>('select name, applied_at is not null as recorded from migrations.applied order by name')).rows

/** The public schema's columns: the same whichever way the database was migrated. */
const columns = async (client: pg.Client) =>
  (await client.query<{ c: string }>(`select table_name || '.' || column_name || ' ' || data_type as c from information_schema.columns
                                       where table_schema = 'public' order by table_name, ordinal_position`)).rows.map((row) => row.c)

for (const backend of backends()) {
  describe(`migration journal (${backend.name})`, () => {
    let opened: Awaited<ReturnType<typeof backend.open>>
    let server: pg.Client
    const made: string[] = []

    before(async () => {
      opened = await backend.open()
      server = new pg.Client({ connectionString: opened.url })
      await server.connect()
    })
    after(async () => {
      for (const name of made) await server.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
      await server.end()
      await opened.drop()
    })

    /** A connection to a new, empty database (closed by the test). */
    async function emptyDatabase(): Promise<pg.Client> {
      const name = `engage_migrate_${randomBytes(6).toString('hex')}`
      await server.query(`CREATE DATABASE ${name}`)
      made.push(name)
      const url = new URL(opened.url)
      url.pathname = `/${name}`
      const client = new pg.Client({ connectionString: url.toString() })
      await client.connect()
      return client
    }

    test('a fresh database gets every migration, in name order; a second run applies nothing', async () => {
      const client = await emptyDatabase()
      try {
        assert.deepEqual(await migrationStatementsSent(client), files.flatMap(statementsOf).filter((s) => s.trim() !== ''))
        assert.deepEqual(await journal(client), names.map((name) => ({ name, recorded: true })))
        assert.deepEqual(await migrationStatementsSent(client), [])
        assert.deepEqual(await journal(client), names.map((name) => ({ name, recorded: true })))
      } finally {
        await client.end()
      }
    })

    for (const count of [12, files.length]) {
      test(`a database Drizzle migrated up to file ${String(count)} of ${String(files.length)} gets only the files after it, once`, async () => {
        const fresh = await emptyDatabase()
        const client = await emptyDatabase()
        try {
          await applyMigrations(fresh)
          await migrateAsDrizzleDid(client, count)

          const sent = await migrationStatementsSent(client)
          assert.deepEqual(sent, files.slice(count).flatMap(statementsOf).filter((s) => s.trim() !== ''))
          // Drizzle's rows taken over (when is unknown), the others applied now.
          assert.deepEqual(await journal(client), names.map((name, index) => ({ name, recorded: index >= count })))
          const drizzleRows = await client.query('select 1 from drizzle.__drizzle_migrations')
          assert.equal(drizzleRows.rowCount, count, "Drizzle's journal stays as it was")
          assert.deepEqual(await columns(client), await columns(fresh))

          assert.deepEqual(await migrationStatementsSent(client), [])
        } finally {
          await fresh.end()
          await client.end()
        }
      })
    }
  })
}
