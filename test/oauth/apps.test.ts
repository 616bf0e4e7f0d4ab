// Settings → Apps over HTTP (app.inject): admins only; register (secret shown once, hashed at
// rest), refuse bad input, change, rotate with a 24-hour overlap, delete (every grant ends);
// the audit records of each, never with a secret. And /oauth/token's limit per client.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { systemActing } from '../../src/acting.js'
import { challengeOf, sha256 } from '../../src/modules/oauth/oauth.protocol.js'
import { answerConsent, checkAuthorize, exchangeCode, registerApp } from '../../src/modules/oauth-server/oauth-server.service.js'
import { backends, startApp, type TestApp } from '../helpers/app.js'
import { tenant, type Tenant } from '../helpers/factories.js'
import { sql, rawRows } from '../helpers/sql.js'
import { recordsOf } from '../audit/helpers.js'
import { Browser, csrfOf, member } from '../web/helpers.js'

const [firstBackend] = backends()
if (!firstBackend) throw new Error('no backend')
const backend = firstBackend
const APPS = '/settings/apps'
const REDIRECT = 'https://crm.example.com/cb'

describe('Settings → Apps', () => {
  let t: TestApp
  let acme: Tenant
  let now = new Date('2026-11-26T12:00:00.000Z')
  let admin: Browser

  before(async () => {
    t = await startApp(backend, { config: { signInLimit: { max: 100_000, windowMs: 60_000 } }, deps: { clock: () => now } })
    acme = await tenant(t.db, { name: 'Acme' })
    const user = await member(t.db, acme.companyId, { role: 'admin' })
    admin = new Browser(t.app)
    assert.equal((await admin.signIn(user.email)).status, 303)
  })
  after(() => t.close())

  const appCount = async () => (await rawRows<{ n: number }>(t.db, sql`select count(*)::int as n from oauth_apps`))[0]?.n
  /** Posts the register form (the scopes as the page's checkboxes send them, `scopes[]`). */
  async function register(browser: Browser, fields: Record<string, string>, scopes: string[] = ['contacts:read']) {
    const page = await browser.get(APPS)
    const form = new URLSearchParams({ _csrf: csrfOf(page.body, APPS), ...fields })
    for (const scope of scopes) form.append('scopes[]', scope)
    return browser.request('POST', APPS, form.toString())
  }

  /** Basic credentials are accepted (introspect answers 200) or not (401). */
  const authenticates = async (clientId: string, secret: string) =>
    (
      await t.app.inject({
        method: 'POST',
        url: '/oauth/introspect',
        headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Basic ${Buffer.from(`${clientId}:${secret}`).toString('base64')}` },
        payload: 'token=x',
      })
    ).statusCode

  test('a member gets 403 on every page and form, and nothing is made', async () => {
    const user = await member(t.db, acme.companyId, { role: 'member' })
    const browser = new Browser(t.app)
    await browser.signIn(user.email)
    const before = await appCount()
    assert.equal((await browser.get(APPS)).status, 403)
    const csrf = csrfOf((await browser.get('/settings/integrations')).body, '/logout')
    assert.equal((await browser.request('POST', APPS, { _csrf: csrf, name: 'X', redirect_uris: REDIRECT, 'scopes[]': 'contacts:read' })).status, 403)
    assert.equal(await appCount(), before)
    assert.doesNotMatch((await browser.get('/settings/integrations')).body, /href="\/settings\/apps"/)
  })

  test('register: client_id and secret shown once, only the hash stored, recorded without the secret', async () => {
    let page = ''
    const rows = await recordsOf(t.db, async () => {
      const res = await register(admin, { name: 'CRM Sync', redirect_uris: `${REDIRECT}\r\nhttp://127.0.0.1:8765/cb`, client_type: 'confidential' }, ['contacts:read', 'tasks:read'])
      assert.equal(res.status, 303, res.body)
      page = (await admin.get(APPS)).body
    })
    const clientId = /<code class="secret" id="client-id">([^<]+)<\/code>/.exec(page)?.[1] ?? ''
    const secret = /<code class="secret" id="client-secret">([^<]+)<\/code>/.exec(page)?.[1] ?? ''
    assert.match(clientId, /^engc_/)
    assert.match(secret, /^eng_ocs_/)
    assert.doesNotMatch((await admin.get(APPS)).body, new RegExp(secret), 'shown once')
    const [row] = await rawRows<{ secret_hash: string; redirect_uris: string[]; scopes: string[]; company_id: number }>(t.db, sql`select secret_hash, redirect_uris, scopes, company_id from oauth_apps where client_id = ${clientId}`)
    assert.deepEqual(row, { secret_hash: sha256(secret), redirect_uris: [REDIRECT, 'http://127.0.0.1:8765/cb'], scopes: ['contacts:read', 'tasks:read'], company_id: acme.companyId })
    assert.deepEqual(rows.map((r) => [r.action, r.actor_type]), [['oauth_app.registered', 'user']])
    assert.doesNotMatch(JSON.stringify(rows), /eng_ocs_/)
    assert.equal(await authenticates(clientId, secret), 200)
    assert.equal(await authenticates(clientId, `${secret}x`), 401)
  })

  test('bad input: a non-loopback http URI, a fragment, no name, no scope, an unknown scope: 422 with sentences, nothing stored', async () => {
    const before = await appCount()
    const cases: [Record<string, string>, string[], RegExp][] = [
      [{ name: 'A', redirect_uris: 'http://crm.example.com/cb' }, ['contacts:read'], /must use https/],
      [{ name: 'A', redirect_uris: 'https://crm.example.com/cb#x' }, ['contacts:read'], /fragment/],
      [{ name: ' ', redirect_uris: REDIRECT }, ['contacts:read'], /The name can&#39;t be blank/],
      [{ name: 'A', redirect_uris: '' }, ['contacts:read'], /Redirect URIs: can&#39;t be blank/],
      [{ name: 'A', redirect_uris: REDIRECT }, [], /Scopes: can&#39;t be blank/],
      [{ name: 'A', redirect_uris: REDIRECT }, ['contacts:admin'], /unknown scopes/],
    ]
    for (const [fields, scopes, message] of cases) {
      const res = await register(admin, fields, scopes)
      assert.equal(res.status, 422, JSON.stringify(fields))
      assert.match(res.body, message)
    }
    assert.equal(await appCount(), before)
  })

  test('a public client gets no secret, and cannot rotate one', async () => {
    const res = await register(admin, { name: 'Desktop', redirect_uris: 'http://localhost:9000/done', client_type: 'public' })
    assert.equal(res.status, 303)
    const page = (await admin.get(APPS)).body
    assert.match(page, /A public client has no secret/)
    assert.doesNotMatch(page, /id="client-secret"/)
    const [row] = await rawRows<{ id: number; secret_hash: string | null }>(t.db, sql`select id, secret_hash from oauth_apps where name = 'Desktop'`)
    assert.ok(row)
    assert.equal(row.secret_hash, null)
    const edit = await admin.get(`${APPS}/${String(row.id)}`)
    assert.doesNotMatch(edit.body, /Rotate the secret/)
  })

  test('change, rotate (the old secret works 24 hours more), delete (every grant ends at once); each recorded', async () => {
    const made = await registerApp(t.db, { companyId: acme.companyId, ...systemActing(now) }, { name: 'Dialer', redirectUris: [REDIRECT], scopes: ['contacts:read'] })
    const base = `${APPS}/${String(made.app.id)}`
    const change = await recordsOf(t.db, async () => {
      const page = await admin.get(base)
      const res = await admin.request('POST', base, `${new URLSearchParams({ _csrf: csrfOf(page.body, base), name: 'Dialer Pro', redirect_uris: REDIRECT }).toString()}&scopes[]=contacts:read&scopes[]=tasks:read`)
      assert.equal(res.status, 303, res.body)
    })
    assert.deepEqual(change.map((r) => [r.action, r.changes]), [['oauth_app.changed', { name: ['Dialer', 'Dialer Pro'], scopes: [['contacts:read'], ['contacts:read', 'tasks:read']] }]])

    const rotate = await recordsOf(t.db, async () => {
      assert.equal((await admin.submit(base, `${base}/rotate`)).status, 303)
    })
    assert.deepEqual(rotate.map((r) => r.action), ['oauth_app.secret_rotated'])
    const fresh = /<code class="secret" id="client-secret">([^<]+)<\/code>/.exec((await admin.get(APPS)).body)?.[1] ?? ''
    assert.match(fresh, /^eng_ocs_/)
    assert.doesNotMatch(JSON.stringify(rotate), /eng_ocs_/)
    assert.equal(await authenticates(made.app.client_id, fresh), 200)
    assert.equal(await authenticates(made.app.client_id, made.clientSecret ?? ''), 200, 'the old one, within the overlap')
    const start = now
    now = new Date(start.getTime() + 24 * 3600_000)
    assert.equal(await authenticates(made.app.client_id, made.clientSecret ?? ''), 401, 'the old one, past it')
    now = start

    // A grant of the app, then the app deleted: its access token answers 401.
    const user = await member(t.db, acme.companyId)
    const verifier = 'd'.repeat(43)
    const checked = await checkAuthorize(t.db, { client_id: made.app.client_id, redirect_uri: REDIRECT, response_type: 'code', scope: 'contacts:read', code_challenge: challengeOf(verifier), code_challenge_method: 'S256' }, 'http://localhost:3000')
    if (checked.kind !== 'ok') throw new Error(`the request is refused: ${JSON.stringify(checked)}`)
    const to = new URL(await answerConsent(t.db, { companyId: acme.companyId, userId: user.id, ...systemActing(now) }, checked, true))
    const tokens = await exchangeCode(t.db, checked.client, { code: to.searchParams.get('code'), code_verifier: verifier, redirect_uri: REDIRECT }, now)
    const call = () => t.app.inject({ url: '/api/v1/contacts?page=1', headers: { authorization: `Bearer ${tokens.access_token}` } })
    assert.equal((await call()).statusCode, 200)
    const removed = await recordsOf(t.db, async () => {
      assert.equal((await admin.get(`${base}/delete`)).status, 200)
      assert.equal((await admin.submit(`${base}/delete`, `${base}/delete`)).status, 303)
    })
    assert.deepEqual(removed.map((r) => [r.action, r.changes]), [['oauth_app.deleted', { grants_ended: [null, 1] }]])
    let status = 0
    for (let i = 0; i < 100 && status !== 401; i++) {
      status = (await call()).statusCode
      if (status !== 401) await new Promise((resolve) => setTimeout(resolve, 20))
    }
    assert.equal(status, 401)
    const [left] = await rawRows<{ n: number }>(t.db, sql`select count(*)::int as n from oauth_grants where app_id = ${made.app.id}`)
    assert.equal(left?.n, 0)
    assert.equal((await admin.get(base)).status, 404)
  })

  test('another company\'s admin finds none of these apps', async () => {
    const globex = await tenant(t.db, { name: 'Globex' })
    const made = await registerApp(t.db, { companyId: acme.companyId, ...systemActing(now) }, { name: 'Mine', redirectUris: [REDIRECT], scopes: ['contacts:read'] })
    const user = await member(t.db, globex.companyId, { role: 'admin' })
    const browser = new Browser(t.app)
    await browser.signIn(user.email)
    assert.equal((await browser.get(`${APPS}/${String(made.app.id)}`)).status, 404)
    assert.doesNotMatch((await browser.get(APPS)).body, /Mine/)
    const csrf = csrfOf((await browser.get(APPS)).body, '/logout')
    assert.equal((await browser.request('POST', `${APPS}/${String(made.app.id)}/delete`, { _csrf: csrf })).status, 404)
    const [still] = await rawRows<{ n: number }>(t.db, sql`select count(*)::int as n from oauth_apps where id = ${made.app.id}`)
    assert.equal(still?.n, 1)
  })
})

describe('/oauth/token is limited per client', () => {
  let t: TestApp
  before(async () => {
    t = await startApp(backend, { config: { rateLimit: { max: 3, windowMs: 60_000, keyPrefix: `engage:test:oauth-limit-${String(Date.now())}:` } } })
  })
  after(() => t.close())

  test('the client\'s 4th request in the window is 429 rate_limited with Retry-After; another client is not affected', async () => {
    const acme = await tenant(t.db)
    const one = await registerApp(t.db, { companyId: acme.companyId, ...systemActing() }, { name: 'One', redirectUris: [REDIRECT], scopes: ['contacts:read'] })
    const two = await registerApp(t.db, { companyId: acme.companyId, ...systemActing() }, { name: 'Two', redirectUris: [REDIRECT], scopes: ['contacts:read'] })
    const post = (clientId: string, secret: string) =>
      t.app.inject({ method: 'POST', url: '/oauth/token', headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: 'nope', client_id: clientId, client_secret: secret }).toString() })
    for (let i = 0; i < 3; i++) assert.equal((await post(one.app.client_id, one.clientSecret ?? '')).statusCode, 400)
    const limited = await post(one.app.client_id, one.clientSecret ?? '')
    assert.equal(limited.statusCode, 429)
    assert.equal(limited.json().error, 'rate_limited')
    assert.ok(Number(limited.headers['retry-after']) >= 1)
    assert.equal((await post(two.app.client_id, two.clientSecret ?? '')).statusCode, 400)
  })
})
