// "Last used" of api tokens: noted in memory per request, written at most once a minute per
// token (one statement for all of them), never a write per API request.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { buildApp } from '../../src/app.js'
import { LastUsedTracker } from '../../src/modules/auth/last-used.js'
import { systemActing } from '../../src/acting.js'
import { createToken } from '../../src/modules/auth/tokens.service.js'
import { backends, testConfig, type Backend } from '../helpers/app.js'
import { tenant, type Tenant } from '../helpers/factories.js'
import { rawRows, sql } from '../helpers/sql.js'

const [firstBackend] = backends()
if (!firstBackend) throw new Error('no backend')
const backend: Backend = firstBackend

describe('last used of api tokens', () => {
  let opened: Awaited<ReturnType<Backend['open']>>
  let acme: Tenant
  before(async () => {
    opened = await backend.open()
    acme = await tenant(opened.database.db)
  })
  after(() => opened.drop())

  const lastUsed = async (id: number) =>
    (await rawRows<{ lastUsedAt: Date | null }>(opened.database.db, sql`select last_used_at as "lastUsedAt" from api_tokens where id = ${id}`))[0]?.lastUsedAt ?? null

  test('uses are written at the flush, one write per token however many requests; within a minute of the last write, none', async () => {
    const db = opened.database.db
    const a = await createToken(db, systemActing(), acme.userId)
    const b = await createToken(db, systemActing(), acme.userId)
    let now = Date.parse('2026-11-22T10:00:00.000Z')
    const errors: unknown[] = []
    const tracker = new LastUsedTracker(db, (err) => errors.push(err), () => now)
    for (let i = 0; i < 100; i++) {
      now += 100
      tracker.touch(a.id, acme.companyId)
    }
    tracker.touch(b.id, acme.companyId)
    assert.equal(await lastUsed(a.id), null, 'nothing written before the flush')
    await tracker.flush()
    assert.equal((await lastUsed(a.id))?.toISOString(), '2026-11-22T10:00:10.000Z', 'the latest use')
    assert.equal((await lastUsed(b.id))?.toISOString(), '2026-11-22T10:00:10.000Z')

    now += 30_000 // another instance (or this one) used it again half a minute later: not worth a write
    tracker.touch(a.id, acme.companyId)
    await tracker.flush()
    assert.equal((await lastUsed(a.id))?.toISOString(), '2026-11-22T10:00:10.000Z')
    now += 31_000
    tracker.touch(a.id, acme.companyId)
    await tracker.stop()
    assert.equal((await lastUsed(a.id))?.toISOString(), '2026-11-22T10:01:11.000Z')
    assert.deepEqual(errors, [])
  })

  test('API requests write nothing themselves; the app writes the uses when it closes (or once a minute)', async () => {
    const { token, id } = await createToken(opened.database.db, systemActing(), acme.userId)
    const app = await buildApp(testConfig(), { database: opened.database })
    try {
      for (let i = 0; i < 20; i++) {
        const res = await app.inject({ url: '/api/v1/users/authorize_api', headers: { authorization: `Bearer ${token}` } })
        assert.equal(res.statusCode, 200)
      }
      assert.equal(await lastUsed(id), null, 'no write per request')
    } finally {
      await app.close()
    }
    const written = await lastUsed(id)
    assert.ok(written && Date.now() - written.getTime() < 60_000, String(written))
  })
})
