// The OAuth 2.0 authorization server through the app (inject): consent, the code exchange with
// PKCE, refresh rotation and reuse detection, revocation, introspection, metadata, expiry (a
// pinned clock, no sleeping), and every hostile input of issue 27's "Done when", with the
// database's state checked after each.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { statementChannel, type Query } from '../../src/db/query.js'
import { deactivateUser } from '../../src/modules/auth/accounts.service.js'
import { createToken } from '../../src/modules/auth/tokens.service.js'
import { systemActing } from '../../src/acting.js'
import { challengeOf, sha256 } from '../../src/modules/oauth/oauth.protocol.js'
import { answerConsent, checkAuthorize, registerApp } from '../../src/modules/oauth-server/oauth-server.service.js'
import { backends, startApp, type TestApp } from '../helpers/app.js'
import { addSubscription, tenant, type Tenant } from '../helpers/factories.js'
import { sql, rawRows } from '../helpers/sql.js'
import { Browser, csrfOf, member } from '../web/helpers.js'
import { allAuditRows, recordsOf } from '../audit/helpers.js'

const REDIRECT = 'https://app.example.com/callback'
const VERIFIER = 'v'.repeat(20) + '-._~' + 'A1'.repeat(12) // 48 unreserved characters
const CHALLENGE = challengeOf(VERIFIER)

interface Client {
  id: number
  clientId: string
  secret: string | null
}

for (const backend of backends()) {
  describe(`OAuth 2.0 authorization server (${backend.name})`, () => {
    let t: TestApp
    let acme: Tenant
    let globex: Tenant
    let now = new Date('2026-11-26T12:00:00.000Z')
    let user: { id: number; email: string }
    let browser: Browser
    let app: Client
    let other: Client
    let publicApp: Client

    before(async () => {
      t = await startApp(backend, { deps: { clock: () => now } })
      acme = await tenant(t.db, { name: 'Acme' })
      globex = await tenant(t.db, { name: 'Globex' })
      // The app's maker is Globex; the consenting user is a member of Acme.
      const made = await registerApp(t.db, { companyId: globex.companyId, ...systemActing(now) }, { name: 'CRM Sync', redirectUris: [REDIRECT, 'http://127.0.0.1:8765/cb'], scopes: ['contacts:read', 'contacts:write', 'tasks:read'] })
      app = { id: made.app.id, clientId: made.app.client_id, secret: made.clientSecret }
      const second = await registerApp(t.db, { companyId: globex.companyId, ...systemActing(now) }, { name: 'Other', redirectUris: [REDIRECT], scopes: ['contacts:read'] })
      other = { id: second.app.id, clientId: second.app.client_id, secret: second.clientSecret }
      const pub = await registerApp(t.db, { companyId: globex.companyId, ...systemActing(now) }, { name: 'Desktop', redirectUris: ['http://localhost:9000/done'], scopes: ['contacts:read'], public: true })
      publicApp = { id: pub.app.id, clientId: pub.app.client_id, secret: pub.clientSecret }
      const u = await member(t.db, acme.companyId, { email: 'mia@acme.test', name: 'Mia' })
      user = { id: u.id, email: 'mia@acme.test' }
      browser = new Browser(t.app)
      assert.equal((await browser.signIn(user.email)).status, 303)
    })
    after(() => t.close())

    const authorizeUrl = (client: Client, extra: Record<string, string | undefined> = {}) => {
      const params: Record<string, string | undefined> = {
        response_type: 'code',
        client_id: client.clientId,
        redirect_uri: client === publicApp ? 'http://localhost:9000/done' : REDIRECT,
        scope: 'contacts:read',
        state: 'xyz',
        code_challenge: CHALLENGE,
        code_challenge_method: 'S256',
        ...extra,
      }
      const query = new URLSearchParams(Object.entries(params).filter((e): e is [string, string] => e[1] !== undefined))
      return `/oauth/authorize?${query.toString()}`
    }

    /** Follows the authorize URL and answers the consent page; the Location the browser is sent to. */
    async function consent(url: string, decision: 'allow' | 'deny' = 'allow'): Promise<URL> {
      const page = await browser.get(url)
      assert.equal(page.status, 200, page.body)
      const fields: Record<string, string> = { _csrf: csrfOf(page.body, '/oauth/authorize'), decision }
      for (const match of page.body.matchAll(/<input type="hidden" name="([a-z_]+)" value="([^"]*)">/g)) {
        if (match[1] !== '_csrf') fields[match[1] ?? ''] = (match[2] ?? '').replace(/&amp;/g, '&').replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&lt;/g, '<').replace(/&gt;/g, '>')
      }
      const answer = await browser.request('POST', '/oauth/authorize', fields)
      assert.equal(answer.status, 303, answer.body)
      return new URL(answer.location ?? '')
    }

    async function codeFor(client: Client = app, extra: Record<string, string | undefined> = {}) {
      const to = await consent(authorizeUrl(client, extra))
      const code = to.searchParams.get('code')
      assert.ok(code, to.toString())
      return code
    }

    const basic = (client: Client, secret = client.secret ?? '') => `Basic ${Buffer.from(`${encodeURIComponent(client.clientId)}:${encodeURIComponent(secret)}`).toString('base64')}`

    async function token(form: Record<string, string>, client: Client | null = app, via: 'basic' | 'post' = 'basic') {
      const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded' }
      const body = { ...form }
      if (client && client.secret !== null && via === 'basic') headers.authorization = basic(client)
      if (client && (client.secret === null || via === 'post')) {
        body.client_id = client.clientId
        if (client.secret !== null) body.client_secret = client.secret
      }
      return t.app.inject({ method: 'POST', url: '/oauth/token', headers, payload: new URLSearchParams(body).toString() })
    }

    const exchange = (code: string, client: Client = app, extra: Record<string, string> = {}) =>
      token({ grant_type: 'authorization_code', code, redirect_uri: client === publicApp ? 'http://localhost:9000/done' : REDIRECT, code_verifier: VERIFIER, ...extra }, client)

    const api = (accessToken: string, url: string, method: 'GET' | 'POST' | 'DELETE' = 'GET', payload?: object) =>
      t.app.inject({ method, url, headers: { authorization: `Bearer ${accessToken}` }, ...(payload ? { payload } : {}) })

    async function grantRow(id: number) {
      const [row] = await rawRows<{ id: number; company_id: number; user_id: number; app_id: number; scopes: string[]; revoked: boolean }>(
        t.db,
        sql`select id, company_id, user_id, app_id, scopes, revoked_at is not null as revoked from oauth_grants where id = ${id}`,
      )
      return row
    }

    async function accessRow(accessToken: string) {
      const [row] = await rawRows<{ oauth_grant_id: number; scopes: string[]; company_id: number; user_id: number; revoked: boolean; ms: number }>(
        t.db,
        sql`select oauth_grant_id, scopes, company_id, user_id, revoked_at is not null as revoked, (extract(epoch from expires_at) * 1000)::float8 as ms
              from api_tokens where token_hash = ${sha256(accessToken)}`,
      )
      return row
    }

    /**
     * A revocation reaches the token cache through NOTIFY (every instance, the one that made it
     * too), delivered a moment after the commit: poll briefly for the 401.
     */
    async function eventually401(accessToken: string) {
      let status = 0
      for (let i = 0; i < 100 && status !== 401; i++) {
        status = (await api(accessToken, '/api/v1/contacts?page=1')).statusCode
        if (status !== 401) await new Promise((resolve) => setTimeout(resolve, 20))
      }
      assert.equal(status, 401)
    }

    const errorOf = (res: { statusCode: number; json: () => unknown }) => ({ status: res.statusCode, error: (res.json() as { error: string }).error })

    test('metadata (RFC 8414) names the endpoints, S256 only, the two grants and every scope', async () => {
      // The issuer is PUBLIC_URL (unset here: this machine's port), never the Host header (test/oauth/conformance.test.ts).
      const res = await t.app.inject({ url: '/.well-known/oauth-authorization-server', headers: { host: 'engage.test' } })
      assert.equal(res.statusCode, 200)
      const body = res.json()
      const issuer = `http://localhost:${String(t.app.config.port)}`
      assert.equal(body.issuer, issuer)
      assert.equal(body.token_endpoint, `${issuer}/oauth/token`)
      assert.equal(body.authorization_endpoint, `${issuer}/oauth/authorize`)
      assert.equal(body.revocation_endpoint, `${issuer}/oauth/revoke`)
      assert.equal(body.introspection_endpoint, `${issuer}/oauth/introspect`)
      assert.deepEqual(body.code_challenge_methods_supported, ['S256'])
      assert.deepEqual(body.grant_types_supported, ['authorization_code', 'refresh_token'])
      assert.ok(body.scopes_supported.includes('contacts:read'))
    })

    test('the whole flow: consent page, allow, code (hashed), PKCE exchange, an access token used like an api token within its scopes', async () => {
      const page = await browser.get(authorizeUrl(app, { scope: 'contacts:read tasks:read' }))
      assert.equal(page.status, 200)
      assert.match(page.body, /CRM Sync/)
      assert.match(page.body, /Globex/, 'the app\'s company')
      assert.match(page.body, /Read contacts, their events/, 'scopes in plain words')
      assert.match(page.body, /Read tasks/)
      assert.match(String(page.headers['content-security-policy']), /form-action 'self' https:\/\/app\.example\.com/)

      const rows = await recordsOf(t.db, async () => {
        const to = await consent(authorizeUrl(app, { scope: 'contacts:read tasks:read' }))
        assert.equal(to.origin + to.pathname, REDIRECT)
        assert.equal(to.searchParams.get('state'), 'xyz')
        const code = to.searchParams.get('code') ?? ''
        const [stored] = await rawRows<{ code_hash: string; redirect_uri: string; code_challenge: string; scopes: string[]; company_id: number; ttl: number }>(
          t.db,
          sql`select code_hash, redirect_uri, code_challenge, scopes, company_id, extract(epoch from expires_at - ${now})::float8 as ttl from oauth_codes where code_hash = ${sha256(code)}`,
        )
        assert.deepEqual(stored, { code_hash: sha256(code), redirect_uri: REDIRECT, code_challenge: CHALLENGE, scopes: ['contacts:read', 'tasks:read'], company_id: acme.companyId, ttl: 60 })
        const [plain] = await rawRows<{ n: number }>(t.db, sql`select count(*)::int as n from oauth_codes where code_hash = ${code}`)
        assert.equal(plain?.n, 0, 'never stored in the clear')

        const res = await exchange(code)
        assert.equal(res.statusCode, 200, res.body)
        assert.equal(res.headers['cache-control'], 'no-store')
        const body = res.json()
        assert.equal(body.token_type, 'Bearer')
        assert.equal(body.expires_in, 3600)
        assert.equal(body.scope, 'contacts:read tasks:read')
        assert.match(body.access_token, /^eng_oat_/)
        assert.match(body.refresh_token, /^eng_ort_/)
        const access = await accessRow(body.access_token)
        assert.ok(access)
        assert.equal(access.company_id, acme.companyId)
        assert.equal(access.user_id, user.id)
        assert.deepEqual(access.scopes, ['contacts:read', 'tasks:read'])
        assert.equal(access.ms, now.getTime() + 3600_000)
        assert.deepEqual(await grantRow(access.oauth_grant_id), { id: access.oauth_grant_id, company_id: acme.companyId, user_id: user.id, app_id: app.id, scopes: ['contacts:read', 'tasks:read'], revoked: false })

        const who = await api(body.access_token, '/api/v1/users/authorize_api')
        assert.equal(who.statusCode, 200)
        assert.deepEqual(who.json().token, { scopes: ['contacts:read', 'tasks:read'], kind: 'oauth', expires_at: new Date(now.getTime() + 3600_000).toISOString(), app: { id: app.id, name: 'CRM Sync' } })
        assert.equal(who.json().user.id, user.id)
        assert.equal(who.json().company.id, acme.companyId, 'the consenting user\'s company, not the app\'s')
        const list = await api(body.access_token, '/api/v1/contacts?page=1')
        assert.equal(list.statusCode, 200)
        assert.equal(list.headers['x-accepted-scopes'], 'contacts:read, contacts:write')
        assert.ok(list.headers['x-ratelimit-remaining'] !== undefined)
        const write = await api(body.access_token, '/api/v1/contacts', 'POST', { first_name: 'Nope' })
        assert.equal(write.statusCode, 403)
        assert.equal(write.json().error.code, 'insufficient_scope')
        assert.deepEqual(write.json().error.details, { scope: ['contacts:write'] })
        const [count] = await rawRows<{ n: number }>(t.db, sql`select count(*)::int as n from contacts where first_name = 'Nope'`)
        assert.equal(count?.n, 0)
      })
      const granted = rows.filter((row) => row.action === 'oauth_consent.granted')
      assert.deepEqual(granted.map((row) => [row.company_id, row.actor_type, row.target_label]), [[acme.companyId, 'user', 'CRM Sync']])
    })

    test('an OAuth access token costs the statements a personal token costs: its grant and app come with the one lookup', async () => {
      const { access_token: accessToken } = (await exchange(await codeFor())).json()
      const { token: personal } = await createToken(t.db, systemActing(), user.id, { scopes: ['contacts:read'] })
      const statements = async (bearer: string) => {
        const seen: string[] = []
        const note = (query: unknown) => seen.push((query as Query<unknown>).name)
        statementChannel.subscribe(note)
        try {
          // Never used before: not in the token cache, so the lookup runs.
          assert.equal((await api(bearer, '/api/v1/users/authorize_api')).statusCode, 200)
        } finally {
          statementChannel.unsubscribe(note)
        }
        return seen
      }
      const oauth = await statements(accessToken)
      assert.deepEqual(oauth, await statements(personal))
      assert.equal(oauth.filter((name) => name === 'auth.callerByTokenHash').length, 1)
    })

    test('an admin\'s OAuth token deleting a webhook is recorded with the app as the actor', async () => {
      const hooks = await registerApp(t.db, { companyId: globex.companyId, ...systemActing(now) }, { name: 'Hook Manager', redirectUris: [REDIRECT], scopes: ['webhooks:write'] })
      const checked = await checkAuthorize(t.db, { client_id: hooks.app.client_id, redirect_uri: REDIRECT, response_type: 'code', scope: 'webhooks:write', code_challenge: CHALLENGE, code_challenge_method: 'S256' }, 'http://localhost:3000')
      if (checked.kind !== 'ok') throw new Error(JSON.stringify(checked))
      const to = new URL(await answerConsent(t.db, { companyId: acme.companyId, userId: acme.userId, ...systemActing(now) }, checked, true))
      const client = { id: hooks.app.id, clientId: hooks.app.client_id, secret: hooks.clientSecret }
      const { access_token: accessToken } = (await exchange(to.searchParams.get('code') ?? '', client)).json()
      const subscription = await addSubscription(t.db, acme.companyId)
      const rows = await recordsOf(t.db, async () => {
        assert.equal((await api(accessToken, `/api/v1/webhooks/${String(subscription)}`, 'DELETE')).statusCode, 204)
      })
      assert.deepEqual(rows.map((row) => [row.action, row.actor_type, row.actor_id, row.actor_label, row.company_id]), [['webhook.deleted', 'oauth_app', hooks.app.id, 'Hook Manager', acme.companyId]])
      // The user whose grant the app acted with, by id and by name (issue 38), in the table and in the API's record.
      const [user] = await rawRows<{ name: string }>(t.db, sql`select name from users where id = ${acme.userId}`)
      assert.deepEqual(rows.map((row) => [row.on_behalf_of_id, row.on_behalf_of_label]), [[acme.userId, user?.name]])
      const listed = await api(acme.token, `/api/v1/audit_events?action=webhook.deleted&actor_type=oauth_app`)
      assert.deepEqual(listed.json().data[0].actor, { type: 'oauth_app', id: hooks.app.id, label: 'Hook Manager', on_behalf_of: { id: acme.userId, label: user?.name } })
    })

    test('an OAuth token acts in the consenting user\'s company only', async () => {
      const code = await codeFor(app, { scope: 'contacts:write' })
      const { access_token: accessToken } = (await exchange(code)).json()
      const made = await api(accessToken, '/api/v1/contacts', 'POST', { first_name: 'Via OAuth', email: 'via@oauth.test' })
      assert.equal(made.statusCode, 201, made.body)
      const [row] = await rawRows<{ company_id: number; user_id: number }>(t.db, sql`select company_id, user_id from contacts where id = ${made.json().id}`)
      assert.deepEqual(row, { company_id: acme.companyId, user_id: user.id })
      // A contact of Globex (the app's own company) is not the token's to see.
      const theirs = await t.app.inject({ method: 'POST', url: '/api/v1/contacts', headers: globex.auth, payload: { first_name: 'Globex only', email: 'g@globex.test' } })
      assert.equal(theirs.statusCode, 201)
      const peek = await api(accessToken, `/api/v1/contacts/${String(theirs.json().id)}`)
      assert.equal(peek.statusCode, 404)
      const change = await api(accessToken, `/api/v1/contacts/${String(theirs.json().id)}`, 'GET')
      assert.equal(change.statusCode, 404)
    })

    test('a code works once: the second use is invalid_grant and ends the grant (its access token answers 401)', async () => {
      const code = await codeFor()
      const first = await exchange(code)
      assert.equal(first.statusCode, 200)
      const again = await exchange(code)
      assert.deepEqual(errorOf(again), { status: 400, error: 'invalid_grant' })
      const access = await accessRow(first.json().access_token)
      assert.ok(access)
      assert.equal(access.revoked, true)
      assert.equal((await grantRow(access.oauth_grant_id))?.revoked, true)
      await eventually401(first.json().access_token)
      assert.deepEqual(errorOf(await token({ grant_type: 'refresh_token', refresh_token: first.json().refresh_token })), { status: 400, error: 'invalid_grant' })
    })

    test('a code of another client, a wrong or missing verifier, another redirect_uri: refused, and the code still works for its own client', async () => {
      const code = await codeFor()
      assert.deepEqual(errorOf(await exchange(code, other, { redirect_uri: REDIRECT })), { status: 400, error: 'invalid_grant' })
      assert.deepEqual(errorOf(await exchange(code, app, { code_verifier: 'w'.repeat(43) })), { status: 400, error: 'invalid_grant' })
      assert.deepEqual(errorOf(await token({ grant_type: 'authorization_code', code, redirect_uri: REDIRECT })), { status: 400, error: 'invalid_request' })
      assert.deepEqual(errorOf(await exchange(code, app, { code_verifier: 'short' })), { status: 400, error: 'invalid_request' })
      assert.deepEqual(errorOf(await exchange(code, app, { redirect_uri: 'http://127.0.0.1:8765/cb' })), { status: 400, error: 'invalid_grant' })
      const [unused] = await rawRows<{ used: boolean }>(t.db, sql`select used_at is not null as used from oauth_codes where code_hash = ${sha256(code)}`)
      assert.equal(unused?.used, false)
      assert.equal((await exchange(code)).statusCode, 200)
    })

    test('a code lives 60 seconds', async () => {
      const code = await codeFor()
      const start = now
      now = new Date(start.getTime() + 60_000)
      try {
        assert.deepEqual(errorOf(await exchange(code)), { status: 400, error: 'invalid_grant' })
      } finally {
        now = start
      }
    })

    test('an access token lives one hour, then answers 401 token_expired; the refresh token still works', async () => {
      const body = (await exchange(await codeFor())).json()
      const start = now
      now = new Date(start.getTime() + 3600_000)
      try {
        const res = await api(body.access_token, '/api/v1/contacts?page=1')
        assert.equal(res.statusCode, 401)
        assert.equal(res.json().error.code, 'token_expired')
        const fresh = await token({ grant_type: 'refresh_token', refresh_token: body.refresh_token })
        assert.equal(fresh.statusCode, 200)
        assert.equal((await api(fresh.json().access_token, '/api/v1/contacts?page=1')).statusCode, 200)
      } finally {
        now = start
      }
    })

    test('refresh rotates on every use; presenting a used one ends the whole grant (audited, the app as actor)', async () => {
      const first = (await exchange(await codeFor())).json()
      const second = await token({ grant_type: 'refresh_token', refresh_token: first.refresh_token }, app, 'post')
      assert.equal(second.statusCode, 200, second.body)
      const next = second.json()
      assert.notEqual(next.refresh_token, first.refresh_token)
      assert.notEqual(next.access_token, first.access_token)
      const [old] = await rawRows<{ used: boolean }>(t.db, sql`select used_at is not null as used from oauth_refresh_tokens where token_hash = ${sha256(first.refresh_token)}`)
      assert.equal(old?.used, true)
      assert.equal((await api(next.access_token, '/api/v1/contacts?page=1')).statusCode, 200)
      // A narrower scope on refresh: the new access token only.
      const grantId = (await accessRow(next.access_token))?.oauth_grant_id ?? 0

      const rows = await recordsOf(t.db, async () => {
        assert.deepEqual(errorOf(await token({ grant_type: 'refresh_token', refresh_token: first.refresh_token })), { status: 400, error: 'invalid_grant' })
      })
      assert.deepEqual(rows.map((row) => [row.action, row.actor_type, row.actor_id, row.target_id, row.company_id, row.on_behalf_of_id]), [['oauth_grant.refresh_token_reused', 'oauth_app', app.id, grantId, acme.companyId, (await grantRow(grantId))?.user_id]])
      assert.equal((await grantRow(grantId))?.revoked, true)
      await eventually401(next.access_token) // cached a moment ago: dropped through NOTIFY
      await eventually401(first.access_token)
      assert.deepEqual(errorOf(await token({ grant_type: 'refresh_token', refresh_token: next.refresh_token })), { status: 400, error: 'invalid_grant' })
    })

    test('refresh: a narrower scope is kept to the new access token; a wider one is invalid_scope; another client\'s is invalid_grant', async () => {
      const first = (await exchange(await codeFor(app, { scope: 'contacts:read tasks:read' }))).json()
      const narrowed = await token({ grant_type: 'refresh_token', refresh_token: first.refresh_token, scope: 'tasks:read' })
      assert.equal(narrowed.statusCode, 200)
      assert.equal(narrowed.json().scope, 'tasks:read')
      assert.equal((await api(narrowed.json().access_token, '/api/v1/contacts?page=1')).statusCode, 403)
      assert.deepEqual(errorOf(await token({ grant_type: 'refresh_token', refresh_token: narrowed.json().refresh_token, scope: 'contacts:write' })), { status: 400, error: 'invalid_scope' })
      assert.deepEqual(errorOf(await token({ grant_type: 'refresh_token', refresh_token: narrowed.json().refresh_token }, other)), { status: 400, error: 'invalid_grant' })
      const still = await token({ grant_type: 'refresh_token', refresh_token: narrowed.json().refresh_token })
      assert.equal(still.statusCode, 200, 'neither failure used it up')
      assert.equal(still.json().scope, 'contacts:read tasks:read')
    })

    test('refresh tokens live 60 days from their last use', async () => {
      const first = (await exchange(await codeFor())).json()
      const start = now
      try {
        now = new Date(start.getTime() + 59 * 86_400_000)
        const second = await token({ grant_type: 'refresh_token', refresh_token: first.refresh_token })
        assert.equal(second.statusCode, 200)
        now = new Date(now.getTime() + 60 * 86_400_000)
        assert.deepEqual(errorOf(await token({ grant_type: 'refresh_token', refresh_token: second.json().refresh_token })), { status: 400, error: 'invalid_grant' })
      } finally {
        now = start
      }
    })

    test('/authorize: an unregistered redirect URI (prefix, longer path, other port, other host) is an error page, never a redirect', async () => {
      for (const uri of ['https://app.example.com/callback/extra', 'https://app.example.com/call', 'https://app.example.com:8443/callback', 'https://evil.example/callback', 'http://127.0.0.1:8766/cb', 'https://app.example.com/callback?x=1']) {
        const res = await browser.get(authorizeUrl(app, { redirect_uri: uri }))
        assert.equal(res.status, 400, uri)
        assert.equal(res.location, undefined, uri)
        assert.match(res.body, /not one the app registered/)
      }
      const unknown = await browser.get(authorizeUrl({ id: 0, clientId: 'engc_nope', secret: null }))
      assert.equal(unknown.status, 400)
      assert.equal(unknown.location, undefined)
      // The app has two URIs: leaving redirect_uri out names none of them.
      const missing = await browser.get(authorizeUrl(app, { redirect_uri: undefined }))
      assert.equal(missing.status, 400)
      assert.equal(missing.location, undefined)
      // A repeated parameter is refused, not read as the first.
      const twice = await browser.get(`${authorizeUrl(app)}&redirect_uri=${encodeURIComponent('https://evil.example/')}`)
      assert.equal(twice.status, 400)
      assert.equal(twice.location, undefined)
    })

    test('/authorize: plain or missing PKCE, a scope the app may not ask, a wrong response_type go back to the registered URI with the error and the state', async () => {
      const cases: [Record<string, string | undefined>, string][] = [
        [{ code_challenge_method: 'plain', code_challenge: VERIFIER }, 'invalid_request'],
        [{ code_challenge_method: undefined }, 'invalid_request'],
        [{ code_challenge: undefined }, 'invalid_request'],
        [{ code_challenge: 'short' }, 'invalid_request'],
        [{ scope: 'contacts:read webhooks:write' }, 'invalid_scope'],
        [{ scope: 'contacts:read nonsense' }, 'invalid_scope'],
        [{ scope: undefined }, 'invalid_scope'],
        [{ response_type: 'token' }, 'unsupported_response_type'],
      ]
      const [before] = await rawRows<{ n: number }>(t.db, sql`select count(*)::int as n from oauth_codes`)
      for (const [extra, error] of cases) {
        const res = await browser.get(authorizeUrl(app, extra))
        assert.equal(res.status, 303, JSON.stringify(extra))
        const to = new URL(res.location ?? '')
        assert.equal(to.origin + to.pathname, REDIRECT)
        assert.equal(to.searchParams.get('error'), error, JSON.stringify(extra))
        assert.equal(to.searchParams.get('state'), 'xyz')
        assert.equal(to.searchParams.get('code'), null)
      }
      const [afterRows] = await rawRows<{ n: number }>(t.db, sql`select count(*)::int as n from oauth_codes`)
      assert.deepEqual(afterRows, before)
    })

    test('no open redirect through state: it comes back as one parameter of the registered URI', async () => {
      const state = '&redirect_uri=https://evil.example/#x"><script>'
      const to = await consent(authorizeUrl(app, { state }))
      assert.equal(to.origin + to.pathname, REDIRECT)
      assert.equal(to.searchParams.get('state'), state)
      assert.equal(to.searchParams.get('redirect_uri'), null)
      assert.equal(to.hash, '')
      // A consent form edited to another redirect_uri is checked again: an error page.
      const page = await browser.get(authorizeUrl(app))
      const posted = await browser.request('POST', '/oauth/authorize', {
        _csrf: csrfOf(page.body, '/oauth/authorize'),
        decision: 'allow',
        response_type: 'code',
        client_id: app.clientId,
        redirect_uri: 'https://evil.example/callback',
        scope: 'contacts:read',
        code_challenge: CHALLENGE,
        code_challenge_method: 'S256',
      })
      assert.equal(posted.status, 400)
      assert.equal(posted.location, undefined)
    })

    test('Deny sends access_denied with the state, records the refusal and makes no grant', async () => {
      const [before] = await rawRows<{ n: number }>(t.db, sql`select count(*)::int as n from oauth_grants`)
      const rows = await recordsOf(t.db, async () => {
        const to = await consent(authorizeUrl(app), 'deny')
        assert.equal(to.origin + to.pathname, REDIRECT)
        assert.equal(to.searchParams.get('error'), 'access_denied')
        assert.equal(to.searchParams.get('state'), 'xyz')
      })
      assert.deepEqual(rows.map((row) => [row.action, row.actor_type, row.company_id]), [['oauth_consent.refused', 'user', acme.companyId]])
      const [afterRows] = await rawRows<{ n: number }>(t.db, sql`select count(*)::int as n from oauth_grants`)
      assert.deepEqual(afterRows, before)
    })

    test('the consent form needs its CSRF token and a signed-in user', async () => {
      const fields = { decision: 'allow', response_type: 'code', client_id: app.clientId, redirect_uri: REDIRECT, scope: 'contacts:read', code_challenge: CHALLENGE, code_challenge_method: 'S256' }
      const forged = await browser.request('POST', '/oauth/authorize', { ...fields, _csrf: 'x'.repeat(43) })
      assert.equal(forged.status, 403)
      const stranger = new Browser(t.app)
      const anonymous = await stranger.request('POST', '/oauth/authorize', fields)
      assert.equal(anonymous.status, 303)
      assert.equal(anonymous.location, '/login')
      // Signed out, the authorize URL goes through sign-in and back to the consent page.
      const first = await stranger.get(authorizeUrl(app))
      assert.equal(first.status, 303)
      assert.match(first.location ?? '', /^\/login\?next=%2Foauth%2Fauthorize%3F/)
      const login = await stranger.get(first.location ?? '')
      const signedIn = await stranger.request('POST', '/login', { _csrf: csrfOf(login.body, '/login'), email: user.email, password: 'correct horse battery staple', next: authorizeUrl(app) })
      assert.equal(signedIn.status, 303)
      assert.equal(signedIn.location, authorizeUrl(app))
      // …but never anywhere else.
      const evil = await stranger.get('/login?next=https://evil.example/')
      assert.equal(evil.status, 303)
      assert.equal(evil.location, '/tasks')
    })

    test('client authentication: wrong secret, unknown client, two methods at once, a public client with a secret', async () => {
      const code = await codeFor()
      const wrong = await t.app.inject({
        method: 'POST',
        url: '/oauth/token',
        headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: basic(app, 'eng_ocs_wrong') },
        payload: new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: REDIRECT, code_verifier: VERIFIER }).toString(),
      })
      assert.deepEqual(errorOf(wrong), { status: 401, error: 'invalid_client' })
      assert.equal(wrong.headers['www-authenticate'], 'Basic realm="engage"')
      const unknown = await token({ grant_type: 'authorization_code', code, redirect_uri: REDIRECT, code_verifier: VERIFIER, client_id: 'engc_unknown', client_secret: 'x' }, null)
      assert.deepEqual(errorOf(unknown), { status: 401, error: 'invalid_client' })
      const both = await t.app.inject({
        method: 'POST',
        url: '/oauth/token',
        headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: basic(app) },
        payload: new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: REDIRECT, code_verifier: VERIFIER, client_secret: app.secret ?? '' }).toString(),
      })
      assert.deepEqual(errorOf(both), { status: 400, error: 'invalid_request' })
      const noSecret = await token({ grant_type: 'authorization_code', code, redirect_uri: REDIRECT, code_verifier: VERIFIER, client_id: app.clientId }, null)
      assert.deepEqual(errorOf(noSecret), { status: 401, error: 'invalid_client' })
      const json = await t.app.inject({ method: 'POST', url: '/oauth/token', headers: { authorization: basic(app) }, payload: { grant_type: 'authorization_code', code } })
      assert.deepEqual(errorOf(json), { status: 400, error: 'invalid_request' })
      assert.deepEqual(errorOf(await token({ grant_type: 'password' })), { status: 400, error: 'unsupported_grant_type' })
      const inUrl = await t.app.inject({
        method: 'POST',
        url: `/oauth/token?${new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: REDIRECT, code_verifier: VERIFIER }).toString()}`,
        headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: basic(app) },
        payload: '',
      })
      assert.deepEqual(errorOf(inUrl), { status: 400, error: 'invalid_request' })
      assert.equal((await exchange(code)).statusCode, 200, 'none of the refusals used the code')
    })

    test('a public client: no secret, PKCE binds its code', async () => {
      const code = await codeFor(publicApp)
      assert.deepEqual(errorOf(await exchange(code, publicApp, { code_verifier: 'x'.repeat(43) })), { status: 400, error: 'invalid_grant' })
      const res = await exchange(code, publicApp)
      assert.equal(res.statusCode, 200, res.body)
      const withSecret = await token({ grant_type: 'refresh_token', refresh_token: res.json().refresh_token, client_id: publicApp.clientId, client_secret: 'made-up' }, null)
      assert.deepEqual(errorOf(withSecret), { status: 401, error: 'invalid_client' })
    })

    test('revoke (RFC 7009): an access token, then a refresh token ends the grant; another client\'s token changes nothing', async () => {
      const body = (await exchange(await codeFor())).json()
      const revoke = (form: Record<string, string>, client: Client = app) =>
        t.app.inject({ method: 'POST', url: '/oauth/revoke', headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: basic(client) }, payload: new URLSearchParams(form).toString() })
      const foreign = await revoke({ token: body.access_token }, other)
      assert.equal(foreign.statusCode, 200)
      assert.equal((await accessRow(body.access_token))?.revoked, false)
      assert.equal((await api(body.access_token, '/api/v1/contacts?page=1')).statusCode, 200)
      assert.equal((await revoke({ token: body.access_token })).statusCode, 200)
      assert.equal((await accessRow(body.access_token))?.revoked, true)
      await eventually401(body.access_token)
      assert.equal((await revoke({ token: 'eng_oat_unknown' })).statusCode, 200)
      const grantId = (await accessRow(body.access_token))?.oauth_grant_id ?? 0
      const rows = await recordsOf(t.db, async () => {
        assert.equal((await revoke({ token: body.refresh_token, token_type_hint: 'refresh_token' })).statusCode, 200)
      })
      assert.deepEqual(rows.map((row) => [row.action, row.actor_type, row.target_id, row.on_behalf_of_id]), [['oauth_consent.revoked', 'oauth_app', grantId, (await grantRow(grantId))?.user_id]])
      assert.equal((await grantRow(grantId))?.revoked, true)
      assert.deepEqual(errorOf(await token({ grant_type: 'refresh_token', refresh_token: body.refresh_token })), { status: 400, error: 'invalid_grant' })
      assert.deepEqual(errorOf(await revoke({})), { status: 400, error: 'invalid_request' })
    })

    test('introspect (RFC 7662): the app\'s own live tokens only', async () => {
      const body = (await exchange(await codeFor())).json()
      const look = (tokenText: string, client: Client = app) =>
        t.app.inject({ method: 'POST', url: '/oauth/introspect', headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: basic(client) }, payload: new URLSearchParams({ token: tokenText }).toString() })
      const live = (await look(body.access_token)).json()
      assert.equal(live.active, true)
      assert.equal(live.scope, 'contacts:read')
      assert.equal(live.client_id, app.clientId)
      assert.equal(live.sub, String(user.id))
      assert.equal(live.exp, Math.floor(now.getTime() / 1000) + 3600)
      assert.equal((await look(body.refresh_token)).json().token_type, 'refresh_token')
      assert.deepEqual((await look(body.access_token, other)).json(), { active: false })
      assert.deepEqual((await look(acme.token)).json(), { active: false }, 'a personal api token is no app\'s')
      assert.deepEqual((await look('nothing')).json(), { active: false })
      const unauthenticated = await t.app.inject({ method: 'POST', url: '/oauth/introspect', headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: `token=${body.access_token}` })
      assert.deepEqual(errorOf(unauthenticated), { status: 401, error: 'invalid_client' })
    })

    test('the user revokes the app on Integrations: every token of the grant answers 401 at once', async () => {
      const body = (await exchange(await codeFor())).json()
      const grantId = (await accessRow(body.access_token))?.oauth_grant_id ?? 0
      assert.equal((await api(body.access_token, '/api/v1/contacts?page=1')).statusCode, 200)
      const page = await browser.get('/settings/integrations')
      assert.match(page.body, /Apps you authorised/)
      assert.match(page.body, new RegExp(`/settings/integrations/apps/${String(grantId)}/revoke`))
      // A token form sent back (422) shows the whole page again, the authorised apps with it.
      const refused = await browser.submit('/settings/integrations', '/settings/integrations/tokens', { label: 'Bad', access: 'scopes' })
      assert.equal(refused.status, 422)
      assert.match(refused.body, new RegExp(`/settings/integrations/apps/${String(grantId)}/revoke`))
      const rows = await recordsOf(t.db, async () => {
        const res = await browser.submit('/settings/integrations', `/settings/integrations/apps/${String(grantId)}/revoke`)
        assert.equal(res.status, 303)
      })
      assert.deepEqual(rows.map((row) => [row.action, row.actor_type, row.target_id, row.target_label]), [['oauth_consent.revoked', 'user', grantId, 'CRM Sync']])
      await eventually401(body.access_token)
      assert.equal((await grantRow(grantId))?.revoked, true)
      assert.deepEqual(errorOf(await token({ grant_type: 'refresh_token', refresh_token: body.refresh_token })), { status: 400, error: 'invalid_grant' })
      // A revoked grant, or another user's, is not found.
      const csrf = csrfOf((await browser.get('/settings/integrations')).body, '/logout')
      const again = await browser.request('POST', `/settings/integrations/apps/${String(grantId)}/revoke`, { _csrf: csrf })
      assert.equal(again.status, 404)
    })

    test('personal token lists never show OAuth access tokens', async () => {
      const body = (await exchange(await codeFor())).json()
      const page = await browser.get('/settings/integrations')
      assert.doesNotMatch(page.body, new RegExp(String(body.access_token).slice(0, 12)))
    })

    test('deactivating the user ends every grant of theirs', async () => {
      const extra = await member(t.db, acme.companyId, { email: 'leo@acme.test' })
      const leo = new Browser(t.app)
      await leo.signIn('leo@acme.test')
      const page = await leo.get(authorizeUrl(app))
      const fields: Record<string, string> = { _csrf: csrfOf(page.body, '/oauth/authorize'), decision: 'allow', response_type: 'code', client_id: app.clientId, redirect_uri: REDIRECT, scope: 'contacts:read', state: 's', code_challenge: CHALLENGE, code_challenge_method: 'S256' }
      const code = new URL((await leo.request('POST', '/oauth/authorize', fields)).location ?? '').searchParams.get('code') ?? ''
      const body = (await exchange(code)).json()
      assert.equal((await api(body.access_token, '/api/v1/contacts?page=1')).statusCode, 200)
      await deactivateUser(t.db, systemActing(now), extra.id)
      await eventually401(body.access_token)
      const [live] = await rawRows<{ n: number }>(t.db, sql`select count(*)::int as n from oauth_grants where user_id = ${extra.id} and revoked_at is null`)
      assert.equal(live?.n, 0)
      assert.deepEqual(errorOf(await token({ grant_type: 'refresh_token', refresh_token: body.refresh_token })), { status: 400, error: 'invalid_grant' })
    })

    test('no secret, code or token of this file ever reached the audit log', async () => {
      const rows = JSON.stringify(await allAuditRows(t.db))
      assert.ok(app.secret && !rows.includes(app.secret))
      assert.doesNotMatch(rows, /eng_o(at|rt|ac|cs)_/)
    })
  })
}
