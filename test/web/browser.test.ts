// The web application in a real browser: Debian's Chromium (CHROMIUM_PATH, else
// /usr/bin/chromium) driven by playwright-core, against the real app listening on a random
// port. (Code run in the page is written as strings: the project's types have no DOM.)
// One browser for the file, a fresh context (cookies) per test. With
// UPDATE_SCREENSHOTS=1 the screenshot of docs/web.md is written again.
import assert from 'node:assert/strict'
import { writeFileSync } from 'node:fs'
import type { AddressInfo } from 'node:net'
import { after, before, describe, test } from 'node:test'
import { type Browser, type Page } from 'playwright-core'
import { deactivateUser } from '../../src/modules/auth/accounts.service.js'
import { createOwnToken, createToken } from '../../src/modules/auth/tokens.service.js'
import { systemActing } from '../../src/acting.js'
import { createCompany } from '../../src/modules/users-api/users-api.service.js'
import { asCompanyId, type CompanyId } from '../../src/tenancy.js'
import { backends, startApp, type TestApp } from '../helpers/app.js'
import { startInChromium, withoutChromium } from '../helpers/chromium.js'
import { rawRows, sql } from '../helpers/sql.js'
import { member, PASSWORD } from './helpers.js'

const [firstBackend] = backends()
if (!firstBackend) throw new Error('no backend')
const backend = firstBackend
const HOME = '/settings/integrations'
const SCREENSHOT = new URL('../../docs/images/web-integrations.png', import.meta.url)

async function listen(t: TestApp): Promise<string> {
  await t.app.listen({ port: 0, host: '127.0.0.1' })
  return `http://127.0.0.1:${String((t.app.server.address() as AddressInfo).port)}`
}

describe('the web application in Chromium', { skip: withoutChromium }, () => {
  let t: TestApp
  let browser: Browser
  let origin: string
  let companyId: CompanyId
  const pageProblems = new WeakMap<Page, string[]>()

  before(async () => {
    ;({ t, browser, origin } = await startInChromium(backend, { config: { signInLimit: { max: 100_000, windowMs: 60_000 } } }))
    const company = await createCompany(t.db, systemActing(), { name: 'Acme Sales', timezone: 'America/Sao_Paulo' })
    companyId = asCompanyId(company.id)
  })
  after(async () => {
    await browser.close()
    await t.close()
  })

  /** A new browser profile; its pages fail the test on a script error or a blocked resource (CSP). */
  async function newPage(options: { viewport?: { width: number; height: number }; isMobile?: boolean } = {}): Promise<Page> {
    const context = await browser.newContext({
      viewport: options.viewport ?? { width: 1100, height: 760 },
      isMobile: options.isMobile ?? false,
      permissions: ['clipboard-read', 'clipboard-write'],
    })
    const page = await context.newPage()
    const problems: string[] = []
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(message.text())
    })
    page.on('pageerror', (error) => problems.push(error.message))
    // The icon's request is cut when the page moves on before it arrived: not a problem of the page.
    page.on('requestfailed', (request) => {
      if (!(request.url().includes('/assets/favicon.svg') && request.failure()?.errorText === 'net::ERR_ABORTED')) problems.push(`${request.url()} ${request.failure()?.errorText ?? ''}`)
    })
    pageProblems.set(page, problems)
    return page
  }

  /** Closes the page and its profile; a script error or a blocked resource (4xx pages aside) fails the test. */
  async function done(page: Page) {
    await page.context().close()
    assert.deepEqual((pageProblems.get(page) ?? []).filter((p) => !/status of 4\d\d/.test(p)), [])
  }

  async function signIn(page: Page, email: string, password = PASSWORD) {
    await page.goto(`${origin}/login`)
    await page.getByLabel('Email').fill(email)
    await page.getByLabel('Password').fill(password)
    await page.getByRole('button', { name: 'Sign in' }).click()
  }

  async function signedIn(options: Parameters<typeof newPage>[0] = {}) {
    const user = await member(t.db, companyId)
    const page = await newPage(options)
    await signIn(page, user.email)
    await page.waitForURL(`${origin}/tasks`)
    await page.goto(`${origin}${HOME}`)
    return { user, page }
  }

  const authorize = (token: string) =>
    fetch(`${origin}/api/v1/users/authorize_api`, { headers: { authorization: `Bearer ${token}` } }).then((res) => res.status)

  async function eventually401(token: string) {
    let status = 200
    for (let i = 0; i < 50 && status !== 401; i++) {
      status = await authorize(token)
      if (status !== 401) await new Promise((resolve) => setTimeout(resolve, 20))
    }
    assert.equal(status, 401)
  }

  test('sign in: the form leads to Settings → Integrations, with the user, sign out and the API reference in the header', async () => {
    const user = await member(t.db, companyId)
    const page = await newPage()
    await page.goto(origin)
    assert.equal(page.url(), `${origin}/login`)
    // Keyboard focus is visible: the first Tab reaches the skip link, then the fields.
    await page.keyboard.press('Tab')
    assert.notEqual(await page.evaluate('getComputedStyle(document.activeElement).outlineStyle'), 'none')
    await signIn(page, user.email)
    await page.waitForURL(`${origin}/tasks`)
    await page.goto(`${origin}${HOME}`)
    assert.equal(await page.getByRole('heading', { level: 1 }).innerText(), 'Integrations')
    const header = page.locator('header')
    assert.match(await header.innerText(), new RegExp(`${user.name}[\\s\\S]*${user.email}`))
    assert.equal(await page.getByRole('navigation', { name: 'Settings' }).getByRole('link', { name: 'API reference' }).getAttribute('href'), '/docs/v1')
    assert.ok(await header.getByRole('button', { name: 'Sign out' }).isVisible())
    assert.match(await page.locator('main').innerText(), /You have no api tokens yet/)
    await done(page)
  })

  test('a wrong password shows one message, whichever part was wrong', async () => {
    const user = await member(t.db, companyId)
    const page = await newPage()
    for (const [email, password] of [[user.email, 'not my password'], ['nobody@nowhere.example', PASSWORD]] as const) {
      await signIn(page, email, password)
      assert.equal(page.url(), `${origin}/login`)
      assert.equal(await page.getByRole('alert').innerText(), 'Invalid email or password.')
      assert.equal(await page.getByLabel('Email').inputValue(), email, 'the email is kept')
      assert.equal(await page.getByLabel('Password').inputValue(), '', 'the password is not')
    }
    await done(page)
  })

  test('sign-in attempts are limited: the 11th in 15 minutes gets a clear message', async () => {
    const limited = await startApp(backend) // the production limits: 10 per 15 minutes
    try {
      const limitedOrigin = await listen(limited)
      const company = await createCompany(limited.db, systemActing(), { name: 'Limited' })
      const user = await member(limited.db, asCompanyId(company.id))
      const page = await newPage()
      await page.goto(`${limitedOrigin}/login`)
      // Ten wrong attempts posted by this browser profile (its cookies, the form's token), quickly…
      const csrf = await page.locator('input[name="_csrf"]').getAttribute('value')
      for (let i = 0; i < 10; i++) {
        const res = await page.request.post(`${limitedOrigin}/login`, { form: { _csrf: csrf ?? '', email: user.email, password: 'wrong password' } })
        assert.equal(res.status(), 401)
      }
      // …then the eleventh through the form, with the right password.
      await page.getByLabel('Email').fill(user.email)
      await page.getByLabel('Password').fill(PASSWORD)
      await page.getByRole('button', { name: 'Sign in' }).click()
      assert.equal(await page.getByRole('alert').innerText(), 'Too many sign-in attempts. Wait 15 minutes and try again.')
      assert.equal(page.url(), `${limitedOrigin}/login`)
      await done(page)
    } finally {
      await limited.close()
    }
  })

  test('create a token: shown once with a copy button and a curl line; it works; a reload does not show it again', async () => {
    const { user, page } = await signedIn()
    await page.getByLabel('Label (optional)').fill('CRM sync')
    await page.getByRole('button', { name: 'Create token' }).click()
    await page.waitForURL(`${origin}${HOME}`)
    const token = await page.locator('#new-token').innerText()
    assert.match(token, /^eng_[A-Za-z0-9_-]{32}$/)
    const copy = page.locator('button[data-copy="new-token"]')
    assert.ok(await copy.isVisible(), 'the script shows the copy button')
    await copy.click()
    // A locator waits in Playwright's own world: a string predicate polled in the page is eval, which the CSP refuses.
    await page.locator('button[data-copy="new-token"]', { hasText: /^Copied$/ }).waitFor()
    assert.equal(await page.evaluate('navigator.clipboard.readText()'), token)
    assert.equal(
      await page.locator('#try-it').innerText(),
      `curl ${origin}/api/v1/users/authorize_api -H "Authorization: Bearer ${token}"`,
    )
    const response = await fetch(`${origin}/api/v1/users/authorize_api`, { headers: { authorization: `Bearer ${token}` } })
    assert.equal(response.status, 200)
    assert.equal(((await response.json()) as { user: { id: number } }).user.id, user.id)

    const row = page.getByRole('row', { name: /CRM sync/ })
    assert.match(await row.innerText(), new RegExp(`${token.slice(0, 12)}…[\\s\\S]*Never`))

    await page.reload()
    assert.equal(await page.locator('#new-token').count(), 0)
    assert.ok(!(await page.content()).includes(token), 'not shown again after a reload')
    assert.ok(await page.getByRole('row', { name: /CRM sync/ }).isVisible())
    await done(page)
  })

  test('revoke, after a confirmation: the token answers 401 at once', async () => {
    const { user, page } = await signedIn()
    const { token } = await createOwnToken(t.db, { companyId, userId: user.id, ...systemActing() }, 'Zapier')
    assert.equal(await authorize(token), 200) // cached by the server
    await page.reload()
    await page.getByRole('link', { name: 'Revoke Zapier' }).click()
    assert.equal(await page.getByRole('heading', { level: 1 }).innerText(), 'Revoke this token?')
    await page.getByRole('button', { name: 'Revoke token' }).click()
    await page.waitForURL(`${origin}${HOME}`)
    assert.match(await page.getByRole('status').innerText(), /Token “Zapier” revoked: it no longer works\./)
    await eventually401(token)
    assert.equal(await page.getByRole('row', { name: /Zapier/ }).count(), 0)
    await done(page)
  })

  test('sign out: the settings redirect to /login afterwards', async () => {
    const { page } = await signedIn()
    await page.getByRole('button', { name: 'Sign out' }).click()
    await page.waitForURL(`${origin}/login`)
    await page.goto(`${origin}${HOME}`)
    assert.equal(page.url(), `${origin}/login`)
    assert.deepEqual((await page.context().cookies()).filter((c) => c.name === 'engage_session'), [])
    await done(page)
  })

  test('a form posted without its CSRF token answers 403 and changes nothing', async () => {
    const { user, page } = await signedIn()
    await page.evaluate(`document.querySelector('form[action="${HOME}/tokens"] input[name="_csrf"]').remove()`)
    await page.getByLabel('Label (optional)').fill('forged')
    const [response] = await Promise.all([page.waitForResponse(`${origin}${HOME}/tokens`), page.getByRole('button', { name: 'Create token' }).click()])
    assert.equal(response.status(), 403)
    assert.equal(await page.getByRole('heading', { level: 1 }).innerText(), 'Form expired')
    const tokens = await rawRows<{ id: number }>(t.db, sql`select id from api_tokens where user_id = ${user.id}`)
    assert.deepEqual(tokens, [])
    await done(page)
  })

  test('the session cookie: HttpOnly, SameSite=Lax, not Secure on plain http, path /', async () => {
    const { page } = await signedIn()
    const cookie = (await page.context().cookies()).find((c) => c.name === 'engage_session')
    assert.ok(cookie)
    assert.equal(cookie.httpOnly, true)
    assert.equal(cookie.sameSite, 'Lax')
    assert.equal(cookie.secure, false)
    assert.equal(cookie.path, '/')
    assert.equal(await page.evaluate("document.cookie.includes('engage_session')"), false, 'scripts cannot read it')
    await done(page)
  })

  test("a deactivated user's session ends at once", async () => {
    const { user, page } = await signedIn()
    await deactivateUser(t.db, systemActing(), user.id)
    await page.reload()
    assert.equal(page.url(), `${origin}/login`)
    await done(page)
  })

  test("another user's token is invisible and cannot be revoked (404)", async () => {
    const { page } = await signedIn()
    const other = await member(t.db, companyId)
    const theirs = await createToken(t.db, systemActing(), other.id)
    await page.reload()
    assert.ok(!(await page.content()).includes(theirs.prefix))
    const view = await page.goto(`${origin}${HOME}/tokens/${String(theirs.id)}/revoke`)
    assert.equal(view?.status(), 404)
    assert.equal(await page.getByRole('heading', { level: 1 }).innerText(), 'Page not found')
    // Posting the revoke form for it with this session's own CSRF token: still 404.
    await page.goto(`${origin}${HOME}`)
    const csrf = await page.locator('form[action="/logout"] input[name="_csrf"]').getAttribute('value')
    const post = await page.request.post(`${origin}${HOME}/tokens/${String(theirs.id)}/revoke`, { form: { _csrf: csrf ?? '' } })
    assert.equal(post.status(), 404)
    assert.equal(await authorize(theirs.token), 200)
    const live = await rawRows<{ id: number }>(t.db, sql`select id from api_tokens where id = ${theirs.id} and revoked_at is null`)
    assert.equal(live.length, 1)
    await done(page)
  })

  test('a scoped, expiring token through the form; an admin sees it on Tokens of this company and revokes it', async () => {
    const { user, page } = await signedIn()
    await page.getByLabel('Label (optional)').fill('Scoped sync')
    await page.getByLabel('Only these scopes').check()
    await page.getByLabel('contacts:read', { exact: true }).check()
    await page.getByLabel('tasks:write', { exact: true }).check()
    await page.getByLabel('Expires').selectOption('90')
    await page.getByRole('button', { name: 'Create token' }).click()
    await page.waitForURL(`${origin}${HOME}`)
    const token = await page.locator('#new-token').innerText()
    const row = page.locator('table.tokens tbody tr', { hasText: 'Scoped sync' })
    assert.equal(await row.locator('td[data-label="Access"]').innerText(), 'contacts:read, tasks:write')
    assert.match(await row.locator('td[data-label="Expires"]').innerText(), /\d{4}/)
    const call = (path: string, init: RequestInit = {}) =>
      fetch(`${origin}${path}`, { ...init, headers: { authorization: `Bearer ${token}`, ...(init.body ? { 'content-type': 'application/json' } : {}) } }).then((res) => res.status)
    assert.equal(await call('/api/v1/tasks?page=1'), 200)
    assert.equal(await call('/api/v1/tags', { method: 'POST', body: JSON.stringify({ name: 'x', color: '#fff' }) }), 403)
    assert.equal(await page.getByRole('navigation', { name: 'Settings' }).getByRole('link', { name: 'Company tokens' }).count(), 0, 'members have no link')
    await done(page)

    const admin = await member(t.db, companyId, { role: 'admin' })
    const adminPage = await newPage()
    await signIn(adminPage, admin.email)
    await adminPage.waitForURL(`${origin}/tasks`)
    await adminPage.goto(`${origin}${HOME}`)
    await adminPage.getByRole('navigation', { name: 'Settings' }).getByRole('link', { name: 'Company tokens' }).click()
    await adminPage.waitForURL(`${origin}/settings/tokens`)
    assert.equal(await adminPage.getByRole('heading', { level: 1 }).innerText(), 'Tokens of this company')
    const theirs = adminPage.locator('table.tokens tbody tr', { hasText: 'Scoped sync' })
    assert.match(await theirs.locator('td[data-label="User"]').innerText(), new RegExp(user.email))
    await theirs.getByRole('link', { name: /Revoke/ }).click()
    await adminPage.getByRole('button', { name: 'Revoke token' }).click()
    await adminPage.waitForURL(`${origin}/settings/tokens`)
    assert.match(await adminPage.getByRole('status').innerText(), /Scoped sync.*revoked/)
    await eventually401(token)
    await done(adminPage)
  })

  test('at phone width: nothing overflows sideways, every control is on screen and usable', async () => {
    const { user, page } = await signedIn({ viewport: { width: 375, height: 740 }, isMobile: true })
    await createOwnToken(t.db, { companyId, userId: user.id, ...systemActing() }, 'Spreadsheet export')
    await page.getByLabel('Label (optional)').fill('Phone test')
    await page.getByRole('button', { name: 'Create token' }).click()
    await page.waitForURL(`${origin}${HOME}`)
    const overflow = Number(await page.evaluate('document.documentElement.scrollWidth - window.innerWidth'))
    assert.ok(overflow <= 0, `the page is ${String(overflow)} px wider than the screen`)
    for (const locator of [
      page.getByRole('button', { name: 'Sign out' }),
      page.getByRole('button', { name: 'Create token' }),
      page.getByRole('link', { name: 'Revoke Phone test' }),
      page.locator('#new-token'),
    ]) {
      await locator.scrollIntoViewIfNeeded()
      const box = await locator.boundingBox()
      assert.ok(box && box.x >= 0 && box.x + box.width <= 375, `${String(locator)} fits the width`)
    }
    // Each token reads as a small card with its own labels.
    assert.match(await page.locator('table.tokens tbody tr').first().innerText(), /Spreadsheet export/)
    const labels = await page.evaluate(
      `[...document.querySelectorAll('table.tokens tbody tr:first-child td[data-label]')].map((cell) => getComputedStyle(cell, '::before').content)`,
    )
    assert.deepEqual(labels, ['"Label: "', '"Token: "', '"Access: "', '"Expires: "', '"Created: "', '"Last used: "'])
    await done(page)
  })

  test('the screenshot of docs/web.md', async () => {
    const ana = await member(t.db, companyId, { email: 'ana@acme.example', name: 'Ana Souza' })
    await createOwnToken(t.db, { companyId, userId: ana.id, ...systemActing() }, 'Zapier')
    await createOwnToken(t.db, { companyId, userId: ana.id, ...systemActing() }, 'Spreadsheet export')
    const page = await newPage({ viewport: { width: 860, height: 800 } })
    await signIn(page, 'ana@acme.example')
    await page.waitForURL(`${origin}/tasks`)
    await page.goto(`${origin}${HOME}`)
    await page.getByLabel('Label (optional)').fill('CRM sync')
    await page.getByRole('button', { name: 'Create token' }).click()
    await page.waitForURL(`${origin}${HOME}`)
    const image = await page.screenshot()
    assert.ok(image.length > 10_000)
    if (process.env.UPDATE_SCREENSHOTS === '1') writeFileSync(SCREENSHOT, image)
    await done(page)
  })
})
