// Issue 38 §4: the API's 401 and 403 answers carry WWW-Authenticate (RFC 6750 section 3), as
// shared/CONTRACT.md section 9 and docs/access-control.md say, and the OpenAPI document
// declares it on every 401 and 403 response.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { systemActing } from '../../src/acting.js'
import { createToken, revokeToken } from '../../src/modules/auth/tokens.service.js'
import { backends, startApp, type TestApp } from '../helpers/app.js'
import { addUser, tenant, type Tenant } from '../helpers/factories.js'
import { rememberSecret } from '../helpers/secrets.js'

const [backend] = backends()
if (!backend) throw new Error('no backend')
const DAY = 24 * 60 * 60_000

describe('WWW-Authenticate on the API\'s 401 and 403', () => {
  let t: TestApp
  let acme: Tenant
  let now = new Date('2026-11-26T12:00:00.000Z')

  before(async () => {
    t = await startApp(backend, { deps: { clock: () => now } })
    acme = await tenant(t.db, { name: 'Acme' })
  })
  after(() => t.close())

  const get = (url: string, headers: Record<string, string> = {}) => t.app.inject({ url, headers })
  const bearer = (token: string) => ({ authorization: `Bearer ${token}` })

  test('no token: 401 with the realm alone', async () => {
    const res = await get('/api/v1/contacts?page=1')
    assert.equal(res.statusCode, 401)
    assert.equal(res.json().error.code, 'token_missing')
    assert.equal(res.headers['www-authenticate'], 'Bearer realm="engage"')
  })

  test('an unknown or revoked token: error="invalid_token"; the body stays the contract\'s', async () => {
    const unknown = await get('/api/v1/contacts?page=1', bearer(`eng_${'A'.repeat(32)}`))
    assert.equal(unknown.statusCode, 401)
    assert.deepEqual(unknown.json().error, { status: 401, message: 'Invalid api_token', code: 'token_invalid', request_id: unknown.headers['x-request-id'] })
    assert.equal(unknown.headers['www-authenticate'], 'Bearer realm="engage", error="invalid_token"')

    const made = await createToken(t.db, systemActing(now), acme.userId)
    rememberSecret(made.token)
    assert.equal((await get('/api/v1/contacts?page=1', bearer(made.token))).statusCode, 200)
    await revokeToken(t.db, systemActing(now), made.token)
    let revoked = await get('/api/v1/contacts?page=1', bearer(made.token))
    // Revocations reach the token cache through NOTIFY: prompt, not instant.
    for (let i = 0; i < 50 && revoked.statusCode !== 401; i++) {
      await new Promise((resolve) => setTimeout(resolve, 20))
      revoked = await get('/api/v1/contacts?page=1', bearer(made.token))
    }
    assert.equal(revoked.statusCode, 401)
    assert.equal(revoked.headers['www-authenticate'], 'Bearer realm="engage", error="invalid_token"')
  })

  test('an expired token: error="invalid_token" with error_description', async () => {
    const made = await createToken(t.db, systemActing(now), acme.userId, { expiresInDays: 1 })
    rememberSecret(made.token)
    now = new Date(now.getTime() + 2 * DAY)
    const res = await get('/api/v1/contacts?page=1', bearer(made.token))
    assert.equal(res.statusCode, 401)
    assert.equal(res.json().error.code, 'token_expired')
    assert.equal(res.headers['www-authenticate'], 'Bearer realm="engage", error="invalid_token", error_description="The access token expired"')
  })

  test('a token without the scope: 403 error="insufficient_scope" naming it; a member on an admin\'s operation: the realm', async () => {
    const scoped = await createToken(t.db, systemActing(now), acme.userId, { scopes: ['contacts:read'] })
    rememberSecret(scoped.token)
    const res = await t.app.inject({ method: 'POST', url: '/api/v1/tags', headers: bearer(scoped.token), payload: { name: 'Hot', color: '#fff' } })
    assert.equal(res.statusCode, 403)
    assert.deepEqual(res.json().error.details, { scope: ['tags:write'] })
    assert.equal(res.headers['www-authenticate'], 'Bearer realm="engage", error="insufficient_scope", scope="tags:write"')

    const user = await addUser(t.db, acme.companyId, { role: 'member' })
    const member = await createToken(t.db, systemActing(now), user.id)
    rememberSecret(member.token)
    const role = await get('/api/v1/audit_events', bearer(member.token))
    assert.equal(role.statusCode, 403)
    assert.equal(role.json().error.code, 'forbidden_role')
    assert.equal(role.headers['www-authenticate'], 'Bearer realm="engage"')
  })

  test('not on other answers, nor outside the API', async () => {
    const ok = await get('/api/v1/contacts?page=1', acme.auth)
    assert.equal(ok.statusCode, 200)
    assert.equal(ok.headers['www-authenticate'], undefined)
    const missing = await get('/api/v1/contacts/999999', acme.auth)
    assert.equal(missing.statusCode, 404)
    assert.equal(missing.headers['www-authenticate'], undefined)
  })

  test('the OpenAPI document declares the header on every 401 and 403', async () => {
    const doc = (await get('/docs/v1/openapi.json')).json<{ paths: Record<string, Record<string, { responses?: Record<string, { headers?: Record<string, unknown> }> }>> }>()
    let seen = 0
    for (const [path, item] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(item)) {
        for (const status of ['401', '403']) {
          const response = op.responses?.[status]
          if (!response) continue
          seen++
          assert.ok(response.headers?.['WWW-Authenticate'], `${method} ${path} ${status}`)
        }
      }
    }
    assert.ok(seen > 50, String(seen))
  })
})
