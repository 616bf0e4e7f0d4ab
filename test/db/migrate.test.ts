// Migrations run on a connection of their own, without the time limits of the pool's
// (src/db/client.ts, migrate): rewriting a big table takes longer than any request may, and
// the pool's client-side query_timeout used to cut such a migration's connection.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import pg from 'pg'
import { openDatabase } from '../../src/db/client.js'
import { backends } from '../helpers/app.js'
import { execute, sql } from '../helpers/sql.js'

const MIGRATION_LOCK = 7_401_229 // src/db/client.ts

for (const backend of backends()) {
  describe(`migrations (${backend.name})`, () => {
    let opened: Awaited<ReturnType<typeof backend.open>>
    before(async () => {
      opened = await backend.open()
    })
    after(async () => {
      await opened.drop()
    })

    test('a migration outlasting the statement timeout of requests completes', async () => {
      // Another instance migrating: this one waits for the lock longer than a request may run.
      const other = new pg.Client({ connectionString: opened.url })
      await other.connect()
      await other.query('select pg_advisory_lock($1)', [MIGRATION_LOCK])
      const released = new Promise((resolve) => setTimeout(resolve, 1_000)).then(() => other.query('select pg_advisory_unlock($1)', [MIGRATION_LOCK]))
      try {
        const started = Date.now()
        const handle = await openDatabase({ databaseUrl: opened.url, statementTimeoutMs: 100, pipelineConnections: 0 })
        try {
          assert.ok(Date.now() - started >= 900, 'it waited for the other migrator')
          await handle.ping()
          // The requests' limit is untouched.
          await assert.rejects(execute(handle.db, sql`select pg_sleep(0.5)`),
            (err: Error & { cause?: Error }) => /statement timeout|Query read timeout/.test(err.cause?.message ?? err.message))
        } finally {
          await handle.close()
        }
      } finally {
        await released
        await other.end()
      }
    })
  })
}
