// Scoped and expiring api tokens: what is stored, the 401 of an expired token (cached or
// not), authorize_api's token object, the admin command line's --scopes and --expires-in-days.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { sql, rawRows } from '../helpers/sql.js'
import { systemActing } from '../../src/acting.js'
import { createToken, hashToken } from '../../src/modules/auth/tokens.service.js'
import { backends, startApp, type TestApp } from '../helpers/app.js'
import { expectFailure, expectJson, expectList, runAdmin } from '../helpers/cli.js'
import { tenant, type Tenant } from '../helpers/factories.js'

const DAY = 24 * 60 * 60_000

for (const backend of backends()) {
  describe(`scoped and expiring tokens (${backend.name})`, () => {
    let t: TestApp
    let acme: Tenant
    let now = new Date('2026-11-26T12:00:00.000Z')

    before(async () => {
      t = await startApp(backend, { deps: { clock: () => now } })
      acme = await tenant(t.db, { name: 'Acme' })
    })
    after(() => t.close())

    /** The stored scopes and expiry (as a Date) of a token. */
    async function stored(token: string) {
      const [row] = await rawRows<{ scopes: string[] | null; ms: number | null }>(
        t.db,
        sql`select scopes, (extract(epoch from expires_at) * 1000)::float8 as ms from api_tokens where token_hash = ${hashToken(token)}`,
      )
      return row && { scopes: row.scopes, expires_at: row.ms === null ? null : new Date(row.ms) }
    }

    test('every token made before keeps full access and no expiry (null, null)', async () => {
      assert.deepEqual(await stored(acme.token), { scopes: null, expires_at: null })
      const res = await t.app.inject({ url: '/api/v1/users/authorize_api', headers: acme.auth })
      assert.deepEqual(res.json().token, { scopes: ['*'], kind: 'personal', expires_at: null, app: null })
      assert.equal(res.headers['x-accepted-scopes'], '')
    })

    test('an expiring token works until its expiry, then answers 401 token_expired (also from the cache), on the address\'s limit', async () => {
      const made = await createToken(t.db, systemActing(now), acme.userId, { scopes: ['contacts:read'], expiresInDays: 30 })
      const expiresAt = new Date(now.getTime() + 30 * DAY)
      assert.deepEqual(await stored(made.token), { scopes: ['contacts:read'], expires_at: expiresAt })
      const headers = { authorization: `Bearer ${made.token}` }
      const ok = await t.app.inject({ url: '/api/v1/users/authorize_api', headers })
      assert.equal(ok.statusCode, 200)
      assert.deepEqual(ok.json().token, { scopes: ['contacts:read'], kind: 'personal', expires_at: expiresAt.toISOString(), app: null })
      assert.equal((await t.app.inject({ url: '/api/v1/contacts?page=1', headers })).statusCode, 200)

      now = new Date(expiresAt.getTime() - 1)
      assert.equal((await t.app.inject({ url: '/api/v1/contacts?page=1', headers })).statusCode, 200)
      now = expiresAt // cached a moment ago: the expiry is checked on every request
      const expired = await t.app.inject({ url: '/api/v1/contacts?page=1', headers })
      assert.equal(expired.statusCode, 401)
      assert.deepEqual(expired.json().error, { status: 401, message: 'Expired api_token', code: 'token_expired', request_id: expired.headers['x-request-id'] })
      assert.equal(expired.headers['x-accepted-scopes'], undefined, 'not authenticated')
      assert.ok(expired.headers['x-ratelimit-remaining'] !== undefined)
      now = new Date('2026-11-26T12:00:00.000Z')
    })

    test('an already expired token is refused on its first use, a valid one of the same user is not', async () => {
      const old = await createToken(t.db, systemActing(new Date(now.getTime() - 2 * DAY)), acme.userId, { expiresInDays: 1 })
      const res = await t.app.inject({ url: '/api/v1/users/authorize_api', headers: { authorization: `Bearer ${old.token}` } })
      assert.equal(res.statusCode, 401)
      assert.equal(res.json().error.code, 'token_expired')
      assert.equal((await t.app.inject({ url: '/api/v1/users/authorize_api', headers: acme.auth })).statusCode, 200)
    })

    test('the service refuses no scopes, an unknown scope and an expiry outside 1..365 days, and stores nothing', async () => {
      const [before] = await rawRows<{ n: number }>(t.db, sql`select count(*)::int as n from api_tokens`)
      await assert.rejects(createToken(t.db, systemActing(), acme.userId, { scopes: [] }), { statusCode: 422, details: { scopes: ["can't be blank"] } })
      for (const days of [0, 366, 1.5]) {
        await assert.rejects(createToken(t.db, systemActing(), acme.userId, { expiresInDays: days }), { statusCode: 422 })
      }
      const [after] = await rawRows<{ n: number }>(t.db, sql`select count(*)::int as n from api_tokens`)
      assert.deepEqual(after, before)
      // And the database refuses an empty set too.
      await assert.rejects(rawRows(t.db, sql`update api_tokens set scopes = '{}' where token_hash = ${hashToken(acme.token)}`), (err: Error) =>
        /api_tokens_scopes_check/.test(err.message))
    })

    test('admin command line: token create --scopes --expires-in-days, token list shows them', async () => {
      const made = expectJson(await runAdmin(['token', 'create', '--user', String(acme.userId), '--scopes', 'tasks:write,contacts:read', '--expires-in-days', '90', '--json'], { database: t.db }))
      assert.deepEqual(made.scopes, ['contacts:read', 'tasks:write'])
      const expiresAt = Date.parse(String(made.expires_at))
      assert.ok(Math.abs(expiresAt - (Date.now() + 90 * DAY)) < 60_000, String(made.expires_at))
      assert.deepEqual(await stored(String(made.token)), { scopes: ['contacts:read', 'tasks:write'], expires_at: new Date(expiresAt) })

      const full = expectJson(await runAdmin(['token', 'create', '--user', String(acme.userId), '--json'], { database: t.db }))
      assert.deepEqual([full.scopes, full.expires_at], [['*'], null])

      const listed = expectList(await runAdmin(['token', 'list', '--user', String(acme.userId), '--json'], { database: t.db }))
      const row = listed.find((token) => token.id === made.id)
      assert.ok(row)
      assert.deepEqual(row.scopes, ['contacts:read', 'tasks:write'])
      assert.equal(row.expires_at, made.expires_at)

      const [before] = await rawRows<{ n: number }>(t.db, sql`select count(*)::int as n from api_tokens`)
      expectFailure(await runAdmin(['token', 'create', '--user', String(acme.userId), '--scopes', 'contacts:read,contacts:delete'], { database: t.db }), /--scopes has unknown scopes: contacts:delete/)
      expectFailure(await runAdmin(['token', 'create', '--user', String(acme.userId), '--scopes', ','], { database: t.db }), /--scopes can't be blank/)
      expectFailure(await runAdmin(['token', 'create', '--user', String(acme.userId), '--expires-in-days', '0'], { database: t.db }), /--expires-in-days must be greater than or equal to 1/)
      expectFailure(await runAdmin(['token', 'create', '--user', String(acme.userId), '--expires-in-days', '366'], { database: t.db }), /--expires-in-days must be less than or equal to 365/)
      const [after] = await rawRows<{ n: number }>(t.db, sql`select count(*)::int as n from api_tokens`)
      assert.deepEqual(after, before)
    })
  })
}
