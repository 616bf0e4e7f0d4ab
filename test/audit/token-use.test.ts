// The audit records of api token use, written off the request path (issue 28):
// `api_token.use_refused` (reason `expired`) once per expired token, however many requests
// and instances; `api_token.used_from_new_address` once per address not seen for the token in
// 30 days, by the last-used flush, with the address, user agent and request id of the first
// request from it. Valid requests write nothing themselves.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { buildApp } from '../../src/app.js'
import { LastUsedTracker } from '../../src/modules/auth/last-used.js'
import { systemActing } from '../../src/acting.js'
import { createToken, recordExpiredRefusal } from '../../src/modules/auth/tokens.service.js'
import { backends, testConfig, type Backend } from '../helpers/app.js'
import { tenant, type Tenant } from '../helpers/factories.js'
import { sql, rawRows } from '../helpers/sql.js'
import { allAuditRows, recordsOf } from './helpers.js'

const [firstBackend] = backends()
if (!firstBackend) throw new Error('no backend')
const backend: Backend = firstBackend
const DAY = 24 * 60 * 60_000

describe('audit records of api token use', () => {
  let opened: Awaited<ReturnType<Backend['open']>>
  let acme: Tenant
  before(async () => {
    opened = await backend.open()
    acme = await tenant(opened.database.db, { name: 'Acme' })
  })
  after(() => opened.drop())

  const addresses = (tokenId: number) =>
    rawRows<{ ip: string; first: string; last: string }>(
      opened.database.db,
      sql`select ip, to_char(first_seen_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS') as first,
                 to_char(last_seen_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS') as last
            from api_token_addresses where token_id = ${tokenId} order by ip`,
    )

  test('an expired token: one record at its first refusal, none for the next requests nor from a second instance', async () => {
    const db = opened.database.db
    let now = new Date('2026-11-26T12:00:00.000Z')
    const made = await createToken(db, systemActing(now), acme.userId, { expiresInDays: 1 })
    const one = await buildApp(testConfig(), { database: opened.database, clock: () => now })
    const two = await buildApp(testConfig(), { database: opened.database, clock: () => now })
    const apps = [one, two]
    try {
      const call = (index: number, requestId: string) =>
        (index === 0 ? one : two).inject({
          url: '/api/v1/users/authorize_api',
          remoteAddress: '198.51.100.4',
          headers: { authorization: `Bearer ${made.token}`, 'user-agent': 'Expired/1.0', 'x-request-id': requestId },
        })
      const rows = await recordsOf(db, async () => {
        assert.equal((await call(0, 'req-valid')).statusCode, 200)
        now = new Date(now.getTime() + 2 * DAY)
        const first = await call(0, 'req-first-refusal')
        assert.equal(first.statusCode, 401)
        assert.equal(first.json().error.code, 'token_expired')
        // The other instance, and then both again at once: already recorded.
        const more = await Promise.all([call(1, 'req-2'), call(0, 'req-3'), call(1, 'req-4')])
        assert.deepEqual(more.map((res) => res.statusCode), [401, 401, 401])
      })
      assert.equal(rows.filter((row) => row.action !== 'api_token.used_from_new_address').length, 1, JSON.stringify(rows))
      const [row] = rows.filter((r) => r.action === 'api_token.use_refused')
      assert.ok(row)
      assert.deepEqual(
        { actor: [row.actor_type, row.actor_id], target: [row.target_type, row.target_id], outcome: row.outcome, reason: row.reason },
        { actor: ['api_token', made.id], target: ['api_token', made.id], outcome: 'failure', reason: 'expired' },
      )
      assert.deepEqual([row.ip, row.user_agent, row.request_id, row.company_id], ['198.51.100.4', 'Expired/1.0', 'req-first-refusal', acme.companyId])
      assert.equal(row.target_label, `${made.prefix}…`)
      assert.equal(new Date(row.occurred_at).toISOString(), now.toISOString())
    } finally {
      for (const app of apps) await app.close()
    }
  })

  test('racing refusals (instances that never saw each other) record once: the guard is in the database', async () => {
    const db = opened.database.db
    const made = await createToken(db, systemActing(new Date(Date.now() - 2 * DAY)), acme.userId, { expiresInDays: 1 })
    const context = { actor: { type: 'api_token' as const, id: made.id, label: null }, ip: '192.0.2.1', userAgent: null, requestId: null }
    const caller = { companyId: acme.companyId, tokenId: made.id }
    const rows = await recordsOf(db, async () => {
      const results = await Promise.all(Array.from({ length: 5 }, () => recordExpiredRefusal(db, { ...caller, audit: context, now: new Date() })))
      assert.deepEqual(results.filter(Boolean).length, 1)
    })
    assert.deepEqual(rows.map((row) => [row.action, row.target_id]), [['api_token.use_refused', made.id]])
  })

  test('a valid token used from a new address: one record at the flush, with the first request from it; an address seen again, none', async () => {
    const db = opened.database.db
    const made = await createToken(db, systemActing(), acme.userId)
    const app = await buildApp(testConfig(), { database: opened.database })
    const call = (ip: string, requestId: string, agent = 'Client/2.0') =>
      app.inject({
        url: '/api/v1/users/authorize_api',
        remoteAddress: ip,
        headers: { authorization: `Bearer ${made.token}`, 'user-agent': agent, 'x-request-id': requestId },
      })
    let closed = false
    const rows = await recordsOf(db, async () => {
      try {
        for (let i = 0; i < 5; i++) assert.equal((await call('203.0.113.9', `req-a${String(i)}`)).statusCode, 200)
        assert.equal((await call('2001:db8::7', 'req-b0', 'Other/1.0')).statusCode, 200)
        assert.equal((await call('203.0.113.9', 'req-a5')).statusCode, 200)
        assert.deepEqual(await allAuditRows(db).then((all) => all.filter((row) => row.target_id === made.id && row.action !== 'api_token.created')), [],
          'nothing written by the requests themselves')
      } finally {
        await app.close() // flushes
        closed = true
      }
    }, true)
    assert.ok(closed)
    const records = rows.map((row) => ({ action: row.action, actor: [row.actor_type, row.actor_id], target: row.target_id, ip: row.ip, ua: row.user_agent, req: row.request_id }))
    assert.deepEqual(records.sort((a, b) => String(a.ip).localeCompare(String(b.ip))), [
      { action: 'api_token.used_from_new_address', actor: ['api_token', made.id], target: made.id, ip: '2001:db8::7', ua: 'Other/1.0', req: 'req-b0' },
      { action: 'api_token.used_from_new_address', actor: ['api_token', made.id], target: made.id, ip: '203.0.113.9', ua: 'Client/2.0', req: 'req-a0' },
    ])
    assert.deepEqual((await addresses(made.id)).map((row) => row.ip), ['2001:db8::7', '203.0.113.9'])
  })

  test('the flush: seen within 30 days no record (last_seen_at moves at most hourly); unseen for 30 days a record; two instances at once, one', async () => {
    const db = opened.database.db
    const made = await createToken(db, systemActing(), acme.userId)
    let now = Date.parse('2026-11-01T10:00:00.000Z')
    const errors: unknown[] = []
    const tracker = () => new LastUsedTracker(db, (err) => errors.push(err), () => now)
    const origin = (requestId: string) => () => ({ ip: '192.0.2.50', userAgent: 'T', requestId })
    const flushOnce = async (requestId: string) => {
      const one = tracker()
      one.touch(made.id, acme.companyId, '192.0.2.50', origin(requestId))
      return recordsOf(db, () => one.flush(), true)
    }
    assert.deepEqual((await flushOnce('r1')).map((row) => [row.action, row.request_id]), [['api_token.used_from_new_address', 'r1']])
    now += 30 * 60_000
    assert.deepEqual(await flushOnce('r2'), [], 'seen half an hour ago')
    assert.deepEqual((await addresses(made.id))[0]?.last, '2026-11-01T10:00:00', 'moved at most once an hour')
    now += 60 * 60_000
    assert.deepEqual(await flushOnce('r3'), [])
    assert.deepEqual((await addresses(made.id))[0]?.last, '2026-11-01T11:30:00')
    now += 29 * DAY
    assert.deepEqual(await flushOnce('r4'), [], 'seen 29 days ago')
    now += 30 * DAY + 60_000
    const back = await flushOnce('r5')
    assert.deepEqual(back.map((row) => [row.action, row.request_id, new Date(row.occurred_at).getTime()]), [['api_token.used_from_new_address', 'r5', now]])
    assert.deepEqual(await addresses(made.id), [{ ip: '192.0.2.50', first: new Date(now).toISOString().slice(0, 19), last: new Date(now).toISOString().slice(0, 19) }])

    // Two instances flush the same new address at once: the upsert returns it to one.
    const [a, b] = [tracker(), tracker()]
    a.touch(made.id, acme.companyId, '192.0.2.51', origin('ra'))
    b.touch(made.id, acme.companyId, '192.0.2.51', origin('rb'))
    const raced = await recordsOf(db, () => Promise.all([a.flush(), b.flush()]), true)
    assert.equal(raced.length, 1, JSON.stringify(raced))
    assert.equal(raced[0]?.ip, '192.0.2.51')
    assert.deepEqual(errors, [])
  })

  test('a failed flush records nothing and leaves the addresses unwritten (one transaction)', async () => {
    const db = opened.database.db
    const made = await createToken(db, systemActing(), acme.userId)
    const tracker = new LastUsedTracker(db, () => undefined)
    // A user agent the column cannot hold fails the record after the addresses' upsert.
    tracker.touch(made.id, acme.companyId, '192.0.2.60', () => ({ ip: '192.0.2.60', userAgent: 'x'.repeat(600), requestId: 'r' }))
    const rows = await recordsOf(db, () => assert.rejects(tracker.flush()), true)
    assert.deepEqual(rows, [])
    assert.deepEqual(await addresses(made.id), [])
  })
})
