// Db drills (issue 10): the service on a PostgreSQL cluster of its own (test/helpers/
// cluster.ts), which each drill then mistreats under load: its connections terminated
// during 20 concurrent writers, a fast stop and a start, a freeze (SIGSTOP) and a thaw.
// Each time: the process stays up, requests that fail get the contract's 503 with
// Retry-After in bounded time, nothing acknowledged is lost, nothing is half written, the
// totals stay exact, and the service recovers by itself. Figures go to the test output
// (t.diagnostic) and docs/reliability.md.
import assert from 'node:assert/strict'
import { after, before, test, type TestContext } from 'node:test'
import { describeOrSkip } from '../helpers/suite.js'
import pg from 'pg'
import { buildApp, type App } from '../../src/app.js'
import { openDatabase, type DatabaseHandle } from '../../src/db/client.js'
import { availability, startCluster, type Cluster } from '../helpers/cluster.js'
import { addCustomField, addTag } from '../helpers/contacts-factories.js'
import { tenant, type Tenant } from '../helpers/factories.js'
import { testConfig } from '../helpers/app.js'
import { sleep, waitFor } from '../rate-limit/helpers.js'

const available = await availability()

interface Answer {
  status: number
  ms: number
  body: unknown
  headers: Record<string, unknown>
}

interface ErrorBody {
  error?: { status?: unknown; message?: unknown; request_id?: unknown }
}

/** Why `answer` is not the contract's 503, or undefined when it is. */
function not503(answer: Answer): string | undefined {
  const error = (answer.body as ErrorBody | undefined)?.error
  if (answer.status !== 503) return `status ${String(answer.status)}: ${JSON.stringify(answer.body)}`
  if (error?.status !== 503 || error.message !== 'Service unavailable') return `body ${JSON.stringify(answer.body)}`
  if (error.request_id !== answer.headers['x-request-id']) return 'request_id differs from X-Request-Id'
  if (!(Number(answer.headers['retry-after']) >= 1)) return `Retry-After ${String(answer.headers['retry-after'])}`
  return undefined
}

const summary = (answers: Answer[]) => {
  const counts = new Map<number, number>()
  for (const answer of answers) counts.set(answer.status, (counts.get(answer.status) ?? 0) + 1)
  return [...counts].sort((a, b) => a[0] - b[0]).map(([status, n]) => `${String(status)}×${String(n)}`).join(' ')
}

const slowest = (answers: Answer[]) => Math.max(0, ...answers.map((answer) => answer.ms))

describeOrSkip('database drills', { skip: available.ok ? false : `…${available.reason}: the drills need a PostgreSQL cluster of their own…` }, () => {
  let cluster: Cluster | undefined
  let database: DatabaseHandle | undefined
  let app: App
  let acme: Tenant
  let tagIds: number[]
  const crashes: unknown[] = []
  const onCrash = (err: unknown) => {
    crashes.push(err)
  }
  let sequence = 0
  let firstId = 0

  before(async () => {
    process.on('uncaughtException', onCrash)
    process.on('unhandledRejection', onCrash)
    if (!available.ok) return
    cluster = await startCluster(available)
    database = await openDatabase({ databaseUrl: cluster.url })
    app = await buildApp(testConfig(), { database })
    await app.ready()
    acme = await tenant(database.db, { name: 'Drills' })
    tagIds = [(await addTag(database.db, acme, { name: 'Hot' })).id, (await addTag(database.db, acme, { name: 'Cold' })).id]
    await addCustomField(database.db, acme, { field: 'Size', kind: 'input' })
    await addCustomField(database.db, acme, { field: 'Note', kind: 'input' })
    const first = await write()
    assert.equal(first.status, 201)
    firstId = (first.body as { id: number }).id
  })

  after(async () => {
    await app.close().catch(() => undefined)
    // A pool with a leaked client never finishes closing: do not wait for it forever.
    if (database) await Promise.race([database.close().catch(() => undefined), sleep(3000)])
    await cluster?.cleanup()
    process.off('uncaughtException', onCrash)
    process.off('unhandledRejection', onCrash)
  })

  async function call(method: 'GET' | 'POST', url: string, payload?: object): Promise<Answer> {
    const started = performance.now()
    const res = await app.inject({ method, url, headers: acme.auth, ...(payload ? { payload } : {}) })
    let body: unknown
    try {
      body = res.json()
    } catch {
      body = res.body
    }
    return { status: res.statusCode, ms: performance.now() - started, body, headers: res.headers }
  }

  /** A contact with both tags, both custom fields and a business; its number is in its email. */
  const newContact = () => {
    const n = ++sequence
    return {
      first_name: `Writer${String(n)}`,
      email: `w${String(n)}@drill.example`,
      business: 'Drill Corp',
      tags: tagIds,
      custom_fields: [{ field: 'Size', value: `s${String(n)}` }, { field: 'Note', value: `n${String(n)}` }],
    }
  }

  const acknowledged = new Map<number, string>() // id → email of every 201

  async function write(): Promise<Answer> {
    const answer = await call('POST', '/api/v1/contacts', newContact())
    if (answer.status === 201) {
      const body = answer.body as { id: number; email: string }
      acknowledged.set(body.id, body.email)
    }
    return answer
  }

  /** Runs `work` in `concurrency` loops until `stop()` says so; every answer is kept. */
  async function load(concurrency: number, work: (i: number) => Promise<Answer>, stop: () => boolean): Promise<Answer[]> {
    const answers: Answer[] = []
    await Promise.all(
      Array.from({ length: concurrency }, async (_, i) => {
        while (!stop()) answers.push(await work(i))
      }),
    )
    return answers
  }

  const mixed = (i: number) => {
    switch (i % 3) {
      case 0:
        return write()
      case 1:
        return call('GET', '/api/v1/contacts?page=1')
      default:
        return call('GET', `/api/v1/contacts/${String(firstId)}`)
    }
  }

  async function recovered(timeoutMs: number): Promise<boolean> {
    return waitFor(async () => (await call('GET', '/api/v1/contacts?page=1')).status === 200, timeoutMs)
  }

  /** Every acknowledged write is there, no contact is half written, and the totals are exact. */
  async function assertIntact(t: TestContext) {
    if (!cluster) throw new Error('no cluster')
    const client = new pg.Client({ connectionString: cluster.url })
    await client.connect()
    try {
      const { rows } = await client.query<{ id: string; email: string; tags: string[] | null; fields: string[] | null; created: number }>(
        `select c.id, c.email,
           (select array_agg(tag_id::text order by tag_id) from contact_tags t where t.company_id = c.company_id and t.contact_id = c.id) as tags,
           (select array_agg(f.field || '=' || v.value order by f.id) from contact_custom_values v
              join custom_fields f on f.company_id = v.company_id and f.id = v.custom_field_id
              where v.company_id = c.company_id and v.contact_id = c.id) as fields,
           (select count(*)::int from contact_events e where e.company_id = c.company_id and e.contact_id = c.id and e.kind = 'contact_created') as created
         from contacts c where c.company_id = $1 and c.deleted_at is null`,
        [acme.companyId],
      )
      const stored = new Map(rows.map((row) => [Number(row.id), row]))
      for (const [id, email] of acknowledged) assert.equal(stored.get(id)?.email, email, `acknowledged contact ${String(id)} is stored`)
      for (const row of rows) {
        const n = /^w(\d+)@/.exec(row.email)?.[1] ?? '?'
        assert.deepEqual(
          { tags: row.tags, fields: row.fields, created: row.created },
          { tags: tagIds.map(String), fields: [`Size=s${n}`, `Note=n${n}`], created: 1 },
          `contact ${row.id} (${row.email}) is whole`,
        )
      }
      const counters = await client.query<{ key: string; value: string }>(
        `select key, sum(value) as value from counters where company_id = $1 and list in ('contacts', 'contacts_by_user') group by list, key order by list, key`,
        [acme.companyId],
      )
      assert.deepEqual(counters.rows.map((row) => Number(row.value)), [rows.length, rows.length], 'company and owner counters')
      const listed = await call('GET', '/api/v1/contacts?page=1')
      assert.equal((listed.body as { meta: { total_count: number } }).meta.total_count, rows.length, 'GET /contacts total_count')
      const business = await client.query<{ n: number }>(
        `select count(*)::int as n from businesses where company_id = $1 and lower(name) = 'drill corp'`,
        [acme.companyId],
      )
      assert.equal(business.rows[0]?.n ?? 0, rows.length > 0 ? 1 : 0, 'one business')
      t.diagnostic(`intact: ${String(rows.length)} contacts stored, ${String(acknowledged.size)} acknowledged`)
    } finally {
      await client.end()
    }
  }

  /**
   * Every pooled connection came back once the load is over. A client lost to the pool is
   * gone for good: enough of them and the service can no longer reach the database at all.
   */
  async function assertNoLeakedConnections(t: TestContext) {
    const pool = database?.db as pg.Pool | undefined // the handle's Db is the pool
    if (!pool) throw new Error('no pool')
    const settled = await waitFor(() => pool.idleCount === pool.totalCount, 2000)
    t.diagnostic(`pool: ${String(pool.totalCount)} connections, ${String(pool.idleCount)} idle`)
    assert.ok(settled, `${String(pool.totalCount - pool.idleCount)} of ${String(pool.totalCount)} pooled connections never came back (checked out and not released)`)
  }

  function assertAlive() {
    assert.deepEqual(crashes.map(String), [], 'no uncaught exception or unhandled rejection')
  }

  test('connections terminated during 20 concurrent writers', async (t) => {
    if (!cluster) return
    const terminator = cluster
    const until = performance.now() + 3000
    let terminated = 0
    let kills = 0
    const killing = (async () => {
      await sleep(300)
      while (performance.now() < until - 200) {
        terminated += await terminator.terminateAll()
        kills++
        await sleep(250)
      }
    })()
    const answers = await load(20, write, () => performance.now() >= until)
    await killing
    t.diagnostic(`writes: ${summary(answers)}; ${String(kills)} rounds of pg_terminate_backend ended ${String(terminated)} connections; slowest answer ${slowest(answers).toFixed(0)} ms`)
    assertAlive()
    assert.ok(terminated > 0, 'connections were terminated')
    for (const answer of answers.filter((a) => a.status !== 201)) assert.equal(not503(answer), undefined)
    assert.ok(await recovered(10_000), 'serves again')
    assertAlive()
    await assertIntact(t)
    await assertNoLeakedConnections(t)
  })

  test('pg_ctl stop -m fast under load, then start: 503 with Retry-After meanwhile, served again by itself', async (t) => {
    if (!cluster) return
    const operator = cluster
    let done = false
    const loading = load(9, mixed, () => done)
    await sleep(500)
    await operator.stop('fast')
    const stoppedAt = performance.now()
    await sleep(1500)
    await operator.start()
    const startedAt = performance.now()
    const back = await recovered(10_000)
    const recoveredMs = performance.now() - startedAt
    await sleep(300)
    done = true
    const answers = await loading
    t.diagnostic(`stop: ${summary(answers)}; served again ${recoveredMs.toFixed(0)} ms after the start (down ${(startedAt - stoppedAt).toFixed(0)} ms); slowest answer ${slowest(answers).toFixed(0)} ms`)
    assertAlive()
    assert.ok(back, 'served again after the start')
    const failed = answers.filter((a) => a.status >= 300)
    assert.ok(failed.length > 0, 'requests failed while the database was down')
    for (const answer of failed) assert.equal(not503(answer), undefined)
    assert.ok(slowest(answers) < 8000, 'no request waited long')
    assert.equal((await app.inject({ url: '/readyz' })).statusCode, 200)
    await assertIntact(t)
    await assertNoLeakedConnections(t)
  })

  test('frozen with SIGSTOP: every request 503 within 5 s, /readyz within 2 s; thawed: served again', async (t) => {
    if (!cluster) return
    const operator = cluster
    await operator.freeze()
    let thawed = false
    try {
      const frozenAt = performance.now()
      const ready = (async (): Promise<Answer> => {
        const res = await app.inject({ url: '/readyz' })
        return { status: res.statusCode, ms: performance.now() - frozenAt, body: res.json(), headers: res.headers }
      })()
      const answers = await Promise.all(Array.from({ length: 12 }, (_, i) => mixed(i)))
      const readiness = await ready
      t.diagnostic(`frozen: ${summary(answers)}, slowest ${slowest(answers).toFixed(0)} ms; /readyz ${String(readiness.status)} in ${readiness.ms.toFixed(0)} ms`)
      assertAlive()
      for (const answer of answers) assert.equal(not503(answer), undefined)
      assert.ok(slowest(answers) < 8000, `every request answered in bounded time (slowest ${slowest(answers).toFixed(0)} ms)`)
      assert.equal(not503(readiness), undefined)
      assert.ok(readiness.ms < 3000, `/readyz answered in ${readiness.ms.toFixed(0)} ms`)
      await operator.thaw()
      thawed = true
      const thawedAt = performance.now()
      assert.ok(await recovered(15_000), 'served again after the thaw')
      t.diagnostic(`served again ${(performance.now() - thawedAt).toFixed(0)} ms after the thaw`)
      assert.equal((await app.inject({ url: '/readyz' })).statusCode, 200)
      // A few more writes after the thaw: no connection left in a bad state by the freeze.
      for (let i = 0; i < 20; i++) assert.equal((await write()).status, 201)
      assertAlive()
      await assertIntact(t)
      await assertNoLeakedConnections(t)
    } finally {
      if (!thawed) await operator.thaw()
    }
  })
})
