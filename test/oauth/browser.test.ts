// The whole OAuth flow in a real browser (Debian's Chromium driven by playwright-core, as
// test/web/browser.test.ts): an admin registers an app on Settings → Apps; a member follows
// the authorize URL, signs in, sees the consent page and allows; the app (this test, with
// fetch) exchanges the code with its PKCE verifier, calls the API within and outside its
// scopes, refreshes, and a reused refresh token ends the grant; the member revokes the app on
// Integrations; Deny sends access_denied. The app's redirect URI is a small local server.
import assert from 'node:assert/strict'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { after, before, describe, test } from 'node:test'
import { type Browser, type Page } from 'playwright-core'
import { challengeOf } from '../../src/modules/oauth/oauth.protocol.js'
import { systemActing } from '../../src/acting.js'
import { createCompany } from '../../src/modules/users-api/users-api.service.js'
import { asCompanyId } from '../../src/tenancy.js'
import { backends, type TestApp } from '../helpers/app.js'
import { startInChromium, withoutChromium } from '../helpers/chromium.js'
import { member, PASSWORD } from '../web/helpers.js'

const [firstBackend] = backends()
if (!firstBackend) throw new Error('no backend')
const backend = firstBackend
const VERIFIER = 'browser-test-verifier-'.padEnd(64, 'x')

describe('OAuth 2.0 in Chromium', { skip: withoutChromium }, () => {
  let t: TestApp
  let browser: Browser
  let origin: string
  let callbackServer: Server
  let callback: string

  before(async () => {
    ;({ t, browser, origin } = await startInChromium(backend, { config: { signInLimit: { max: 100_000, windowMs: 60_000 } } }))
    callbackServer = createServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end('<!doctype html><title>App</title><p>Back in the app</p>')
    })
    await new Promise<void>((resolve) => callbackServer.listen(0, '127.0.0.1', resolve))
    callback = `http://127.0.0.1:${String((callbackServer.address() as AddressInfo).port)}/callback`
  })
  after(async () => {
    await browser.close()
    await new Promise((resolve) => callbackServer.close(resolve))
    await t.close()
  })

  async function signIn(page: Page, email: string) {
    await page.getByLabel('Email').fill(email)
    await page.getByLabel('Password').fill(PASSWORD)
    await page.getByRole('button', { name: 'Sign in' }).click()
  }

  const form = (fields: Record<string, string>) => new URLSearchParams(fields).toString()

  test('register, consent, exchange, scopes, refresh, reuse detection, revoke on Integrations, deny', async () => {
    const company = await createCompany(t.db, systemActing(), { name: 'Acme Sales', timezone: 'UTC' })
    const companyId = asCompanyId(company.id)
    const admin = await member(t.db, companyId, { role: 'admin', email: 'ada@acme.test', name: 'Ada' })
    const user = await member(t.db, companyId, { email: 'max@acme.test', name: 'Max' })

    // The admin registers the app.
    const adminPage = await (await browser.newContext()).newPage()
    await adminPage.goto(`${origin}/settings/apps`)
    await signIn(adminPage, admin.email)
    await adminPage.waitForURL(`${origin}/tasks`)
    await adminPage.goto(`${origin}/settings/integrations`)
    await adminPage.getByRole('link', { name: 'Apps' }).click()
    await adminPage.getByLabel('Name').fill('Dialer Pro')
    await adminPage.getByLabel('Redirect URIs').fill(callback)
    await adminPage.getByRole('checkbox', { name: /^contacts:read / }).check()
    await adminPage.getByRole('checkbox', { name: /^tasks:read / }).check()
    await adminPage.getByRole('button', { name: 'Register app' }).click()
    await adminPage.waitForURL(`${origin}/settings/apps`)
    const clientId = await adminPage.locator('#client-id').innerText()
    const secret = await adminPage.locator('#client-secret').innerText()
    assert.match(clientId, /^engc_/)
    assert.match(secret, /^eng_ocs_/)
    await adminPage.reload()
    assert.equal(await adminPage.locator('#client-secret').count(), 0, 'the secret is shown once')
    assert.match(await adminPage.locator('main').innerText(), /Dialer Pro/)
    await adminPage.context().close()

    const basic = `Basic ${Buffer.from(`${clientId}:${secret}`).toString('base64')}`
    const tokenRequest = (fields: Record<string, string>) =>
      fetch(`${origin}/oauth/token`, { method: 'POST', headers: { authorization: basic, 'content-type': 'application/x-www-form-urlencoded' }, body: form(fields) })
    const api = (accessToken: string, path: string, init: RequestInit = {}) =>
      fetch(`${origin}${path}`, { ...init, headers: { authorization: `Bearer ${accessToken}`, 'content-type': 'application/json' } })
    async function eventually401(accessToken: string) {
      let status = 0
      for (let i = 0; i < 100 && status !== 401; i++) {
        status = (await api(accessToken, '/api/v1/contacts?page=1')).status
        if (status !== 401) await new Promise((resolve) => setTimeout(resolve, 20))
      }
      assert.equal(status, 401)
    }
    const authorizeUrl = (state: string) =>
      `${origin}/oauth/authorize?${form({ response_type: 'code', client_id: clientId, redirect_uri: callback, scope: 'contacts:read tasks:read', state, code_challenge: challengeOf(VERIFIER), code_challenge_method: 'S256' })}`

    // The member follows the authorize URL: sign in first, then the consent page.
    const page = await (await browser.newContext()).newPage()
    await page.goto(authorizeUrl('first'))
    assert.match(page.url(), /\/login\?next=/)
    await signIn(page, user.email)
    await page.waitForURL(/\/oauth\/authorize\?/)
    const consent = await page.locator('main').innerText()
    assert.match(consent, /Allow “Dialer Pro”/)
    assert.match(consent, /registered by Acme Sales/)
    assert.match(consent, /Read contacts, their events/)
    assert.match(consent, /Read tasks/)
    await page.getByRole('button', { name: 'Allow' }).click()
    await page.waitForURL(new RegExp(`^${callback}\\?`))
    const back = new URL(page.url())
    assert.equal(back.searchParams.get('state'), 'first')
    const code = back.searchParams.get('code') ?? ''

    // The app exchanges the code with its verifier.
    const exchanged = await tokenRequest({ grant_type: 'authorization_code', code, redirect_uri: callback, code_verifier: VERIFIER })
    assert.equal(exchanged.status, 200)
    const first = (await exchanged.json()) as { access_token: string; refresh_token: string; scope: string }
    assert.equal(first.scope, 'contacts:read tasks:read')
    assert.equal((await api(first.access_token, '/api/v1/contacts?page=1')).status, 200)
    const outside = await api(first.access_token, '/api/v1/contacts', { method: 'POST', body: JSON.stringify({ first_name: 'No', email: 'no@acme.test' }) })
    assert.equal(outside.status, 403)
    assert.equal(((await outside.json()) as { error: { code: string } }).error.code, 'insufficient_scope')

    // Refresh rotates; the old refresh token used again ends the grant.
    const refreshed = await tokenRequest({ grant_type: 'refresh_token', refresh_token: first.refresh_token })
    assert.equal(refreshed.status, 200)
    const second = (await refreshed.json()) as { access_token: string; refresh_token: string }
    assert.notEqual(second.refresh_token, first.refresh_token)
    assert.equal((await api(second.access_token, '/api/v1/tasks?page=1')).status, 200)
    const reused = await tokenRequest({ grant_type: 'refresh_token', refresh_token: first.refresh_token })
    assert.equal(reused.status, 400)
    assert.equal(((await reused.json()) as { error: string }).error, 'invalid_grant')
    await eventually401(second.access_token)

    // A second authorisation, then the member revokes the app on Integrations.
    await page.goto(authorizeUrl('second'))
    await page.getByRole('button', { name: 'Allow' }).click()
    await page.waitForURL(new RegExp(`^${callback}\\?`))
    const again = await tokenRequest({ grant_type: 'authorization_code', code: new URL(page.url()).searchParams.get('code') ?? '', redirect_uri: callback, code_verifier: VERIFIER })
    const third = (await again.json()) as { access_token: string }
    assert.equal((await api(third.access_token, '/api/v1/contacts?page=1')).status, 200)
    await page.goto(`${origin}/settings/integrations`)
    const authorised = page.locator('section', { has: page.getByRole('heading', { name: 'Apps you authorised' }) })
    assert.match(await authorised.innerText(), /Dialer Pro[\s\S]*Acme Sales/)
    await authorised.getByRole('button', { name: 'Revoke Dialer Pro' }).click()
    await page.waitForURL(`${origin}/settings/integrations`)
    assert.match(await page.locator('main').innerText(), /access was revoked/)
    await eventually401(third.access_token)

    // Deny: the app hears access_denied, with its state.
    await page.goto(authorizeUrl('third'))
    await page.getByRole('button', { name: 'Deny' }).click()
    await page.waitForURL(new RegExp(`^${callback}\\?`))
    const denied = new URL(page.url())
    assert.equal(denied.searchParams.get('error'), 'access_denied')
    assert.equal(denied.searchParams.get('state'), 'third')
    assert.equal(denied.searchParams.get('code'), null)
    await page.context().close()
  })
})
