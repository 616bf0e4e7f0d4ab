// Issue 38, item 1: an Idempotency-Key is exactly once when the instance dies between its
// commit and its answer. The real server runs as a child process with the test-only fault
// point ENGAGE_TEST_FAULT_AFTER_COMMIT=1 (it exits right after the first keyed commit); a
// keyed create gets no answer, the server is started again on the same database, and the
// retry with the key answers the original 201 and body: one row, one webhook event. Once on
// contacts (a unique email: a second run would answer 422) and once on meet transcriptions
// (no unique field: a second run would create a duplicate).
import assert from 'node:assert/strict'
import { spawn, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { after, before, describe, test } from 'node:test'
import { rawRows, sql } from '../helpers/sql.js'
import { backends, TEST_SECRET_KEY } from '../helpers/app.js'
import { tenant, type Tenant } from '../helpers/factories.js'
import { freePort } from '../rate-limit/helpers.js'
import type { DatabaseHandle } from '../../src/db/client.js'

const root = new URL('../..', import.meta.url).pathname
const poolerUrl = process.env.TEST_DATABASE_POOLER_URL || undefined

interface Server {
  child: ChildProcess
  port: number
  exited: Promise<unknown>
  stderr: () => string
}

/** `src/server.ts` on the test's database (through the pooler when the run uses one). */
async function startServer(url: string, fault: boolean): Promise<Server> {
  const port = await freePort()
  const database = poolerUrl
    ? { DATABASE_URL: `${poolerUrl.replace(/\/[^/]*$/, '')}${new URL(url).pathname}`, DATABASE_DIRECT_URL: url, DB_POOLER: 'transaction' }
    : { DATABASE_URL: url }
  const child = spawn(process.execPath, ['--import', './test/loader.mjs', 'src/server.ts'], {
    cwd: root,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      ...database,
      PORT: String(port),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      SEED_DEMO: 'false',
      WEBHOOK_SECRET_KEY: TEST_SECRET_KEY,
      ...(fault ? { ENGAGE_TEST_FAULT_AFTER_COMMIT: '1' } : {}),
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  })
  let err = ''
  child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()))
  const exited = once(child, 'exit')
  const server = { child, port, exited, stderr: () => err }
  const deadline = Date.now() + 60_000
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`the server exited early: ${err}`)
    try {
      if ((await fetch(`http://127.0.0.1:${String(port)}/healthz`)).ok) return server
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 200))
  }
  child.kill('SIGKILL')
  throw new Error(`the server was not healthy in time: ${err}`)
}

async function stopServer(server: Server): Promise<void> {
  if (server.child.exitCode === null && server.child.signalCode === null) server.child.kill('SIGTERM')
  await server.exited
}

const post = (server: Server, path: string, auth: Tenant['auth'], key: string, body: object) =>
  fetch(`http://127.0.0.1:${String(server.port)}/api/v1${path}`, {
    method: 'POST',
    headers: { ...auth, 'content-type': 'application/json', 'idempotency-key': key },
    body: JSON.stringify(body),
  })

/** The retry, again after each 409 (Retry-After) for a little longer than a claim takes to be abandoned (30 s). */
async function retry(server: Server, path: string, auth: Tenant['auth'], key: string, body: object): Promise<Response> {
  const deadline = Date.now() + 45_000
  for (;;) {
    const res = await post(server, path, auth, key, body)
    if (res.status !== 409 || Date.now() > deadline) return res
    await res.arrayBuffer()
    await new Promise((resolve) => setTimeout(resolve, 1000))
  }
}

for (const backend of backends()) {
  describe(`a crash between the commit and the answer (${backend.name})`, () => {
    let database: DatabaseHandle
    let url: string
    let drop: () => Promise<void>
    let acme: Tenant

    before(async () => {
      ;({ database, url, drop } = await backend.open())
      acme = await tenant(database.db)
    })
    after(() => drop())

    const cases = [
      {
        resource: 'contacts',
        table: 'contacts',
        event: 'contact.created',
        body: () => ({ first_name: 'Ana', email: 'ana.crash@example.com' }),
      },
      {
        resource: 'meet_transcriptions',
        table: 'meet_transcriptions',
        event: 'meet_transcription.created',
        body: () => ({ company_id: acme.companyId, user_id: acme.userId, meet_id: 'abc-defg-hij' }),
      },
    ] as const

    for (const { resource, table, event, body } of cases) {
      test(`${resource}: the retry answers the original 201 and body; one row, one event`, async () => {
        const key = `crash-${resource}`
        const faulty = await startServer(url, true)
        let answered: Response | undefined
        try {
          answered = await post(faulty, `/${resource}`, acme.auth, key, body())
        } catch {
          // The process died before answering: the connection closed without a response.
        }
        await faulty.exited
        assert.equal(answered, undefined, 'no answer from the dying process')
        assert.ok(faulty.child.exitCode !== 0, `the process died (exit ${String(faulty.child.exitCode)}, ${String(faulty.child.signalCode)})`)

        const rows = () => rawRows<{ id: number }>(database.db, sql`select id from ${sql.identifier(table)} where company_id = ${acme.companyId} order by id`)
        const committed = await rows()
        assert.equal(committed.length, 1, 'the write was committed before the process died')

        const restarted = await startServer(url, false)
        try {
          const res = await retry(restarted, `/${resource}`, acme.auth, key, body())
          const text = await res.text()
          assert.equal(res.status, 201, text)
          assert.equal(res.headers.get('idempotent-replayed'), 'true')
          const replayed = JSON.parse(text) as { id: number }
          assert.equal(replayed.id, committed[0]?.id)
          assert.equal(res.headers.get('location'), `/api/v1/${resource}/${String(replayed.id)}`)
          const current = await fetch(`http://127.0.0.1:${String(restarted.port)}/api/v1/${resource}/${String(replayed.id)}`, { headers: acme.auth })
          assert.deepEqual(replayed, await current.json(), 'the stored body is the record as created')
        } finally {
          await stopServer(restarted)
        }

        assert.deepEqual(await rows(), committed, 'exactly one row')
        const events = await rawRows<{ count: number }>(
          database.db,
          sql`select (select count(*) from api_event_outbox where company_id = ${acme.companyId} and type = ${event})
                   + (select count(*) from api_events where company_id = ${acme.companyId} and type = ${event}) as count`,
        )
        assert.equal(Number(events[0]?.count), 1, 'exactly one webhook event')
      })
    }
  })
}
