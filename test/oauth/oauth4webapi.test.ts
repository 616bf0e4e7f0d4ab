// The service as a third-party app sees it: oauth4webapi (a certified OAuth 2.0 client library)
// drives the whole flow against the app listening on a loopback port whose address is
// PUBLIC_URL, with the authorization step in Chromium: discovery (RFC 8414), authorization with
// PKCE whose answer the library checks (state, and iss per RFC 9207), the code exchange, refresh
// rotation, reuse detection, revocation (RFC 7009) and introspection (RFC 7662). The consent
// is answered once for each loopback redirect URI the docs allow (RFC 8252 §7.3): 127.0.0.1,
// localhost and [::1], whose host a Content-Security-Policy cannot name.
import assert from 'node:assert/strict'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { after, before, describe, test } from 'node:test'
import * as oauth from 'oauth4webapi'
import { chromium, type Browser, type Page } from 'playwright-core'
import { systemActing } from '../../src/acting.js'
import { registerApp } from '../../src/modules/oauth-server/oauth-server.service.js'
import { backends, startApp, type TestApp } from '../helpers/app.js'
import { CHROMIUM, withoutChromium } from '../helpers/chromium.js'
import { tenant } from '../helpers/factories.js'
import { member, PASSWORD } from '../web/helpers.js'

const [firstBackend] = backends()
if (!firstBackend) throw new Error('no backend')
const backend = firstBackend
// Plain http on loopback, in this test only (the library marks the option deprecated to make it stand out).
// eslint-disable-next-line @typescript-eslint/no-deprecated
const insecure = { [oauth.allowInsecureRequests]: true }

/** A free loopback port: the service's address must be known (PUBLIC_URL) before it starts. */
async function freePort(): Promise<number> {
  const probe = createServer()
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve))
  const { port } = probe.address() as AddressInfo
  await new Promise((resolve) => probe.close(resolve))
  return port
}

describe('OAuth 2.0 with oauth4webapi as the app, authorization in Chromium', { skip: withoutChromium }, () => {
  let t: TestApp
  let browser: Browser
  let issuer: URL
  let callbackServer: Server
  let callbackPort: number
  let client: oauth.Client
  let secret: string
  let email: string

  before(async () => {
    const port = await freePort()
    const origin = `http://127.0.0.1:${String(port)}`
    ;[t, browser] = await Promise.all([
      startApp(backend, { config: { publicUrl: origin, signInLimit: { max: 100_000, windowMs: 60_000 } } }),
      chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] }),
    ])
    await t.app.listen({ port, host: '127.0.0.1' })
    issuer = new URL(origin)
    // The app's callback, on IPv4 and IPv6 loopback at once.
    callbackServer = createServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end('<!doctype html><title>App</title><p>Back in the app</p>')
    })
    await new Promise<void>((resolve) => callbackServer.listen({ port: 0, host: '::', ipv6Only: false }, resolve))
    callbackPort = (callbackServer.address() as AddressInfo).port
    const maker = await tenant(t.db, { name: 'Maker Inc' })
    const acme = await tenant(t.db, { name: 'Acme' })
    const made = await registerApp(t.db, { companyId: maker.companyId, ...systemActing() }, {
      name: 'Loopback App',
      redirectUris: ['127.0.0.1', 'localhost', '[::1]'].map((host) => `http://${host}:${String(callbackPort)}/cb`),
      scopes: ['contacts:read', 'tasks:read'],
    })
    client = { client_id: made.app.client_id }
    secret = made.clientSecret ?? ''
    email = (await member(t.db, acme.companyId, { email: 'lea@acme.test', name: 'Lea' })).email
  })
  after(async () => {
    await browser.close()
    await new Promise((resolve) => callbackServer.close(resolve))
    await t.close()
  })

  /** The user's part: follow the authorization URL, sign in if asked, Allow; the URL the browser lands on. */
  async function authorize(page: Page, as: oauth.AuthorizationServer, redirectUri: string, state: string, verifier: string): Promise<URL> {
    const url = new URL(as.authorization_endpoint ?? '')
    url.searchParams.set('client_id', client.client_id)
    url.searchParams.set('redirect_uri', redirectUri)
    url.searchParams.set('response_type', 'code')
    url.searchParams.set('scope', 'contacts:read tasks:read')
    url.searchParams.set('state', state)
    url.searchParams.set('code_challenge', await oauth.calculatePKCECodeChallenge(verifier))
    url.searchParams.set('code_challenge_method', 'S256')
    await page.goto(url.toString())
    if (new URL(page.url()).pathname === '/login') {
      await page.getByLabel('Email').fill(email)
      await page.getByLabel('Password').fill(PASSWORD)
      await page.getByRole('button', { name: 'Sign in' }).click()
      await page.waitForURL(/\/oauth\/authorize\?/)
    }
    assert.match(await page.locator('main').innerText(), /Allow “Loopback App”/)
    const blocked: string[] = []
    page.on('console', (message) => {
      if (/Content Security Policy/.test(message.text())) blocked.push(message.text())
    })
    await page.getByRole('button', { name: 'Allow' }).click()
    await page.waitForURL((landed) => landed.toString().startsWith(`${redirectUri}?`), { timeout: 5_000 }).catch(() => undefined)
    assert.deepEqual(blocked, [], 'the browser blocked nothing')
    assert.equal(await page.locator('p').innerText(), 'Back in the app', `landed on ${page.url()}`)
    return new URL(page.url())
  }

  test('discovery, authorization with PKCE at each loopback address, exchange, refresh rotation, reuse detection, revocation, introspection', async () => {
    const as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, { algorithm: 'oauth2', ...insecure }))
    assert.equal(as.issuer, issuer.href.replace(/\/$/, ''))
    assert.deepEqual(as.code_challenge_methods_supported, ['S256'])
    assert.equal(as.authorization_response_iss_parameter_supported, true)
    const auth = oauth.ClientSecretBasic(secret)
    const page = await (await browser.newContext()).newPage()

    for (const host of ['127.0.0.1', 'localhost', '[::1]']) {
      const redirectUri = `http://${host}:${String(callbackPort)}/cb`
      const verifier = oauth.generateRandomCodeVerifier()
      const state = oauth.generateRandomState()
      const landed = await authorize(page, as, redirectUri, state, verifier)
      // The library checks state and iss (RFC 9207), and that no error came back.
      const params = oauth.validateAuthResponse(as, client, landed, state)
      assert.equal(params.get('iss'), as.issuer)
      const tokens = await oauth.processAuthorizationCodeResponse(as, client, await oauth.authorizationCodeGrantRequest(as, client, auth, params, redirectUri, verifier, insecure))
      assert.equal(tokens.token_type, 'bearer')
      assert.equal(tokens.scope, 'contacts:read tasks:read')
      const api = await fetch(new URL('/api/v1/contacts?page=1', issuer), { headers: { authorization: `Bearer ${tokens.access_token}` } })
      assert.equal(api.status, 200, host)

      // The same code again: refused, and the grant it made ends.
      const again = await oauth.authorizationCodeGrantRequest(as, client, auth, params, redirectUri, verifier, insecure)
      await assert.rejects(oauth.processAuthorizationCodeResponse(as, client, again), (err: unknown) => err instanceof oauth.ResponseBodyError && err.error === 'invalid_grant')
    }

    // A fresh grant for the rest.
    const verifier = oauth.generateRandomCodeVerifier()
    const state = oauth.generateRandomState()
    const redirectUri = `http://[::1]:${String(callbackPort)}/cb`
    const params = oauth.validateAuthResponse(as, client, await authorize(page, as, redirectUri, state, verifier), state)
    const first = await oauth.processAuthorizationCodeResponse(as, client, await oauth.authorizationCodeGrantRequest(as, client, auth, params, redirectUri, verifier, insecure))
    const introspect = async (token: string) => oauth.processIntrospectionResponse(as, client, await oauth.introspectionRequest(as, client, auth, token, insecure))
    const live = await introspect(first.access_token)
    assert.equal(live.active, true)
    assert.equal(live.client_id, client.client_id)
    assert.equal(live.scope, 'contacts:read tasks:read')
    assert.equal(live.username, email)

    // Refresh rotates: a new refresh token each time, the old one spent.
    const refreshToken = first.refresh_token ?? ''
    const second = await oauth.processRefreshTokenResponse(as, client, await oauth.refreshTokenGrantRequest(as, client, auth, refreshToken, insecure))
    assert.notEqual(second.refresh_token, refreshToken)
    assert.equal((await introspect(refreshToken)).active, false)
    assert.equal((await introspect(second.refresh_token ?? '')).active, true)

    // Reuse detection: the spent refresh token again ends the whole grant.
    const reused = await oauth.refreshTokenGrantRequest(as, client, auth, refreshToken, insecure)
    await assert.rejects(oauth.processRefreshTokenResponse(as, client, reused), (err: unknown) => err instanceof oauth.ResponseBodyError && err.error === 'invalid_grant')
    const afterReuse = await oauth.refreshTokenGrantRequest(as, client, auth, second.refresh_token ?? '', insecure)
    await assert.rejects(oauth.processRefreshTokenResponse(as, client, afterReuse), (err: unknown) => err instanceof oauth.ResponseBodyError && err.error === 'invalid_grant')
    assert.equal((await introspect(second.access_token)).active, false)

    // Revocation: of an access token, then of a refresh token (its grant ends).
    const verifier2 = oauth.generateRandomCodeVerifier()
    const state2 = oauth.generateRandomState()
    const params2 = oauth.validateAuthResponse(as, client, await authorize(page, as, redirectUri, state2, verifier2), state2)
    const third = await oauth.processAuthorizationCodeResponse(as, client, await oauth.authorizationCodeGrantRequest(as, client, auth, params2, redirectUri, verifier2, insecure))
    await oauth.processRevocationResponse(await oauth.revocationRequest(as, client, auth, third.access_token, insecure))
    assert.equal((await introspect(third.access_token)).active, false)
    const fourth = await oauth.processRefreshTokenResponse(as, client, await oauth.refreshTokenGrantRequest(as, client, auth, third.refresh_token ?? '', insecure))
    assert.equal((await introspect(fourth.access_token)).active, true)
    await oauth.processRevocationResponse(await oauth.revocationRequest(as, client, auth, fourth.refresh_token ?? '', { ...insecure, additionalParameters: { token_type_hint: 'refresh_token' } }))
    assert.equal((await introspect(fourth.access_token)).active, false)
    assert.equal((await introspect(fourth.refresh_token ?? '')).active, false)
    const gone = await fetch(new URL('/api/v1/contacts?page=1', issuer), { headers: { authorization: `Bearer ${fourth.access_token}` } })
    assert.equal(gone.status, 401)
    await page.context().close()
  })
})
