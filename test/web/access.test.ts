// Access control in the web application (docs/access-control.md), over HTTP (app.inject):
// choosing a token's scopes and expiry on Integrations, the "Tokens of this company" page of
// admins, and the roles' matrix of the pages (members see webhooks read-only).
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { sql, rawRows } from '../helpers/sql.js'
import { systemActing } from '../../src/acting.js'
import { createToken } from '../../src/modules/auth/tokens.service.js'
import { backends, startApp, type TestApp } from '../helpers/app.js'
import { addSubscription, tenant, type Tenant } from '../helpers/factories.js'
import { tableSnapshot } from '../helpers/snapshot.js'
import { Browser, csrfOf, member } from './helpers.js'

const [firstBackend] = backends()
if (!firstBackend) throw new Error('no backend')
const backend = firstBackend
const HOME = '/settings/integrations'
const COMPANY = '/settings/tokens'
const DAY = 24 * 60 * 60_000

describe('web application: access control', () => {
  let t: TestApp
  let acme: Tenant
  let now = new Date('2026-11-26T12:00:00.000Z')

  before(async () => {
    t = await startApp(backend, { config: { signInLimit: { max: 100_000, windowMs: 60_000 } }, deps: { clock: () => now } })
    acme = await tenant(t.db, { name: 'Acme' })
  })
  after(() => t.close())

  async function signedIn(role: 'admin' | 'member', companyId = acme.companyId) {
    const user = await member(t.db, companyId, { role })
    const browser = new Browser(t.app)
    const res = await browser.signIn(user.email)
    assert.equal(res.status, 303, res.body)
    return { user, browser }
  }

  /** The new token shown once after creating one. */
  async function createdToken(browser: Browser) {
    const page = await browser.get(HOME)
    const token = /<code id="new-token" class="secret">([^<]+)<\/code>/.exec(page.body)?.[1]
    assert.ok(token, 'the new token is shown')
    return token
  }

  const storedTokens = async (userId: number) =>
    rawRows<{ scopes: string[] | null; ms: number | null }>(
      t.db,
      sql`select scopes, (extract(epoch from expires_at) * 1000)::float8 as ms from api_tokens where user_id = ${userId} and revoked_at is null order by id`,
    )

  test('the form offers full access (chosen) or scopes, and an expiry: never (chosen), 30, 90 or 365 days', async () => {
    const { browser } = await signedIn('member')
    const page = await browser.get(HOME)
    assert.match(page.body, /<input type="radio" name="access" value="full" checked> Full access/)
    assert.match(page.body, /<input type="radio" name="access" value="scopes" > Only these scopes/)
    for (const scope of ['contacts:read', 'contacts:write', 'tasks:write', 'users:read', 'webhooks:write', 'audit:read']) {
      assert.match(page.body, new RegExp(`<input type="checkbox" name="scopes\\[\\]" value="${scope}" >`), scope)
    }
    assert.match(page.body, /<option value="" selected>Never<\/option>/)
    for (const days of [30, 90, 365]) assert.match(page.body, new RegExp(`<option value="${String(days)}" >In ${String(days)} days</option>`))
  })

  test('a scoped token with an expiry: stored, listed with its scopes and expiry, and the API holds it to them', async () => {
    const { user, browser } = await signedIn('member')
    const res = await browser.request('POST', `${HOME}/tokens`,
      `_csrf=${encodeURIComponent(csrfOf((await browser.get(HOME)).body, `${HOME}/tokens`))}&label=Sync&access=scopes&scopes%5B%5D=tasks%3Awrite&scopes%5B%5D=contacts%3Aread&expires_in_days=90`)
    assert.equal(res.status, 303, res.body)
    const token = await createdToken(browser)
    assert.deepEqual(await storedTokens(user.id), [{ scopes: ['contacts:read', 'tasks:write'], ms: now.getTime() + 90 * DAY }])
    const list = await browser.get(HOME)
    assert.match(list.body, /<td data-label="Access"><code>contacts:read<\/code>, <code>tasks:write<\/code><\/td>/)
    assert.match(list.body, /<td data-label="Expires"><time datetime="2027-02-24T12:00:00.000Z">/)

    const headers = { authorization: `Bearer ${token}` }
    assert.equal((await t.app.inject({ url: '/api/v1/tasks?page=1', headers })).statusCode, 200)
    const refused = await t.app.inject({ method: 'POST', url: '/api/v1/tags', headers, payload: { name: 'x', color: '#fff' } })
    assert.equal(refused.statusCode, 403)
    assert.deepEqual(refused.json().error.details, { scope: ['tags:write'] })
    now = new Date(now.getTime() + 90 * DAY)
    try {
      const expired = await t.app.inject({ url: '/api/v1/tasks?page=1', headers })
      assert.equal(expired.statusCode, 401)
      assert.equal(expired.json().error.code, 'token_expired')
      const again = new Browser(t.app) // the session ended long ago
      assert.equal((await again.signIn(user.email)).status, 303)
      assert.match((await again.get(HOME)).body, /<td data-label="Expires"><strong class="danger-text">Expired<\/strong>/)
    } finally {
      now = new Date('2026-11-26T12:00:00.000Z')
    }
  })

  test('full access by default: listed as such, never expires', async () => {
    const { user, browser } = await signedIn('member')
    assert.equal((await browser.submit(HOME, `${HOME}/tokens`, { label: 'Full' })).status, 303)
    await createdToken(browser)
    assert.deepEqual(await storedTokens(user.id), [{ scopes: null, ms: null }])
    const list = await browser.get(HOME)
    assert.match(list.body, /<td data-label="Access">Full access<\/td>/)
    assert.match(list.body, /<td data-label="Expires"><span class="muted">Never<\/span><\/td>/)
  })

  test('no scope chosen, an unknown scope or an expiry not offered: 422 with a clear sentence, the choice kept, nothing stored', async () => {
    const { user, browser } = await signedIn('member')
    for (const [fields, message] of [
      [{ access: 'scopes' }, 'Choose at least one scope, or full access.'],
      [{ access: 'scopes', 'scopes[]': 'contacts:delete' }, 'Only the scopes listed can be chosen.'],
      [{ expires_in_days: '7' }, 'Choose an expiry from the list.'],
    ] as const) {
      const res = await browser.submit(HOME, `${HOME}/tokens`, { label: 'Bad', ...fields })
      assert.equal(res.status, 422, JSON.stringify(fields))
      assert.match(res.body, new RegExp(`<p class="alert" role="alert">[^<]*${message.replace('.', '\\.')}`), message)
      if (fields.access === 'scopes') assert.match(res.body, /value="scopes" checked>/)
    }
    assert.deepEqual(await storedTokens(user.id), [])
  })

  test('Tokens of this company: admins see every user\'s live tokens and revoke any (it answers 401 at once); members get 403', async () => {
    const { user: owner, browser: ownerBrowser } = await signedIn('member')
    const theirs = await createToken(t.db, systemActing(now), owner.id, { scopes: ['contacts:read'] })
    const { browser: admin } = await signedIn('admin')
    const other = await tenant(t.db, { name: 'Globex' })

    const page = await admin.get(COMPANY)
    assert.equal(page.status, 200)
    assert.match(page.body, /<h1>Tokens of this company<\/h1>/)
    assert.match(page.body, new RegExp(`${owner.name}<br><span class="muted">${owner.email}</span>`))
    assert.match(page.body, new RegExp(`<code>${theirs.prefix}…</code>`))
    assert.ok(!page.body.includes(other.token.slice(0, 12)), 'another company\'s tokens are not listed')
    assert.match(page.body, /<a href="\/settings\/tokens"( aria-current="page")?>Company tokens<\/a>/)

    // Members: no link, and the pages answer 403 without changing anything.
    const memberHome = await ownerBrowser.get(HOME)
    assert.ok(!memberHome.body.includes('href="/settings/tokens"'))
    assert.equal((await ownerBrowser.get(COMPANY)).status, 403)
    assert.equal((await ownerBrowser.get(`${COMPANY}/${String(theirs.id)}/revoke`)).status, 403)
    const refused = await ownerBrowser.request('POST', `${COMPANY}/${String(theirs.id)}/revoke`, { _csrf: csrfOf(memberHome.body) })
    assert.equal(refused.status, 403)
    assert.match(refused.body, /Only an admin of Acme can do this, so nothing was changed\./)
    assert.deepEqual(await storedTokens(owner.id), [{ scopes: ['contacts:read'], ms: null }])

    // Another company's token: 404, like one that does not exist.
    const [foreign] = await rawRows<{ id: number }>(t.db, sql`select id from api_tokens where company_id = ${other.companyId}`)
    assert.equal((await admin.get(`${COMPANY}/${String(foreign?.id ?? 0)}/revoke`)).status, 404)

    const confirm = await admin.get(`${COMPANY}/${String(theirs.id)}/revoke`)
    assert.equal(confirm.status, 200)
    assert.match(confirm.body, new RegExp(`<dt>User</dt><dd>${owner.name} \\(${owner.email}\\)</dd>`))
    const done = await admin.submit(`${COMPANY}/${String(theirs.id)}/revoke`, `${COMPANY}/${String(theirs.id)}/revoke`)
    assert.equal(done.status, 303)
    assert.equal(done.location, COMPANY)
    assert.match((await admin.get(COMPANY)).body, /revoked: it no longer works/)
    assert.deepEqual(await storedTokens(owner.id), [])
    const res = await t.app.inject({ url: '/api/v1/users/authorize_api', headers: { authorization: `Bearer ${theirs.token}` } })
    assert.equal(res.statusCode, 401)
  })

  test('webhooks: admins see the forms; members see the list read-only, and every webhook form answers them 403 changing nothing', async () => {
    const webhook = await addSubscription(t.db, acme.companyId, ['*'], false)
    const { browser: admin } = await signedIn('admin')
    const adminPage = (await admin.get(HOME)).body
    for (const action of ['/webhooks"', `/webhooks/${String(webhook)}/rotate"`, `/webhooks/${String(webhook)}/enable"`]) {
      assert.ok(adminPage.includes(`action="${HOME}${action}`), action)
    }
    assert.ok(adminPage.includes(`href="${HOME}/webhooks/${String(webhook)}/delete"`))

    const { browser: memberBrowser } = await signedIn('member')
    const memberPage = (await memberBrowser.get(HOME)).body
    assert.match(memberPage, /https:\/\/hooks\.example\.com\/in/, 'members see the webhooks')
    assert.match(memberPage, /Only admins of Acme manage them; you can see them here\./)
    assert.ok(!memberPage.includes(`${HOME}/webhooks`), 'no webhook form or link for members')

    const tables = ['webhook_subscriptions', 'webhook_deliveries']
    const before = await tableSnapshot(t.db, tables)
    const csrf = csrfOf(memberPage)
    for (const [method, url] of [
      ['POST', `${HOME}/webhooks`],
      ['GET', `${HOME}/webhooks/${String(webhook)}/delete`],
      ['POST', `${HOME}/webhooks/${String(webhook)}/delete`],
      ['POST', `${HOME}/webhooks/${String(webhook)}/rotate`],
      ['POST', `${HOME}/webhooks/${String(webhook)}/enable`],
    ] as const) {
      const res = await memberBrowser.request(method, url, method === 'POST' ? { _csrf: csrf, url: 'https://hooks.example.com/new', scope: 'all' } : undefined)
      assert.equal(res.status, 403, `${method} ${url}`)
      assert.match(res.body, /<h1>Admins only<\/h1>/)
    }
    assert.deepEqual(await tableSnapshot(t.db, tables), before)
  })
})
