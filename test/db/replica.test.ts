// The read replica (DATABASE_REPLICA_URL, src/db/replica.ts) with a real streaming replica
// of a throwaway primary: lists read the replica, a token reads its own writes at once, a
// replica lagging past DB_REPLICA_MAX_LAG_MS or down is skipped (reads go to the primary)
// and /readyz says which. With Redis, a token reads its own write through another instance.
import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { buildApp, type App } from '../../src/app.js'
import { openDatabase, type DatabaseHandle } from '../../src/db/client.js'
import { testConfig } from '../helpers/app.js'
import { addUser, tenant, type Tenant } from '../helpers/factories.js'
import { systemActing } from '../../src/acting.js'
import { createToken } from '../../src/modules/auth/tokens.service.js'
import { replicaAvailability, startPrimaryAndReplica, type Standby } from '../helpers/replica.js'
import { describeOrSkip } from '../helpers/suite.js'
import type { Cluster } from '../helpers/cluster.js'
import { randomBytes } from 'node:crypto'

const ready = await replicaAvailability()
const MAX_LAG_MS = 2000

describeOrSkip('read replica', { skip: !ready.ok && ready.reason }, () => {
  let primary: Cluster
  let replica: Standby
  let database: DatabaseHandle
  let app: App
  let writer: Tenant
  let reader: { authorization: string }

  before(async () => {
    if (!ready.ok) return
    ;({ primary, replica } = await startPrimaryAndReplica(ready))
    database = await openDatabase({ databaseUrl: primary.url, replicaUrl: replica.url, replicaMaxLagMs: MAX_LAG_MS })
    app = await buildApp(testConfig(), { database })
    await app.ready()
    writer = await tenant(database.db)
    const colleague = await addUser(database.db, writer.companyId)
    reader = { authorization: `Bearer ${(await createToken(database.db, systemActing(), colleague.id)).token}` }
  })
  after(async () => {
    await app.close()
    await database.close()
    await replica.cleanup()
  })

  const readyz = async (on: App = app) => (await on.inject({ method: 'GET', url: '/readyz' })).json<{ status: string; replica?: { state: string; lag_ms: number | null } }>()
  async function until(state: string, on: App = app) {
    for (let tries = 0; tries < 300; tries++) {
      if ((await readyz(on)).replica?.state === state) return
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
    assert.fail(`the replica never became ${state}: ${JSON.stringify(await readyz())}`)
  }
  const emails = async (auth: { authorization: string }, on: App = app) => {
    const res = await on.inject({ method: 'GET', url: '/api/v1/contacts?page=1&per_page=100', headers: auth })
    assert.equal(res.statusCode, 200, res.body)
    return res.json<{ data: { email: string }[] }>().data.map((c) => c.email)
  }
  const count = async (auth: { authorization: string }) => {
    const res = await app.inject({ method: 'GET', url: '/api/v1/contacts?page=1', headers: auth })
    return res.json<{ meta: { total_count: number } }>().meta.total_count
  }
  const create = async (email: string, on: App = app) => {
    const res = await on.inject({ method: 'POST', url: '/api/v1/contacts', headers: writer.auth, payload: { first_name: 'R', email } })
    assert.equal(res.statusCode, 201, res.body)
  }

  test('lists read the replica; the writing token reads its own write at once, another token once replayed', async () => {
    await until('ok')
    const status = await readyz()
    assert.equal(status.status, 'ok')
    assert.equal(status.replica?.state, 'ok')
    assert.ok(status.replica.lag_ms !== null && status.replica.lag_ms <= MAX_LAG_MS, JSON.stringify(status))
    await create('first@example.com')
    // Replay stopped: the replica keeps what it had; a token that did not write reads it there.
    await replica.pauseReplay()
    try {
      await create('second@example.com')
      assert.deepEqual((await emails(writer.auth)).sort(), ['first@example.com', 'second@example.com'], 'the writer: the primary')
      const seen = await emails(reader)
      assert.ok(!seen.includes('second@example.com'), `the other token read the paused replica: ${seen.join(', ')}`)
      assert.equal(await count(writer.auth), 2)
    } finally {
      await replica.resumeReplay()
    }
    // Replayed: the other token sees the write on the replica.
    for (let tries = 0; tries < 100 && !(await emails(reader)).includes('second@example.com'); tries++) {
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
    assert.deepEqual((await emails(reader)).sort(), ['first@example.com', 'second@example.com'])
  })

  test(`a replica lagging past DB_REPLICA_MAX_LAG_MS is skipped, and /readyz says so`, async () => {
    await until('ok')
    await replica.pauseReplay()
    try {
      await create('third@example.com')
      await until('lagging')
      const status = await readyz()
      assert.equal(status.status, 'ok')
      // Lagging past the bound; the answer rounds the lag, so 2000.4 ms reads 2000.
      assert.equal(status.replica?.state, 'lagging')
      assert.ok((status.replica.lag_ms ?? 0) >= MAX_LAG_MS, JSON.stringify(status))
      assert.ok((await emails(reader)).includes('third@example.com'), 'read on the primary')
    } finally {
      await replica.resumeReplay()
    }
    await until('ok')
  })

  test('a replica that is down is skipped: reads go to the primary, /readyz says down, and it is used again once back', async () => {
    await until('ok')
    await replica.stop()
    try {
      await create('fourth@example.com')
      assert.ok((await emails(reader)).includes('fourth@example.com'))
      assert.equal(await count(reader), 4)
      await until('down')
      assert.equal((await readyz()).status, 'ok')
    } finally {
      await replica.start()
    }
    await until('ok')
    // Back within the lag bound, it may still be replaying what it missed: another token's
    // read is allowed that staleness (docs/scaling.md), so it sees the fourth once replayed.
    for (let tries = 0; tries < 100 && (await count(reader)) !== 4; tries++) {
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
    assert.equal(await count(reader), 4)
  })

  test('with Redis, a token reads its own write through another instance; an instance that cannot reach Redis reads the primary', { skip: !process.env.REDIS_URL && 'REDIS_URL not set' }, async () => {
    // Three instances of one fleet: A takes the write, B and C the next reads (round robin).
    const keyPrefix = `engage:test:rw:${randomBytes(6).toString('hex')}:`
    const instance = async (redisUrl: string) => {
      const handle = await openDatabase({ databaseUrl: primary.url, replicaUrl: replica.url, replicaMaxLagMs: MAX_LAG_MS, redisUrl, redisKeyPrefix: keyPrefix, sharedWritesUnsureMs: 300 })
      const instanceApp = await buildApp(testConfig(), { database: handle })
      await instanceApp.ready()
      return { handle, app: instanceApp }
    }
    const a = await instance(process.env.REDIS_URL ?? '')
    const b = await instance(process.env.REDIS_URL ?? '')
    const c = await instance('redis://127.0.0.1:1') // nothing listens there
    try {
      for (const on of [a.app, b.app, c.app]) await until('ok', on)
      await new Promise((resolve) => setTimeout(resolve, 600)) // past unsureMs after Redis answered
      await replica.pauseReplay()
      try {
        await create('fifth@example.com', a.app)
        assert.ok((await emails(writer.auth, b.app)).includes('fifth@example.com'), 'B knew of the write through Redis: read the primary')
        assert.ok((await emails(writer.auth, c.app)).includes('fifth@example.com'), 'C could not ask Redis: read the primary')
        // The same B reads the paused replica for a token that did not write: the check above could fail.
        assert.ok(!(await emails(reader, b.app)).includes('fifth@example.com'), 'the other token reads the replica through B')
      } finally {
        await replica.resumeReplay()
      }
    } finally {
      for (const on of [a, b, c]) {
        await on.app.close()
        await on.handle.close()
      }
    }
  })
})
