// The web application over HTTP (app.inject): sign in and out, sessions and their cookie,
// CSRF, Settings → Integrations, bad input, security headers. The same flows in a real
// browser are in browser.test.ts; the admin commands in admin.test.ts.
import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import { after, before, describe, test } from 'node:test'
import { deactivateUser, setPassword } from '../../src/modules/auth/accounts.service.js'
import { passwordVerifications } from '../../src/modules/auth/passwords.js'
import { systemActing } from '../../src/acting.js'
import { createToken } from '../../src/modules/auth/tokens.service.js'
import { backends, startApp, type TestApp } from '../helpers/app.js'
import { addUser, tenant, type Tenant } from '../helpers/factories.js'
import { rawRows, sql } from '../helpers/sql.js'
import { Browser, csrfOf, member, PASSWORD } from './helpers.js'

const [firstBackend] = backends()
if (!firstBackend) throw new Error('no backend')
const backend = firstBackend
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex')
const HOME = '/settings/integrations'
/** Where signing in lands (the workspace's Tasks). */
const LANDING = '/tasks'

describe('web application', () => {
  let t: TestApp
  let acme: Tenant
  before(async () => {
    // Sign-in limits are tested on their own app below.
    t = await startApp(backend, { config: { signInLimit: { max: 100_000, windowMs: 60_000 } } })
    acme = await tenant(t.db, { name: 'Acme' })
  })
  after(() => t.close())

  const authorize = (token: string) =>
    t.app.inject({ url: '/api/v1/users/authorize_api', headers: { authorization: `Bearer ${token}` } })

  /** Revocations reach the token cache through NOTIFY: prompt, not instant. */
  async function eventually401(token: string) {
    let status = 200
    for (let i = 0; i < 50 && status !== 401; i++) {
      status = (await authorize(token)).statusCode
      if (status !== 401) await new Promise((resolve) => setTimeout(resolve, 20))
    }
    assert.equal(status, 401)
  }

  async function signedIn(options: { email?: string } = {}) {
    const user = await member(t.db, acme.companyId, options)
    const browser = new Browser(t.app)
    const res = await browser.signIn(user.email)
    assert.equal(res.status, 303, res.body)
    assert.equal(res.location, LANDING)
    return { user, browser }
  }

  const liveTokens = (userId: number) =>
    rawRows<{ id: number; label: string | null; tokenHash: string }>(t.db, sql`
      select id, label, token_hash as "tokenHash" from api_tokens where user_id = ${userId} and revoked_at is null`)
  const sessionsOf = (userId: number) =>
    rawRows<{ tokenHash: string }>(t.db, sql`select token_hash as "tokenHash" from web_sessions where user_id = ${userId}`)

  test('signed out: / and the settings send to /login, which is a form with email, password and a button', async () => {
    const browser = new Browser(t.app)
    assert.equal((await browser.get('/')).location, '/login')
    const settings = await browser.get(HOME)
    assert.equal(settings.status, 303)
    assert.equal(settings.location, '/login')
    const login = await browser.get('/login')
    assert.equal(login.status, 200)
    assert.match(String(login.headers['content-type']), /^text\/html; charset=utf-8/)
    assert.match(login.body, /<input id="email" name="email" type="email"/)
    assert.match(login.body, /<input id="password" name="password" type="password"/)
    assert.match(login.body, /<label for="email">Email<\/label>/)
    assert.match(login.body, /<button type="submit" class="primary">Sign in<\/button>/)
    assert.match(login.body, /href="\/docs\/v1"/)
  })

  test('security headers on every page: strict CSP without inline script, no framing, Referrer-Policy, no caching', async () => {
    const browser = new Browser(t.app)
    const { browser: signedInBrowser } = await signedIn()
    for (const res of [await browser.get('/login'), await signedInBrowser.get(HOME), await browser.get('/invite/nope')]) {
      const csp = String(res.headers['content-security-policy'])
      assert.match(csp, /default-src 'none'/)
      assert.match(csp, /script-src 'self'(;|$)/)
      assert.match(csp, /style-src 'self'(;|$)/)
      assert.match(csp, /frame-ancestors 'none'/)
      assert.match(csp, /form-action 'self'/)
      assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval|upgrade-insecure-requests/)
      assert.equal(res.headers['x-frame-options'], 'DENY')
      assert.equal(res.headers['referrer-policy'], 'no-referrer')
      assert.equal(res.headers['x-content-type-options'], 'nosniff')
      assert.equal(res.headers['cache-control'], 'no-store')
      assert.equal(res.headers['strict-transport-security'], undefined, 'plain http: no HSTS')
      // No inline script or style: every <script> has a src, no style attribute or element.
      assert.doesNotMatch(res.body, /<script(?![^>]*\bsrc=)[^>]*>|<style|\sstyle=/)
    }
    // The API keeps its JSON and no page policy; the reference keeps its own.
    const api = await authorize(acme.token)
    assert.equal(api.statusCode, 200)
    assert.equal(api.headers['content-security-policy'], undefined)
  })

  test('the stylesheet and the script are served from the package, cacheable by their versioned URL', async () => {
    const login = await new Browser(t.app).get('/login')
    const css = /<link rel="stylesheet" href="([^"]+)">/.exec(login.body)?.[1]
    const js = /<script src="([^"]+)" defer>/.exec(login.body)?.[1]
    assert.match(String(css), /^\/assets\/web\.css\?v=[0-9a-f]{12}$/)
    assert.match(String(js), /^\/assets\/web\.js\?v=[0-9a-f]{12}$/)
    const sheet = await t.app.inject({ url: String(css) })
    assert.equal(sheet.statusCode, 200)
    assert.match(String(sheet.headers['content-type']), /^text\/css/)
    assert.match(String(sheet.headers['cache-control']), /immutable/)
    assert.doesNotMatch(sheet.body, /@import|url\(\s*["']?https?:/, 'no external fonts or resources')
    assert.match(sheet.body, /:focus-visible/)
    assert.equal((await t.app.inject({ url: String(js) })).statusCode, 200)
  })

  test('sign in: a session cookie HttpOnly, SameSite=Lax, Path=/, not Secure on http; only its hash is stored', async () => {
    const user = await member(t.db, acme.companyId)
    const browser = new Browser(t.app)
    const res = await browser.signIn(user.email.toUpperCase()) // emails match whatever their case
    assert.equal(res.status, 303)
    assert.equal(res.location, LANDING)
    const cookies = [res.headers['set-cookie']].flat().map(String)
    const session = cookies.find((c) => c.startsWith('engage_session='))
    assert.ok(session, cookies.join('\n'))
    assert.match(session, /; HttpOnly/)
    assert.match(session, /; SameSite=Lax/)
    assert.match(session, /; Path=\//)
    assert.match(session, /; Max-Age=2592000/)
    assert.doesNotMatch(session, /Secure/)
    const secret = browser.cookies.get('engage_session') ?? ''
    assert.match(secret, /^[A-Za-z0-9_-]{43}$/)
    const rows = await sessionsOf(user.id)
    assert.equal(rows.length, 1)
    assert.equal(rows[0]?.tokenHash, sha256(secret))

    const page = await browser.get(HOME)
    assert.equal(page.status, 200)
    assert.match(page.body, new RegExp(user.email))
    assert.match(page.body, /Sign out/)
    assert.equal((await browser.get('/')).location, LANDING)
    assert.equal((await browser.get('/login')).location, LANDING)
  })

  test('signing in again rotates the session id: the old one ends', async () => {
    const { user, browser } = await signedIn()
    const first = browser.cookies.get('engage_session') ?? ''
    const again = await browser.request('POST', '/login', { _csrf: browser.cookies.get('engage_form') ?? '', email: user.email, password: PASSWORD })
    assert.equal(again.status, 303)
    const second = browser.cookies.get('engage_session') ?? ''
    assert.notEqual(second, first)
    const rows = await sessionsOf(user.id)
    assert.deepEqual(rows.map((r) => r.tokenHash), [sha256(second)])
  })

  test('with an https PUBLIC_URL the cookies are Secure and __Host- prefixed, and HSTS is sent', async () => {
    const secure = await startApp(backend, { config: { publicUrl: 'https://engage.example', signInLimit: { max: 1000, windowMs: 60_000 } } })
    try {
      const company = await tenant(secure.db)
      const user = await member(secure.db, company.companyId)
      const browser = new Browser(secure.app)
      const login = await browser.get('/login')
      assert.match(String(login.headers['strict-transport-security']), /max-age=31536000/)
      const res = await browser.signIn(user.email)
      assert.equal(res.status, 303)
      const session = [res.headers['set-cookie']].flat().map(String).find((c) => c.startsWith('__Host-engage_session='))
      assert.ok(session)
      assert.match(session, /; Secure/)
      assert.match(session, /; HttpOnly/)
      assert.match(session, /; SameSite=Lax/)
    } finally {
      await secure.close()
    }
  })

  test('a wrong password and an unknown email get the same message and status, and both cost a password check', async () => {
    const user = await member(t.db, acme.companyId)
    // Counted, not timed: each refusal runs exactly one argon2 verification (an unknown email
    // against a dummy hash), so the two cannot be told apart by their time.
    for (const email of [user.email, 'nobody@nowhere.example']) {
      const browser = new Browser(t.app)
      const before = passwordVerifications()
      const res = await browser.signIn(email, 'not the password at all')
      assert.equal(passwordVerifications() - before, 1, email)
      assert.equal(res.status, 401)
      assert.match(res.body, /Invalid email or password\./)
      assert.equal(browser.cookies.get('engage_session'), undefined)
    }
    assert.equal((await sessionsOf(user.id)).length, 0)
  })

  test('deactivated users and users without a password cannot sign in', async () => {
    const user = await member(t.db, acme.companyId)
    await deactivateUser(t.db, systemActing(), user.id)
    const res = await new Browser(t.app).signIn(user.email)
    assert.equal(res.status, 401)
    assert.match(res.body, /Invalid email or password\./)
    const nopassword = await addUser(t.db, acme.companyId)
    assert.equal((await new Browser(t.app).signIn(nopassword.email, '')).status, 422)
    assert.equal((await new Browser(t.app).signIn(nopassword.email, 'some password')).status, 401)
  })

  test('an email in two companies: each password opens its own account; one password for both opens neither', async () => {
    const globex = await tenant(t.db, { name: 'Globex' })
    const email = 'shared@two.example'
    const inAcme = await member(t.db, acme.companyId, { email, password: 'acme password 1' })
    const inGlobex = await member(t.db, globex.companyId, { email, password: 'globex password 2' })
    for (const [password, company] of [['acme password 1', 'Acme'], ['globex password 2', 'Globex']] as const) {
      const browser = new Browser(t.app)
      assert.equal((await browser.signIn(email, password)).status, 303)
      assert.match((await browser.get(HOME)).body, new RegExp(`${email} · ${company}`))
    }
    await setPassword(t.db, systemActing(), inGlobex.id, { password: 'acme password 1' })
    const both = await new Browser(t.app).signIn(email, 'acme password 1')
    assert.equal(both.status, 409)
    assert.match(both.body, /more than one company/)
    assert.ok(inAcme.id)
  })

  test('bad sign-in input: a clear message and 4xx, never 500', async () => {
    const browser = new Browser(t.app)
    await browser.get('/login')
    const csrf = browser.cookies.get('engage_form') ?? ''
    const cases: [string, number, RegExp][] = [
      [`_csrf=${csrf}`, 422, /Enter your email and your password/],
      [`_csrf=${csrf}&email=a%40b.example`, 422, /Enter your email and your password/],
      [`_csrf=${csrf}&email[]=a%40b.example&password=x`, 422, /Enter your email and your password/],
      [`_csrf=${csrf}&email=${'a'.repeat(300)}%40b.example&password=x`, 422, /not an email address/],
      [`_csrf=${csrf}&email=a%00b%40c.example&password=x`, 422, /not an email address/],
      [`_csrf=${csrf}&email=a%0Ab%40c.example&password=x`, 422, /not an email address/],
      [`_csrf=${csrf}&email=a%40b.example&password=${'p'.repeat(1001)}`, 422, /Invalid email or password/],
      [`_csrf=${csrf}&email=%E0%A4%A`, 400, /The form could not be read/],
    ]
    for (const [body, status, message] of cases) {
      const res = await browser.request('POST', '/login', body)
      assert.equal(res.status, status, body)
      assert.match(res.body, message, body)
      assert.match(String(res.headers['content-type']), /text\/html/)
    }
    const multipart = await browser.request('POST', '/login', undefined, { 'content-type': 'multipart/form-data; boundary=x' })
    assert.equal(multipart.status, 415)
    assert.match(multipart.body, /ordinary web form/)
    const huge = await browser.request('POST', '/login', `_csrf=${csrf}&email=${'a'.repeat(70_000)}`)
    assert.equal(huge.status, 413)
    assert.match(huge.body, /too large/)
  })

  test('CSRF: a form without its token, or with a wrong one, answers 403 and changes nothing', async () => {
    const { user, browser } = await signedIn()
    const { token } = await createToken(t.db, systemActing(), user.id)
    const [live] = await liveTokens(user.id)
    assert.ok(live)
    const before = (await liveTokens(user.id)).length
    for (const csrf of [undefined, 'wrong', browser.cookies.get('engage_form') ?? '']) {
      const fields: Record<string, string> = csrf === undefined ? {} : { _csrf: csrf }
      const create = await browser.request('POST', `${HOME}/tokens`, { ...fields, label: 'sneaky' })
      assert.equal(create.status, 403)
      assert.match(create.body, /nothing was changed/)
      const revoke = await browser.request('POST', `${HOME}/tokens/${String(live.id)}/revoke`, fields)
      assert.equal(revoke.status, 403)
      const logout = await browser.request('POST', '/logout', fields)
      assert.equal(logout.status, 403)
    }
    assert.equal((await liveTokens(user.id)).length, before)
    assert.equal((await authorize(token)).statusCode, 200)
    assert.equal((await browser.get(HOME)).status, 200, 'still signed in')

    // The sign-in form checks its own token (double submit: the form's equals its cookie's).
    const anonymous = new Browser(t.app)
    await anonymous.get('/login')
    const res = await anonymous.request('POST', '/login', { _csrf: 'forged', email: user.email, password: PASSWORD })
    assert.equal(res.status, 403)
    assert.equal(anonymous.cookies.get('engage_session'), undefined)
    const noCookie = await new Browser(t.app).request('POST', '/login', { _csrf: 'x'.repeat(43), email: user.email, password: PASSWORD })
    assert.equal(noCookie.status, 403)
  })

  test('create a token with a label: shown whole exactly once, with a curl line; then only its first characters', async () => {
    const { user, browser } = await signedIn()
    const created = await browser.submit(HOME, `${HOME}/tokens`, { label: 'CRM sync <b>' })
    assert.equal(created.status, 303)
    assert.equal(created.location, HOME)
    const page = await browser.get(HOME)
    const token = /<code id="new-token" class="secret">(eng_[A-Za-z0-9_-]{32})<\/code>/.exec(page.body)?.[1]
    assert.ok(token, page.body)
    assert.match(page.body, /shown only this once/)
    assert.ok(page.body.includes(`curl http://localhost:80/api/v1/users/authorize_api -H &quot;Authorization: Bearer ${token}&quot;`), 'curl line')
    assert.ok(page.body.includes('CRM sync &lt;b&gt;'), 'the label is escaped')
    assert.equal((await authorize(token)).statusCode, 200)

    const reloaded = await browser.get(HOME)
    assert.ok(!reloaded.body.includes(token), 'not shown again')
    assert.ok(reloaded.body.includes(`<code>${token.slice(0, 12)}…</code>`))
    const [row] = await liveTokens(user.id)
    assert.ok(row)
    assert.equal(row.label, 'CRM sync <b>')
    assert.equal(row.tokenHash, sha256(token))

    // Without a label too.
    assert.equal((await browser.submit(HOME, `${HOME}/tokens`, {})).status, 303)
    assert.equal((await liveTokens(user.id)).length, 2)
  })

  test('bad labels: a clear message, 422, no token', async () => {
    const { user, browser } = await signedIn()
    const cases: [string, RegExp][] = [
      ['x'.repeat(256), /The label is too long \(maximum is 255 characters\)/],
      ['tab\there', /The label contains control characters/],
      ['nul\u0000', /The label contains control characters/],
    ]
    for (const [label, message] of cases) {
      const res = await browser.submit(HOME, `${HOME}/tokens`, { label })
      assert.equal(res.status, 422, label)
      assert.match(res.body, message)
    }
    const page = await browser.get(HOME)
    const list = await browser.request('POST', `${HOME}/tokens`, `_csrf=${csrfOf(page.body, `${HOME}/tokens`)}&label[]=a`)
    assert.equal(list.status, 422)
    assert.match(list.body, /The label must be text/)
    assert.equal('x'.repeat(255).length, 255)
    assert.equal((await browser.submit(HOME, `${HOME}/tokens`, { label: '🙂'.repeat(255) })).status, 303, '255 code points fit')
    assert.equal((await liveTokens(user.id)).length, 1)
  })

  test('revoke: a confirmation page, then the token answers 401 at once, even cached', async () => {
    const { user, browser } = await signedIn()
    const { token, id } = await createToken(t.db, systemActing(), user.id)
    assert.equal((await authorize(token)).statusCode, 200) // now cached
    const list = await browser.get(HOME)
    assert.ok(list.body.includes(`href="${HOME}/tokens/${String(id)}/revoke"`))
    const confirm = await browser.get(`${HOME}/tokens/${String(id)}/revoke`)
    assert.equal(confirm.status, 200)
    assert.match(confirm.body, /Revoke this token\?/)
    assert.ok(confirm.body.includes(token.slice(0, 12)))
    assert.ok(!confirm.body.includes(token))
    const res = await browser.submit(`${HOME}/tokens/${String(id)}/revoke`, `${HOME}/tokens/${String(id)}/revoke`)
    assert.equal(res.status, 303)
    await eventually401(token)
    const after = await browser.get(HOME)
    assert.match(after.body, /revoked: it no longer works/)
    assert.ok(!after.body.includes(`tokens/${String(id)}/revoke`))
    // Revoking it again: it is gone.
    assert.equal((await browser.get(`${HOME}/tokens/${String(id)}/revoke`)).status, 404)
  })

  test("another user's token is invisible and cannot be revoked (404); unknown ids are 404", async () => {
    const { browser } = await signedIn()
    const other = await member(t.db, acme.companyId)
    const theirs = await createToken(t.db, systemActing(), other.id)
    const page = await browser.get(HOME)
    assert.ok(!page.body.includes(theirs.prefix))
    const csrf = csrfOf(page.body)
    for (const id of [String(theirs.id), String(acme.userId + 100_000), '0', 'abc', '1e3', '9007199254740992', '99999999999999999999', '-1']) {
      const view = await browser.get(`${HOME}/tokens/${id}/revoke`)
      assert.equal(view.status, 404, id)
      assert.match(view.body, /Page not found/)
      const post = await browser.request('POST', `${HOME}/tokens/${id}/revoke`, { _csrf: csrf })
      assert.equal(post.status, 404, id)
    }
    assert.equal((await authorize(theirs.token)).statusCode, 200)
  })

  test('sign out ends the session: the settings send to /login again', async () => {
    const { user, browser } = await signedIn()
    const secret = browser.cookies.get('engage_session') ?? ''
    const res = await browser.submit(HOME, '/logout')
    assert.equal(res.status, 303)
    assert.equal(res.location, '/login')
    assert.equal(browser.cookies.get('engage_session'), undefined)
    assert.equal((await browser.get(HOME)).location, '/login')
    assert.equal((await sessionsOf(user.id)).length, 0)
    // The old cookie, replayed, is no session either.
    const replay = await t.app.inject({ url: HOME, headers: { cookie: `engage_session=${secret}` } })
    assert.equal(replay.statusCode, 303)
  })

  test("a deactivated user's session ends at once and their tokens answer 401", async () => {
    const { user, browser } = await signedIn()
    const { token } = await createToken(t.db, systemActing(), user.id)
    assert.equal((await authorize(token)).statusCode, 200) // cached
    await deactivateUser(t.db, systemActing(), user.id)
    const res = await browser.get(HOME)
    assert.equal(res.status, 303)
    assert.equal(res.location, '/login')
    await eventually401(token)
    assert.equal((await rawRows<{ active: boolean }>(t.db, sql`select active from users where id = ${user.id}`))[0]?.active, false)
  })

  test('sessions expire after 12 idle hours and after 30 days whatever the activity', async () => {
    let now = new Date('2026-11-22T10:00:00.000Z')
    const timed = await startApp(backend, { deps: { clock: () => now }, config: { signInLimit: { max: 1000, windowMs: 60_000 } } })
    try {
      const company = await tenant(timed.db)
      const user = await member(timed.db, company.companyId)
      const browser = new Browser(timed.app)
      assert.equal((await browser.signIn(user.email)).status, 303)
      const at = (ms: number) => new Date(now.getTime() + ms)
      now = at(11 * 3600_000)
      assert.equal((await browser.get(HOME)).status, 200, 'active within 12 h')
      now = at(11 * 3600_000)
      assert.equal((await browser.get(HOME)).status, 200, 'idle time counts from the last request')
      now = at(12 * 3600_000 + 1000)
      assert.equal((await browser.get(HOME)).location, '/login', 'idle for 12 h')

      assert.equal((await browser.signIn(user.email)).status, 303)
      // A request every 8 hours for 30 days (90 of them): the last one is refused.
      for (let i = 1; i < 90; i++) {
        now = at(8 * 3600_000)
        assert.equal((await browser.get(HOME)).status, 200, `after ${String(i * 8)} h`)
      }
      now = at(8 * 3600_000)
      assert.equal((await browser.get(HOME)).location, '/login', '30 days after signing in')
    } finally {
      await timed.close()
    }
  })

  test('unknown addresses under the pages answer an HTML 404 page; elsewhere the JSON one stays', async () => {
    for (const url of ['/settings/nothing', '/contacts/1/nothing', '/settings/integrations/tokens', '/invite', '/invite/a/b']) {
      const res = await t.app.inject({ url })
      assert.equal(res.statusCode, 404, url)
      assert.match(String(res.headers['content-type']), /^text\/html/, url)
      assert.match(res.body, /Page not found/)
      assert.match(String(res.headers['content-security-policy']), /default-src 'none'/)
    }
    const api = await t.app.inject({ url: '/api/v1/nothing' })
    assert.equal(api.statusCode, 404)
    assert.equal(api.json().error.code, 'not_found')
  })

  test('the web pages are not operations of the API: the OpenAPI document leaves them out', async () => {
    const doc = (await t.app.inject({ url: '/docs/v1/openapi.json' })).json<{ paths: Record<string, unknown> }>()
    for (const path of Object.keys(doc.paths)) assert.ok(path.startsWith('/api/') || ['/healthz', '/readyz'].includes(path), path)
  })
})

describe('sign-in limits (10 attempts per 15 minutes per email and per client address)', () => {
  let t: TestApp
  before(async () => {
    t = await startApp(backend) // the production limits
  })
  after(() => t.close())

  test('per email: the 11th attempt is refused with a clear message, even with the right password', async () => {
    const company = await tenant(t.db)
    const user = await member(t.db, company.companyId)
    for (let i = 0; i < 10; i++) {
      const res = await new Browser(t.app, `10.0.0.${String(i + 1)}`).signIn(user.email, 'wrong password!')
      assert.equal(res.status, 401)
    }
    const refused = await new Browser(t.app, '10.0.1.1').signIn(user.email)
    assert.equal(refused.status, 429)
    assert.match(refused.body, /Too many sign-in attempts\. Wait 15 minutes and try again\./)
    // The window began with the first attempt, 10 password checks ago (a second or two on a
    // busy machine): what is left of the 15 minutes.
    const wait = Number(refused.headers['retry-after'])
    assert.ok(wait > 890 && wait <= 900, `Retry-After ${String(refused.headers['retry-after'])}`)
    const other = await member(t.db, company.companyId)
    assert.equal((await new Browser(t.app, '10.0.1.1').signIn(other.email)).status, 303, 'other emails are not limited')
  })

  test('per client address: the 11th attempt from one address is refused whatever the email', async () => {
    const company = await tenant(t.db)
    const user = await member(t.db, company.companyId)
    for (let i = 0; i < 10; i++) {
      const res = await new Browser(t.app, '10.9.9.9').signIn(`nobody${String(i)}@example.com`, 'wrong password!')
      assert.equal(res.status, 401)
    }
    const refused = await new Browser(t.app, '10.9.9.9').signIn(user.email)
    assert.equal(refused.status, 429)
    assert.match(refused.body, /Too many sign-in attempts/)
    assert.equal((await new Browser(t.app, '10.9.9.10').signIn(user.email)).status, 303)
  })
})
