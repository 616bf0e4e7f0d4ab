// Issue 42: "a restart in the middle of an import is tested". The real service (`node
// dist/server.js`; `npm run build` first) imports a 20,000-row file and is killed with SIGKILL
// once some of its batches are saved, in the middle of another; a new one started on the same
// database resumes the import after the last batch saved (when the dead worker's lease has
// run out: made to end at once here, instead of a minute later) and finishes it. Every row is
// saved exactly once: one contact each, one contact_created event, one contact.created
// webhook event, and the import's counts say so.
import assert from 'node:assert/strict'
import type { ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { after, before, describe, test } from 'node:test'
import pg from 'pg'
import type { DatabaseHandle } from '../../src/db/client.js'
import { backends } from '../helpers/app.js'
import { tenant } from '../helpers/factories.js'
import { freePort } from '../rate-limit/helpers.js'
import { startServerProcess } from '../helpers/server-process.js'
import { until } from '../helpers/until.js'

const ROWS = 20_000


for (const backend of backends()) {
  describe(`a contact import across a crash of its server (${backend.name})`, () => {
    let database: DatabaseHandle
    let url: string
    let drop: () => Promise<void>
    let sql: pg.Pool
    const children: ChildProcess[] = []

    before(async () => {
      ;({ database, url, drop } = await backend.open())
      sql = new pg.Pool({ connectionString: url, max: 2 })
    })
    after(async () => {
      for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
      await sql.end()
      await drop()
    })

    const service = (port: number) => startServerProcess({ url, port, children })

    const importRow = async (companyId: number, id: number) =>
      (await sql.query<{ state: string; rows_done: number; attempts: number; created: number; rejected: number }>(
        `select state, rows_done::int as rows_done, attempts, created_count::int as created, rejected_count::int as rejected
           from contact_imports where company_id = $1 and id = $2`,
        [companyId, id],
      )).rows[0]

    const count = async (query: string, companyId: number) => Number((await sql.query<{ n: string }>(query, [companyId])).rows[0]?.n)

    test('killed mid-import, a new server finishes it: every row saved exactly once', async () => {
      const acme = await tenant(database.db, { name: 'Acme' })
      const lines = ['First Name,Last Name,Email,Company Name,City']
      for (let i = 1; i <= ROWS; i++) {
        lines.push(`Person${String(i)},Surname ${String(i % 97)},person${String(i)}@crash.example,Business ${String(i % 50)},City ${String(i % 30)}`)
      }
      const firstPort = await freePort()
      const first = await service(firstPort)
      const answer = await fetch(`http://127.0.0.1:${String(firstPort)}/api/v1/contact_imports?file_name=crash.csv`, {
        method: 'POST',
        headers: { ...acme.auth, 'content-type': 'text/csv' },
        body: `${lines.join('\n')}\n`,
      })
      const record = (await answer.json()) as { id: number }
      assert.equal(answer.status, 202, JSON.stringify(record))

      // Killed once a few batches are saved (500 rows each), with more to come.
      const before = await until('some batches saved', async () => {
        const row = await importRow(acme.companyId, record.id)
        assert.notEqual(row?.state, 'done', 'the import ended before the kill: give it a bigger file')
        return row && row.rows_done >= 1000 ? row : undefined
      }, 60_000)
      first.child.kill('SIGKILL')
      await once(first.child, 'exit')
      const left = await importRow(acme.companyId, record.id)
      assert.equal(left?.state, 'running', 'a dead worker leaves its import running, leased')
      assert.ok(left.rows_done >= before.rows_done && left.rows_done < ROWS, `${String(left.rows_done)} rows done at the kill`)
      // What a batch saves and the import's position commit together: the batch cut short left nothing.
      const saved = 'select count(*) as n from contacts where company_id = $1'
      assert.equal(await count(saved, acme.companyId), left.rows_done)

      // The dead worker's lease would end a minute after its last batch; it ends now.
      await sql.query(`update contact_imports set lease_until = now() - interval '1 second' where company_id = $1 and id = $2`, [acme.companyId, record.id])
      const second = await service(await freePort())
      const done = await until('the import done by the new server', async () => {
        if (second.child.exitCode !== null) throw new Error(`the new service exited: ${second.stderr()}`)
        const row = await importRow(acme.companyId, record.id)
        return row?.state === 'done' || row?.state === 'failed' ? row : undefined
      }, 120_000)
      second.child.kill('SIGTERM')
      await once(second.child, 'exit')

      assert.deepEqual(done, { state: 'done', rows_done: ROWS, attempts: 2, created: ROWS, rejected: 0 })
      assert.equal(await count(saved, acme.companyId), ROWS)
      assert.equal(await count('select count(distinct lower(email)) as n from contacts where company_id = $1 and deleted_at is null', acme.companyId), ROWS)
      assert.equal(await count(`select count(*) as n from contact_events where company_id = $1 and kind = 'contact_created'`, acme.companyId), ROWS)
      const webhookEvents = `select (select count(*) from api_event_outbox where company_id = $1 and type = 'contact.created')
                                  + (select count(*) from api_events where company_id = $1 and type = 'contact.created') as n`
      assert.equal(await count(webhookEvents, acme.companyId), ROWS)
    })
  })
}
