import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { systemActing } from '../../src/acting.js'
import { buildApp } from '../../src/app.js'
import { createToken, revokeToken } from '../../src/modules/auth/tokens.service.js'
import { REVOKE_CHANNEL } from '../../src/revocations.js'
import { tenant, type Tenant } from '../helpers/factories.js'
import { backends, startApp, testConfig, type TestApp } from '../helpers/app.js'
import { execute, rawRows, sql } from '../helpers/sql.js'
import { until } from '../helpers/until.js'

for (const backend of backends()) {
  describe(`authentication (${backend.name})`, () => {
    let t: TestApp
    let acme: Tenant

    before(async () => {
      t = await startApp(backend)
      acme = await tenant(t.db)
    })
    after(() => t.close())

    const authorize = (options: { headers?: Record<string, string>; query?: string; body?: object }) =>
      t.app.inject({
        method: 'GET',
        url: `/api/v1/users/authorize_api${options.query ? `?${options.query}` : ''}`,
        headers: { ...options.headers, ...(options.body ? { 'content-type': 'application/json' } : {}) },
        ...(options.body ? { payload: options.body } : {}),
      })

    test('token in the Authorization header, the query string or the body', async () => {
      assert.equal((await authorize({ headers: acme.auth })).statusCode, 200)
      assert.equal((await authorize({ query: `api_token=${acme.token}` })).statusCode, 200)
      assert.equal((await authorize({ body: { api_token: acme.token } })).statusCode, 200)
    })

    test('header wins over query, query over body', async () => {
      assert.equal((await authorize({ headers: acme.auth, query: 'api_token=wrong' })).statusCode, 200)
      assert.equal((await authorize({ headers: { authorization: 'Bearer wrong' }, query: `api_token=${acme.token}` })).statusCode, 401)
      assert.equal((await authorize({ query: `api_token=${acme.token}`, body: { api_token: 'wrong' } })).statusCode, 200)
      assert.equal((await authorize({ query: 'api_token=wrong', body: { api_token: acme.token } })).statusCode, 401)
    })

    test('missing token: 401 Missing api_token', async () => {
      const res = await authorize({})
      assert.equal(res.statusCode, 401)
      assert.deepEqual(res.json(), {
        error: { status: 401, message: 'Missing api_token', code: 'token_missing', request_id: res.headers['x-request-id'] },
      })
    })

    test('unknown token: 401 Invalid api_token', async () => {
      for (const token of ['eng_nope', '', 'Bearer']) {
        const res = await authorize({ headers: { authorization: `Bearer ${token}` } })
        assert.equal(res.statusCode, 401, token)
        assert.equal(res.json().error.message, 'Invalid api_token')
      }
      const nonString = await authorize({ body: { api_token: 12345 } })
      assert.equal(nonString.json().error.message, 'Invalid api_token')
    })

    test('a revoked token stops working at once, even though it was cached', async () => {
      const { token } = await createToken(t.db, systemActing(), acme.userId)
      const headers = { authorization: `Bearer ${token}` }
      assert.equal((await authorize({ headers })).statusCode, 200) // now cached
      await revokeToken(t.db, systemActing(), token)
      // The NOTIFY reaches the server's LISTEN asynchronously; it is prompt, not instant.
      let status = 200
      for (let i = 0; i < 50 && status === 200; i++) {
        await new Promise((resolve) => setTimeout(resolve, 20))
        status = (await authorize({ headers })).statusCode
      }
      assert.equal(status, 401)
      assert.equal((await authorize({ headers: acme.auth })).statusCode, 200)
    })

    test('an app closed before its database stops listening for revocations: no connection left behind', async () => {
      const listening = async () =>
        (await rawRows<{ n: number }>(t.db, sql`select count(*)::int as n from pg_stat_activity where datname = current_database() and query = ${`LISTEN "${REVOKE_CHANNEL}"`}`))[0]?.n
      assert.equal(await listening(), 1, "the test app's own")
      for (let i = 0; i < 3; i++) {
        const other = await buildApp(testConfig(), { database: t.database })
        await other.ready()
        assert.equal(await listening(), 2)
        await other.close()
        // The server notices the closed connection a moment after the client has gone.
        await until('the closed app\'s LISTEN connection gone', async () => ((await listening()) === 1 ? true : undefined), 5000)
      }
    })

    test('tokens of an inactive user are refused', async () => {
      const other = await tenant(t.db)
      await execute(t.db, sql`update users set active = false where id = ${other.userId}`)
      const res = await authorize({ headers: other.auth })
      assert.equal(res.statusCode, 401)
    })

    test('only a hash of the token is stored', async () => {
      const { token, prefix } = await createToken(t.db, systemActing(), acme.userId)
      assert.match(token, /^eng_[A-Za-z0-9_-]{32}$/)
      assert.equal(prefix, token.slice(0, 12))
      const rows = await rawRows<{ token_hash: string }>(t.database.db, sql`select token_hash from api_tokens`)
      assert.ok(rows.length > 0)
      for (const row of rows) {
        assert.notEqual(row.token_hash, token)
        assert.match(row.token_hash, /^[0-9a-f]{64}$/)
      }
    })
  })
}
