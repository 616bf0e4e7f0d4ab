// The SDK's OAuth refresh (issue 27 item 6): on a 401 (token_expired, token_invalid) with a
// refresh token, one form-encoded refresh_token grant (RFC 6749 §6) to <origin>/oauth/token,
// the rotated tokens stored and told to onTokens, the request sent again once; concurrent
// requests share one refresh. A real HTTP server stands in for the token endpoint (RFC 6749
// §5.1 / §5.2 answers) and passes /api/ to the service.
import assert from 'node:assert/strict'
import { once } from 'node:events'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { after, before, describe, test } from 'node:test'
import { Engage, EngageError, type Tokens } from '../../sdk/src/index.js'
import { systemActing } from '../../src/acting.js'
import { createToken } from '../../src/modules/auth/tokens.service.js'
import { backends, startApp, type TestApp } from '../helpers/app.js'
import { tenant, type Tenant } from '../helpers/factories.js'
import { rememberSecret } from '../helpers/secrets.js'

const [backend] = backends()
const DAY = 24 * 60 * 60_000

interface TokenRequest {
  contentType: string | undefined
  form: Record<string, string>
}

describe('@engage/sdk refreshes an OAuth access token', () => {
  let t: TestApp
  let acme: Tenant
  let baseUrl: string
  let server: http.Server
  const grants: TokenRequest[] = []
  /** What the token endpoint answers next: a new access token, or an RFC 6749 §5.2 error. */
  let answer: () => Promise<{ status: number; body: object }>
  let rotations = 0

  const expiredToken = async () => (await createToken(t.db, systemActing(new Date(Date.now() - 2 * DAY)), acme.userId, { expiresInDays: 1 })).token

  before(async () => {
    if (!backend) throw new Error('no backend')
    t = await startApp(backend)
    acme = await tenant(t.db)
    answer = async () => {
      const { token } = await createToken(t.db, systemActing(), acme.userId)
      rotations++
      return { status: 200, body: { access_token: token, token_type: 'Bearer', expires_in: 3600, refresh_token: `refresh-${String(rotations)}-abcdefgh`, scope: 'contacts:read' } }
    }
    server = http.createServer((request, response) => {
      const chunks: Buffer[] = []
      request.on('data', (chunk: Buffer) => chunks.push(chunk))
      request.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8')
        void (async () => {
          if (request.url === '/oauth/token' && request.method === 'POST') {
            grants.push({ contentType: request.headers['content-type'], form: Object.fromEntries(new URLSearchParams(body)) })
            // Slow enough that concurrent refused requests find the refresh in flight.
            await new Promise((resolve) => setTimeout(resolve, 50))
            const { status, body: json } = await answer()
            response.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' }).end(JSON.stringify(json))
            return
          }
          const res = await t.app.inject({
            method: request.method as 'GET',
            url: request.url ?? '/',
            headers: request.headers,
            ...(body === '' ? {} : { payload: body }),
          })
          response.writeHead(res.statusCode, res.headers).end(res.rawPayload)
        })()
      })
    })
    server.listen(0, '127.0.0.1')
    await once(server, 'listening')
    baseUrl = `http://127.0.0.1:${String((server.address() as AddressInfo).port)}`
  })
  after(async () => {
    server.closeAllConnections()
    server.close()
    await t.close()
  })

  test('an expired token: one refresh_token grant, onTokens told the rotated pair, the request answered; later requests use the new token', async () => {
    grants.length = 0
    const told: Tokens[] = []
    const refreshToken = 'refresh-0-initial-token'
    rememberSecret(refreshToken)
    const sdk = new Engage({ baseUrl, token: await expiredToken(), refreshToken, clientId: 'app_123', onTokens: (tokens) => { told.push(tokens) } })
    const started = Date.now()
    const me = await sdk.users.authorize()
    assert.equal(me.user.id, acme.userId)
    assert.deepEqual(grants, [{
      contentType: 'application/x-www-form-urlencoded',
      form: { grant_type: 'refresh_token', refresh_token: refreshToken, client_id: 'app_123' },
    }])
    assert.equal(told.length, 1)
    const [tokens] = told
    assert.ok(tokens)
    assert.match(tokens.accessToken, /^eng_/)
    assert.match(tokens.refreshToken, /^refresh-\d+-abcdefgh$/)
    assert.ok(tokens.expiresAt && Math.abs(tokens.expiresAt.getTime() - (started + 3_600_000)) < 10_000)

    // The rotated refresh token is the one sent next time.
    await sdk.tags.list()
    assert.equal(grants.length, 1, 'the new access token works: no refresh')
  })

  test('concurrent requests refused at once share one refresh; a write sent again runs once (same Idempotency-Key)', async () => {
    grants.length = 0
    let told = 0
    const sdk = new Engage({ baseUrl, token: await expiredToken(), refreshToken: 'refresh-x-concurrent', clientId: 'app_123', onTokens: () => { told++ } })
    const results = await Promise.all([sdk.users.authorize(), sdk.tags.list(), sdk.customFields.list(), sdk.tags.create({ name: 'Refreshed', color: '#123456' })])
    assert.equal(results.length, 4)
    assert.equal(grants.length, 1, 'one refresh for four refused requests')
    assert.equal(told, 1)
    const tags = (await sdk.tags.list()).data.filter((tag) => tag.name === 'Refreshed')
    assert.equal(tags.length, 1)
  })

  test('a confidential app sends its client_secret in the form (client_secret_post); a revoked token (token_invalid) refreshes too', async () => {
    grants.length = 0
    const revoked = await createToken(t.db, systemActing(), acme.userId)
    await t.app.inject({ method: 'GET', url: '/api/v1/tags', headers: { authorization: `Bearer ${revoked.token}` } })
    const { revokeToken } = await import('../../src/modules/auth/tokens.service.js')
    await revokeToken(t.db, systemActing(), revoked.token)
    await new Promise((resolve) => setTimeout(resolve, 100)) // the cache hears the revocation
    const sdk = new Engage({ baseUrl, token: revoked.token, refreshToken: 'refresh-y-secret', clientId: 'app_456', clientSecret: 'app-secret-value-123' })
    await sdk.tags.list()
    assert.deepEqual(grants.map((grant) => grant.form), [
      { grant_type: 'refresh_token', refresh_token: 'refresh-y-secret', client_id: 'app_456', client_secret: 'app-secret-value-123' },
    ])
  })

  test('a refused refresh (400 invalid_grant) fails the request with that code, once; without a refresh token a 401 is thrown as before', async () => {
    grants.length = 0
    const previous = answer
    answer = () => Promise.resolve({ status: 400, body: { error: 'invalid_grant', error_description: 'The refresh token was already used' } })
    try {
      let told = 0
      const sdk = new Engage({ baseUrl, token: await expiredToken(), refreshToken: 'refresh-z-reused', clientId: 'app_123', onTokens: () => { told++ } })
      await assert.rejects(sdk.users.authorize(), (err: EngageError) => {
        assert.ok(err instanceof EngageError)
        assert.deepEqual([err.status, err.code, err.message], [400, 'invalid_grant', 'The refresh token was already used'])
        return true
      })
      assert.equal(grants.length, 1, 'no loop')
      assert.equal(told, 0)
    } finally {
      answer = previous
    }

    grants.length = 0
    const plain = new Engage({ baseUrl, token: await expiredToken() })
    await assert.rejects(plain.users.authorize(), (err: EngageError) => err.status === 401 && err.code === 'token_expired')
    const noClient = new Engage({ baseUrl, token: await expiredToken(), refreshToken: 'refresh-without-client' })
    await assert.rejects(noClient.users.authorize(), (err: EngageError) => err.code === 'token_expired')
    assert.equal(grants.length, 0)
  })

  test('another 401 or a 403 is not a reason to refresh', async () => {
    grants.length = 0
    const scoped = await createToken(t.db, systemActing(), acme.userId, { scopes: ['tags:read'] })
    const sdk = new Engage({ baseUrl, token: scoped.token, refreshToken: 'refresh-w-scope', clientId: 'app_123' })
    await assert.rejects(sdk.contacts.list({ page: 1 }), (err: EngageError) => err.status === 403 && err.code === 'insufficient_scope')
    assert.equal(grants.length, 0)
  })
})
