// Issue 38's OAuth findings, through the app (inject), each with the database's state after:
// repeated parameters refused on every endpoint (RFC 6749 §3.1, §3.2), text PostgreSQL cannot
// store (NUL, lone surrogates) refused before any statement, the issuer from PUBLIC_URL only
// (RFC 8414) and `iss` in every authorization response (RFC 9207), a token request without
// redirect_uri when the authorization request had none (RFC 6749 §4.1.3), and no lockout of an
// app by requests that merely name it.
import assert from 'node:assert/strict'
import { Writable } from 'node:stream'
import { after, before, describe, test } from 'node:test'
import { buildApp } from '../../src/app.js'
import { systemActing } from '../../src/acting.js'
import { challengeOf } from '../../src/modules/oauth/oauth.protocol.js'
import { registerApp } from '../../src/modules/oauth-server/oauth-server.service.js'
import { backends, startApp, testConfig, type TestApp } from '../helpers/app.js'
import { tenant } from '../helpers/factories.js'
import { rawRows, sql } from '../helpers/sql.js'
import { Browser, csrfOf, member } from '../web/helpers.js'

const [firstBackend] = backends()
if (!firstBackend) throw new Error('no backend')
const backend = firstBackend

const REDIRECT = 'https://app.example.com/callback'
const VERIFIER = 'conformance-verifier-'.padEnd(64, 'v')
const CHALLENGE = challengeOf(VERIFIER)
const FORM = { 'content-type': 'application/x-www-form-urlencoded' }

interface Client {
  clientId: string
  secret: string
}

/** The log lines the app writes, parsed. */
function logLines() {
  const lines: { level: number; msg: string; [key: string]: unknown }[] = []
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString().split('\n')) if (line.trim()) lines.push(JSON.parse(line) as (typeof lines)[number])
      done()
    },
  })
  return { lines, stream }
}

async function countRows(t: TestApp, table: 'oauth_grants' | 'oauth_codes' | 'oauth_refresh_tokens' | 'api_tokens') {
  const [row] = await rawRows<{ n: number }>(t.db, sql`select count(*)::int as n from ${sql.raw(table)}`)
  return row?.n ?? -1
}

describe('OAuth conformance (issue 38)', () => {
  let t: TestApp
  let browser: Browser
  let app: Client
  let single: Client
  const log = logLines()

  before(async () => {
    // 60 requests a window, as in production, so that 100 requests cross it.
    t = await startApp(backend, { config: { rateLimit: { max: 60, windowMs: 60_000, keyPrefix: `engage:test:oauth38-${String(Date.now())}:` } }, deps: { logger: { level: 'info', stream: log.stream } } })
    const maker = await tenant(t.db, { name: 'Maker' })
    const acme = await tenant(t.db, { name: 'Acme' })
    const made = await registerApp(t.db, { companyId: maker.companyId, ...systemActing() }, { name: 'Two URIs', redirectUris: [REDIRECT, 'https://app.example.com/other'], scopes: ['contacts:read'] })
    app = { clientId: made.app.client_id, secret: made.clientSecret ?? '' }
    const one = await registerApp(t.db, { companyId: maker.companyId, ...systemActing() }, { name: 'One URI', redirectUris: [REDIRECT], scopes: ['contacts:read'] })
    single = { clientId: one.app.client_id, secret: one.clientSecret ?? '' }
    const user = await member(t.db, acme.companyId, { email: 'rita@acme.test', name: 'Rita' })
    browser = new Browser(t.app)
    assert.equal((await browser.signIn(user.email)).status, 303)
  })
  after(() => t.close())

  const params = (client: Client, extra: Record<string, string | undefined> = {}) => {
    const all: Record<string, string | undefined> = { response_type: 'code', client_id: client.clientId, redirect_uri: REDIRECT, scope: 'contacts:read', state: 's1', code_challenge: CHALLENGE, code_challenge_method: 'S256', ...extra }
    return Object.entries(all).filter((entry): entry is [string, string] => entry[1] !== undefined)
  }
  const authorizeUrl = (client: Client, extra: Record<string, string | undefined> = {}) => `/oauth/authorize?${new URLSearchParams(params(client, extra)).toString()}`

  /** The consent form's fields as the page carries them. */
  async function consentFields(url: string): Promise<[string, string][]> {
    const page = await browser.get(url)
    assert.equal(page.status, 200, page.body)
    const fields: [string, string][] = [['_csrf', csrfOf(page.body, '/oauth/authorize')]]
    for (const match of page.body.matchAll(/<input type="hidden" name="([a-z_]+)" value="([^"]*)">/g)) {
      if (match[1] !== '_csrf') fields.push([match[1] ?? '', (match[2] ?? '').replace(/&amp;/g, '&')])
    }
    return fields
  }

  async function allow(url: string): Promise<URL> {
    const fields = await consentFields(url)
    const answer = await browser.request('POST', '/oauth/authorize', new URLSearchParams([...fields, ['decision', 'allow']]).toString())
    assert.equal(answer.status, 303, answer.body)
    return new URL(answer.location ?? '')
  }

  const basic = (client: Client, secret = client.secret) => `Basic ${Buffer.from(`${encodeURIComponent(client.clientId)}:${encodeURIComponent(secret)}`).toString('base64')}`
  const post = (path: string, body: string, headers: Record<string, string> = {}, remoteAddress = '127.0.0.1') =>
    t.app.inject({ method: 'POST', url: path, headers: { ...FORM, ...headers }, payload: body, remoteAddress })
  const exchange = (code: string, client: Client = app, extra: [string, string][] = [['redirect_uri', REDIRECT]]) =>
    post('/oauth/token', new URLSearchParams([['grant_type', 'authorization_code'], ['code', code], ['code_verifier', VERIFIER], ...extra]).toString(), { authorization: basic(client) })

  async function tokensFor(client: Client = app) {
    const code = (await allow(authorizeUrl(client))).searchParams.get('code') ?? ''
    const res = await exchange(code, client)
    assert.equal(res.statusCode, 200, res.body)
    return res.json<{ access_token: string; refresh_token: string }>()
  }

  describe('a parameter given twice is refused (RFC 6749 §3.1, §3.2)', () => {
    test('GET /oauth/authorize: an error page for each parameter repeated, the registered value last; never the consent page or a redirect', async () => {
      const repeats: [string, string][] = [
        ['redirect_uri', 'https://evil.example/'],
        ['client_id', 'engc_someoneelse'],
        ['response_type', 'token'],
        ['state', 'other'],
        ['scope', 'contacts:read'],
        ['code_challenge', challengeOf('x'.repeat(43))],
        ['code_challenge_method', 'plain'],
      ]
      for (const [name, first] of repeats) {
        const query = new URLSearchParams([[name, first], ...params(app)]).toString()
        const page = await browser.get(`/oauth/authorize?${query}`)
        assert.equal(page.status, 400, `${name}: ${String(page.status)}`)
        assert.equal(page.location, undefined, name)
        assert.match(page.body, /This authorization link cannot be used/)
        assert.match(page.body, new RegExp(`${name} more than once`))
        assert.doesNotMatch(page.body, /Allow “/)
      }
    })

    test('POST /oauth/authorize: a repeated hidden field is an error page and makes no grant or code', async () => {
      const grants = await countRows(t, 'oauth_grants')
      const fields = await consentFields(authorizeUrl(app))
      for (const name of ['redirect_uri', 'client_id', 'scope', 'code_challenge', 'decision']) {
        const body = new URLSearchParams([[name, name === 'redirect_uri' ? 'https://app.example.com/other' : 'allow'], ...fields, ['decision', 'allow']]).toString()
        const answer = await browser.request('POST', '/oauth/authorize', body)
        assert.equal(answer.status, 400, `${name}: ${answer.body.slice(0, 200)}`)
        assert.equal(answer.location, undefined)
        assert.match(answer.body, new RegExp(`${name} more than once`))
      }
      assert.equal(await countRows(t, 'oauth_grants'), grants)
    })

    test('/oauth/token: code=bogus&code=<real> and a repeated grant_type are invalid_request; the code still works once after', async () => {
      const code = (await allow(authorizeUrl(app))).searchParams.get('code') ?? ''
      const tokens = await countRows(t, 'oauth_refresh_tokens')
      const twice = await post('/oauth/token', new URLSearchParams([['grant_type', 'authorization_code'], ['code', 'bogus'], ['code', code], ['redirect_uri', REDIRECT], ['code_verifier', VERIFIER]]).toString(), { authorization: basic(app) })
      assert.equal(twice.statusCode, 400)
      assert.deepEqual(twice.json(), { error: 'invalid_request', error_description: 'code is given more than once (RFC 6749 §3.2)' })
      const grantTwice = await post('/oauth/token', new URLSearchParams([['grant_type', 'refresh_token'], ['grant_type', 'authorization_code'], ['code', code], ['redirect_uri', REDIRECT], ['code_verifier', VERIFIER]]).toString(), { authorization: basic(app) })
      assert.equal(grantTwice.statusCode, 400)
      assert.equal(grantTwice.json().error, 'invalid_request')
      assert.equal(await countRows(t, 'oauth_refresh_tokens'), tokens, 'no token was issued')
      assert.equal((await exchange(code)).statusCode, 200, 'the refusals did not use the code')
    })

    test('/oauth/revoke and /oauth/introspect: a repeated token or client_id is invalid_request, and nothing is revoked', async () => {
      const { access_token: access } = await tokensFor()
      for (const path of ['/oauth/revoke', '/oauth/introspect']) {
        const tokenTwice = await post(path, new URLSearchParams([['token', 'nope'], ['token', access]]).toString(), { authorization: basic(app) })
        assert.equal(tokenTwice.statusCode, 400, path)
        assert.deepEqual(tokenTwice.json(), { error: 'invalid_request', error_description: 'token is given more than once (RFC 6749 §3.2)' })
        const clientTwice = await post(path, new URLSearchParams([['client_id', app.clientId], ['client_id', app.clientId], ['client_secret', app.secret], ['token', access]]).toString())
        assert.equal(clientTwice.statusCode, 400, path)
        assert.equal(clientTwice.json().error, 'invalid_request')
      }
      const still = await post('/oauth/introspect', new URLSearchParams({ token: access }).toString(), { authorization: basic(app) })
      assert.equal(still.json().active, true)
    })
  })

  describe('text no statement can take is refused before any runs (NUL, lone surrogates, huge values)', () => {
    const nul = 'engc_\u0000x'
    test('/oauth/token, /oauth/revoke, /oauth/introspect: NUL in client_id (form field or Basic user) is a 4xx JSON error, never a 500', async () => {
      for (const path of ['/oauth/token', '/oauth/revoke', '/oauth/introspect']) {
        const inForm = await post(path, new URLSearchParams({ client_id: nul, client_secret: 'x', grant_type: 'refresh_token', refresh_token: 'r', token: 't' }).toString())
        assert.equal(inForm.statusCode, 400, `${path}: ${inForm.body}`)
        assert.equal(inForm.json().error, 'invalid_request')
        assert.match(inForm.json().error_description, /^client_id contains a character that cannot be stored/)
        const inBasic = await post(path, new URLSearchParams({ grant_type: 'refresh_token', refresh_token: 'r', token: 't' }).toString(), { authorization: basic({ clientId: nul, secret: 's' }) })
        assert.equal(inBasic.statusCode, 401, `${path}: ${inBasic.body}`)
        assert.equal(inBasic.json().error, 'invalid_client')
        const names = path === '/oauth/token' ? ['client_secret', 'grant_type', 'code', 'redirect_uri', 'code_verifier', 'refresh_token', 'scope'] : ['client_secret', 'token', 'token_type_hint']
        for (const name of names) {
          const res = await post(path, `${name}=a%00b&client_id=${app.clientId}`)
          assert.equal(res.statusCode, 400, `${path} ${name}: ${res.body}`)
          assert.equal(res.json().error, 'invalid_request')
        }
        const surrogate = await post(path, `client_id=%ED%A0%80&token=t`)
        assert.equal(surrogate.statusCode, 400, `${path}: ${surrogate.body}`)
        assert.equal(surrogate.json().error, 'invalid_request')
        const huge = await post(path, new URLSearchParams({ client_id: 'c'.repeat(10_000), token: 't' }).toString())
        assert.equal(huge.statusCode, 400)
        assert.match(huge.json().error_description, /^client_id is too long \(maximum is 255 characters\)/)
      }
    })

    test('GET and POST /oauth/authorize: NUL or a lone surrogate in any parameter is the error page, never a 500 or a redirect', async () => {
      for (const name of ['client_id', 'redirect_uri', 'response_type', 'scope', 'state', 'code_challenge', 'code_challenge_method']) {
        const query = params(app)
          .map(([key, value]) => `${key}=${key === name ? 'a%00b' : encodeURIComponent(value)}`)
          .join('&')
        const page = await browser.get(`/oauth/authorize?${query}`)
        assert.equal(page.status, 400, `${name}: ${page.body.slice(0, 300)}`)
        assert.equal(page.location, undefined)
        assert.match(page.body, new RegExp(`${name} contains a character that cannot be stored`))
      }
      const signedOut = await t.app.inject({ url: `/oauth/authorize?client_id=a%00b&response_type=code` })
      assert.equal(signedOut.statusCode, 400)
      const grants = await countRows(t, 'oauth_grants')
      const fields = await consentFields(authorizeUrl(app))
      const body = fields.map(([key, value]) => `${key}=${key === 'client_id' ? 'a%00b' : encodeURIComponent(value)}`).join('&') + '&decision=allow'
      const answer = await browser.request('POST', '/oauth/authorize', body)
      assert.equal(answer.status, 400, answer.body.slice(0, 300))
      assert.match(answer.body, /client_id contains a character that cannot be stored/)
      const lone = await browser.request('POST', '/oauth/authorize', `${fields.map(([key, value]) => `${key}=${encodeURIComponent(value)}`).join('&')}&decision=%ED%A0%80`)
      assert.equal(lone.status, 400)
      assert.equal(await countRows(t, 'oauth_grants'), grants)
    })
  })

  describe('the issuer and RFC 9207', () => {
    test('metadata: the issuer ignores the Host header, is sent no-store without PUBLIC_URL, and announces the iss parameter', async () => {
      const res = await t.app.inject({ url: '/.well-known/oauth-authorization-server', headers: { host: 'evil.example' } })
      assert.equal(res.statusCode, 200)
      const body = res.json()
      assert.equal(body.issuer, `http://localhost:${String(t.app.config.port)}`)
      assert.doesNotMatch(res.body, /evil\.example/)
      assert.equal(res.headers['cache-control'], 'no-store')
      assert.equal(body.authorization_response_iss_parameter_supported, true)
    })

    test('the code, a refusal and an error sent to the app carry iss, the metadata\'s issuer', async () => {
      const issuer = `http://localhost:${String(t.app.config.port)}`
      const allowed = await allow(authorizeUrl(app, { state: 'with-iss' }))
      assert.ok(allowed.searchParams.get('code'))
      assert.equal(allowed.searchParams.get('iss'), issuer)
      assert.equal(allowed.searchParams.get('state'), 'with-iss')
      const fields = await consentFields(authorizeUrl(app))
      const denied = await browser.request('POST', '/oauth/authorize', new URLSearchParams([...fields, ['decision', 'deny']]).toString())
      const deniedTo = new URL(denied.location ?? '')
      assert.equal(deniedTo.searchParams.get('error'), 'access_denied')
      assert.equal(deniedTo.searchParams.get('iss'), issuer)
      const failed = await browser.get(authorizeUrl(app, { code_challenge_method: 'plain' }))
      assert.equal(failed.status, 303)
      const failedTo = new URL(failed.location ?? '')
      assert.equal(failedTo.searchParams.get('error'), 'invalid_request')
      assert.equal(failedTo.searchParams.get('iss'), issuer)
    })
  })

  describe('redirect_uri in the token request (RFC 6749 §4.1.3)', () => {
    test('an authorization request without redirect_uri (one registered URI): the token request may omit it, or name that URI', async () => {
      const to = await allow(authorizeUrl(single, { redirect_uri: undefined }))
      assert.equal(`${to.origin}${to.pathname}`, REDIRECT)
      const omitted = await exchange(to.searchParams.get('code') ?? '', single, [])
      assert.equal(omitted.statusCode, 200, omitted.body)
      const named = await allow(authorizeUrl(single, { redirect_uri: undefined }))
      assert.equal((await exchange(named.searchParams.get('code') ?? '', single)).statusCode, 200)
      const other = await allow(authorizeUrl(single, { redirect_uri: undefined }))
      const wrong = await exchange(other.searchParams.get('code') ?? '', single, [['redirect_uri', 'https://app.example.com/other']])
      assert.equal(wrong.statusCode, 400)
      assert.equal(wrong.json().error, 'invalid_grant')
    })

    test('an authorization request with redirect_uri: the token request must repeat it', async () => {
      const to = await allow(authorizeUrl(single))
      const omitted = await exchange(to.searchParams.get('code') ?? '', single, [])
      assert.equal(omitted.statusCode, 400)
      assert.equal(omitted.json().error, 'invalid_grant')
    })
  })

  describe('naming an app costs it nothing (no lockout)', () => {
    test('100 wrong-secret requests naming the app on each endpoint: 401, then 429 for that address, logged; the real app still refreshes, revokes and introspects with 200', async () => {
      const { refresh_token: refresh, access_token: access } = await tokensFor()
      const wrong = { clientId: app.clientId, secret: 'eng_ocs_wrong' }
      const ATTACKER = '203.0.113.7'
      const statuses: number[] = []
      for (let i = 0; i < 100; i++) {
        const path = ['/oauth/token', '/oauth/revoke', '/oauth/introspect'][i % 3] ?? ''
        const viaBasic = i % 2 === 0
        const body = new URLSearchParams({ ...(path === '/oauth/token' ? { grant_type: 'refresh_token', refresh_token: refresh } : { token: refresh }), ...(viaBasic ? {} : { client_id: wrong.clientId, client_secret: wrong.secret }) })
        const res = await post(path, body.toString(), viaBasic ? { authorization: basic(wrong) } : {}, ATTACKER)
        statuses.push(res.statusCode)
        if (res.statusCode === 429) {
          assert.equal(res.json().error, 'rate_limited')
          assert.ok(Number(res.headers['retry-after']) >= 1)
        }
      }
      assert.deepEqual([...new Set(statuses.slice(0, 60))], [401])
      assert.deepEqual([...new Set(statuses.slice(60))], [429])
      const logged = log.lines.filter((line) => line.msg === 'oauth client authentication failed' && line.ip === ATTACKER)
      assert.equal(logged.length, 100)
      assert.equal(logged[0]?.clientId, app.clientId)
      assert.ok(!JSON.stringify(log.lines).includes('eng_ocs_wrong'), 'the secret tried is not logged')

      // The real app, even from the same address: authenticated, so charged to its own budget only.
      const refreshed = await post('/oauth/token', new URLSearchParams({ grant_type: 'refresh_token', refresh_token: refresh }).toString(), { authorization: basic(app) }, ATTACKER)
      assert.equal(refreshed.statusCode, 200, refreshed.body)
      const introspected = await post('/oauth/introspect', new URLSearchParams({ token: access }).toString(), { authorization: basic(app) }, ATTACKER)
      assert.equal(introspected.statusCode, 200)
      assert.equal(introspected.json().active, true)
      const revoked = await post('/oauth/revoke', new URLSearchParams({ token: access }).toString(), { authorization: basic(app) }, ATTACKER)
      assert.equal(revoked.statusCode, 200)
    })

    test('an authenticated client still has its own budget on each endpoint', async () => {
      const limited = await startApp(backend, { config: { rateLimit: { max: 2, windowMs: 60_000, keyPrefix: `engage:test:oauth38b-${String(Date.now())}:` } } })
      try {
        const maker = await tenant(limited.db)
        const made = await registerApp(limited.db, { companyId: maker.companyId, ...systemActing() }, { name: 'Busy', redirectUris: [REDIRECT], scopes: ['contacts:read'] })
        const busy = { clientId: made.app.client_id, secret: made.clientSecret ?? '' }
        for (const path of ['/oauth/introspect', '/oauth/revoke']) {
          const send = () => limited.app.inject({ method: 'POST', url: path, headers: { ...FORM, authorization: basic(busy) }, payload: 'token=unknown' })
          assert.equal((await send()).statusCode, 200)
          assert.equal((await send()).statusCode, 200)
          const third = await send()
          assert.equal(third.statusCode, 429, path)
          assert.equal(third.json().error, 'rate_limited')
        }
      } finally {
        await limited.close()
      }
    })
  })
})

describe('the issuer with PUBLIC_URL, and the warning at start without it', () => {
  test('PUBLIC_URL set: the metadata names it (whatever the Host) and may be cached', async () => {
    const t = await startApp(backend, { config: { publicUrl: 'https://engage.example.com' } })
    try {
      const res = await t.app.inject({ url: '/.well-known/oauth-authorization-server', headers: { host: 'evil.example' } })
      assert.equal(res.json().issuer, 'https://engage.example.com')
      assert.equal(res.json().token_endpoint, 'https://engage.example.com/oauth/token')
      assert.equal(res.headers['cache-control'], 'public, max-age=3600')
    } finally {
      await t.close()
    }
  })

  test('a start with OAuth apps and no PUBLIC_URL warns once; with PUBLIC_URL, or without apps, it does not', async () => {
    const t = await startApp(backend)
    try {
      const maker = await tenant(t.db)
      const start = async (publicUrl: string | undefined) => {
        const log = logLines()
        const second = await buildApp(testConfig({ publicUrl }), { database: t.database, logger: { level: 'warn', stream: log.stream } })
        await second.ready()
        await second.close()
        return log.lines.filter((line) => /PUBLIC_URL is unset/.test(line.msg))
      }
      assert.equal((await start(undefined)).length, 0, 'no app yet: nothing to warn about')
      await registerApp(t.db, { companyId: maker.companyId, ...systemActing() }, { name: 'Any', redirectUris: [REDIRECT], scopes: ['contacts:read'] })
      const warned = await start(undefined)
      assert.equal(warned.length, 1)
      assert.equal(warned[0]?.level, 40)
      assert.equal((await start('https://engage.example.com')).length, 0)
    } finally {
      await t.close()
    }
  })
})
