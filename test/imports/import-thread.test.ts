// The import worker runs each import in a worker thread of its own with a bounded heap
// (src/modules/contact-imports/import-worker.ts, import-thread.ts; docs/performance.md, "Memory"):
// the import's statements are not the main thread's, its rows are all saved, and a worker
// stopped mid-import (the app closing) stops after the batch in hand and gives the import's
// lease up, so that the next claim resumes it at once.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { statementChannel, type Query } from '../../src/db/query.js'
import { backends, startApp, type TestApp } from '../helpers/app.js'
import { tenant, type Tenant } from '../helpers/factories.js'
import { rawRows, sql } from '../helpers/sql.js'
import { until } from '../helpers/until.js'

const file = (rows: number, prefix: string) =>
  `First Name,Email\n${Array.from({ length: rows }, (_, i) => `Row${String(i)},${prefix}${String(i)}@thread.example`).join('\n')}\n`


for (const backend of backends()) {
  describe(`the import worker's thread (${backend.name})`, () => {
    let t: TestApp
    let who: Tenant

    before(async () => {
      t = await startApp(backend, { deps: { importWorker: { pollIntervalMs: 20, batchRows: 50 } } })
      who = await tenant(t.db)
    })
    after(() => t.close())

    const upload = async (body: string) => {
      const response = await t.app.inject({
        method: 'POST', url: '/api/v1/contact_imports', headers: { ...who.auth, 'content-type': 'text/csv' }, payload: body,
      })
      assert.equal(response.statusCode, 202, response.body)
      return (response.json<{ id: number }>()).id
    }
    const record = async (id: number) =>
      (await rawRows<{ state: string; rows_done: number; created_count: number; lease_until: Date | null; attempts: number }>(
        t.db, sql`select state, rows_done, created_count, lease_until, attempts from contact_imports where id = ${id}`,
      ))[0]

    test('an import runs off the main thread: its statements are not sent from here, and every row is saved', async () => {
      const seen = new Set<string>()
      const note = (query: unknown) => seen.add((query as Query<unknown>).name)
      statementChannel.subscribe(note)
      try {
        const id = await upload(file(400, 'a'))
        const done = await until('the import done', async () => {
          const row = await record(id)
          return row?.state === 'done' ? row : undefined
        })
        assert.equal(done.created_count, 400)
      } finally {
        statementChannel.unsubscribe(note)
      }
      assert.ok(seen.has('contactImports.claim'), [...seen].join(', '))
      for (const name of ['contactImports.chunk', 'contactImports.progress', 'contacts.batchLockEmails', 'contacts.batchWrite', 'contacts.createWrite']) {
        assert.ok(!seen.has(name), `${name} ran on the main thread`)
      }
      const [count] = await rawRows<{ n: number }>(t.db, sql`select count(*)::int as n from contacts where email like '%@thread.example' and deleted_at is null`)
      assert.equal(count?.n, 400)
    })

    test('closing mid-import stops after the batch in hand and gives the lease up', async () => {
      const id = await upload(file(20_000, 'b'))
      await until('a batch saved', async () => ((await record(id))?.rows_done ?? 0) > 0 ? true : undefined)
      const closed = Date.now()
      await t.app.close()
      const row = await record(id)
      assert.ok(row)
      assert.equal(row.state, 'running') // not done, not failed: resumed by the next claim
      assert.ok(row.rows_done > 0 && row.rows_done < 20_000 && row.rows_done % 50 === 0, `rows_done ${String(row.rows_done)}`)
      assert.ok(row.lease_until !== null && row.lease_until.getTime() <= Date.now() && row.lease_until.getTime() >= closed - 1000, 'the lease is given up')
    })
  })
}
