// Webhooks on Settings → Integrations, in Chromium (playwright-core): create one (the secret
// shown once, with a copy button), see it listed, a refused URL explained, rotate the secret,
// re-enable a disabled one, delete after a confirmation; CSRF checked. With
// UPDATE_SCREENSHOTS=1 the screenshot of docs/webhooks.md is written again.
import assert from 'node:assert/strict'
import { writeFileSync } from 'node:fs'
import { after, before, describe, test } from 'node:test'
import { type APIResponse, type Browser, type Page } from 'playwright-core'
import { recordApiEvents } from '../../src/modules/outbox/outbox.js'
import { decryptSecret } from '../../src/modules/webhooks/secrets.js'
import { systemActing } from '../../src/acting.js'
import { createCompany } from '../../src/modules/users-api/users-api.service.js'
import { asCompanyId, type CompanyId } from '../../src/tenancy.js'
import { backends, type TestApp } from '../helpers/app.js'
import { startInChromium, withoutChromium } from '../helpers/chromium.js'
import { execute, rawRows, sql } from '../helpers/sql.js'
import { member, PASSWORD } from './helpers.js'
import { publishEvents } from '../../src/modules/webhooks/publish.js'
import { transaction } from '../../src/db/db.js'

const [backend] = backends()
if (!backend) throw new Error('no backend')
const HOME = '/settings/integrations'
const SCREENSHOT = new URL('../../docs/images/web-webhooks.png', import.meta.url)
const URL_A = 'https://93.184.215.14/engage' // a public address literal: saved without DNS

describe('webhooks on Settings → Integrations, in Chromium', { skip: withoutChromium }, () => {
  let t: TestApp
  let browser: Browser
  let origin: string
  let companyId: CompanyId

  before(async () => {
    ;({ t, browser, origin } = await startInChromium(backend, { config: { signInLimit: { max: 100_000, windowMs: 60_000 } } }))
    companyId = asCompanyId((await createCompany(t.db, systemActing(), { name: 'Acme Sales', timezone: 'UTC' })).id)
  })
  after(async () => {
    await browser.close()
    await t.close()
  })

  const pageProblems = new WeakMap<Page, string[]>()
  /** Closes the page's profile; a script error or a blocked resource fails the test. */
  async function done(page: Page) {
    await page.context().close()
    assert.deepEqual(pageProblems.get(page), [])
  }

  const rows = () =>
    rawRows<{ id: number; url: string; events: string[]; description: string | null; enabled: boolean; secret: string; previousSecret: string | null; disabledReason: string | null }>(t.db, sql`
      select id, url, events, description, enabled, secret, previous_secret as "previousSecret", disabled_reason as "disabledReason"
        from webhook_subscriptions where company_id = ${companyId} order by id`)

  async function signedIn(viewport = { width: 1100, height: 900 }): Promise<Page> {
    const user = await member(t.db, companyId, { role: 'admin' }) // only admins manage webhooks
    const context = await browser.newContext({ viewport, permissions: ['clipboard-read', 'clipboard-write'] })
    const page = await context.newPage()
    const problems: string[] = []
    page.on('pageerror', (error) => problems.push(error.message))
    page.on('console', (message) => {
      if (message.type() === 'error' && !/status of 4\d\d/.test(message.text())) problems.push(message.text())
    })
    pageProblems.set(page, problems)
    await page.goto(`${origin}/login`)
    await page.getByLabel('Email').fill(user.email)
    await page.getByLabel('Password').fill(PASSWORD)
    await page.getByRole('button', { name: 'Sign in' }).click()
    await page.waitForURL(`${origin}/tasks`)
    await page.goto(`${origin}${HOME}`)
    return page
  }

  async function createThroughForm(page: Page, url: string, events: string[] | 'all', description = '') {
    await page.getByLabel('URL', { exact: true }).fill(url)
    if (events === 'all') await page.getByLabel('All events, also types added later').check()
    else {
      await page.getByLabel('Only these:').check()
      for (const type of events) await page.getByLabel(type, { exact: true }).check()
    }
    await page.getByLabel('Description (optional)').fill(description)
    await page.getByRole('button', { name: 'Create webhook' }).click()
  }

  test('create one: the secret shown once with a copy button, then listed with its events and status', async () => {
    const page = await signedIn()
    assert.match(await page.locator('main').innerText(), /No webhooks yet/)
    await createThroughForm(page, URL_A, ['contact.created', 'tag.deleted'], 'CRM sync')
    await page.waitForURL(`${origin}${HOME}`)
    const secret = await page.locator('#new-webhook-secret').innerText()
    assert.match(secret, /^whsec_[A-Za-z0-9+/]{43}=$/)
    const copy = page.locator('button[data-copy="new-webhook-secret"]')
    await copy.click()
    // A locator waits in Playwright's own world: a string predicate polled in the page is eval, which the CSP refuses.
    await page.locator('button[data-copy="new-webhook-secret"]', { hasText: /^Copied$/ }).waitFor()
    assert.equal(await page.evaluate('navigator.clipboard.readText()'), secret)

    const [row] = await rows()
    assert.ok(row)
    assert.deepEqual([row.url, row.events, row.description, row.enabled], [URL_A, ['contact.created', 'tag.deleted'], 'CRM sync', true])
    assert.equal(decryptSecret(t.app.keys.derive('webhook secrets'), row.secret), secret)

    const listed = page.getByRole('row', { name: /93\.184\.215\.14/ })
    assert.match(await listed.innerText(), /CRM sync[\s\S]*contact\.created, tag\.deleted[\s\S]*Active[\s\S]*None yet/)
    await page.reload()
    assert.equal(await page.locator('#new-webhook-secret').count(), 0)
    assert.ok(!(await page.content()).includes(secret), 'not shown again')
    assert.ok(await page.getByRole('row', { name: /93\.184\.215\.14/ }).isVisible())
    await done(page)
  })

  test('a refused URL or no event type: a clear message, the form kept, nothing saved', async () => {
    const page = await signedIn()
    const before = (await rows()).length
    await createThroughForm(page, 'http://93.184.215.14/x', ['lead.created'], 'kept')
    assert.match(await page.getByRole('alert').innerText(), /The URL must be an https URL \(WEBHOOK_ALLOW_PRIVATE=true on the server allows it, for development only\)\./)
    assert.equal(await page.getByLabel('Description (optional)').inputValue(), 'kept')
    assert.ok(await page.getByLabel('lead.created', { exact: true }).isChecked())
    await createThroughForm(page, 'https://10.0.0.8/x', 'all')
    assert.match(await page.getByRole('alert').innerText(), /The URL must not point to a private or reserved address \(WEBHOOK_ALLOW_PRIVATE=true on the server allows it, for development only\)\./)
    await page.getByLabel('URL', { exact: true }).fill(URL_A)
    await page.getByLabel('Only these:').check()
    await page.getByLabel('lead.created', { exact: true }).uncheck() // still ticked from the first try
    await page.getByRole('button', { name: 'Create webhook' }).click()
    assert.match(await page.getByRole('alert').innerText(), /Choose at least one event type, or all events\./)
    assert.equal((await rows()).length, before)
    await done(page)
  })

  test('rotate the secret (the new one shown once), re-enable a disabled one, delete after a confirmation', async () => {
    const page = await signedIn()
    await createThroughForm(page, 'https://93.184.215.20/rotate-me', 'all')
    await page.waitForURL(`${origin}${HOME}`)
    const first = await page.locator('#new-webhook-secret').innerText()
    await page.getByRole('button', { name: 'Rotate secret of https://93.184.215.20/rotate-me' }).click()
    await page.waitForURL(`${origin}${HOME}`)
    const second = await page.locator('#new-webhook-secret').innerText()
    assert.notEqual(second, first)
    assert.match(await page.getByRole('status').first().innerText(), /previous secret keeps signing deliveries for 24 hours/)
    const row = (await rows()).find((r) => r.url === 'https://93.184.215.20/rotate-me')
    assert.ok(row)
    const key = t.app.keys.derive('webhook secrets')
    assert.equal(decryptSecret(key, row.secret), second)
    assert.equal(decryptSecret(key, row.previousSecret ?? ''), first)

    // Disabled as the worker leaves it after 3 days of failures, with a failed delivery.
    await transaction(t.db, (tx) => recordApiEvents(tx, companyId, [{ type: 'tag.created', data: { id: 1 } }], new Date()))
    await publishEvents(t.db, 1000) // what the delivery worker does next
    await execute(t.db, sql`
      update webhook_subscriptions
         set enabled = false, disabled_at = ${new Date()}, disabled_reason = 'every delivery failed since 2026-11-19T10:00:00Z; last attempt: HTTP 500'
       where id = ${row.id}`)
    await page.reload()
    const listed = page.getByRole('row', { name: /rotate-me/ })
    assert.match(await listed.innerText(), /Disabled[\s\S]*every delivery failed since 2026-11-19T10:00:00Z; last attempt: HTTP 500[\s\S]*Pending/)
    await page.getByRole('button', { name: 'Enable https://93.184.215.20/rotate-me' }).click()
    await page.waitForURL(`${origin}${HOME}`)
    assert.match(await page.getByRole('status').first().innerText(), /enabled again/)
    assert.match(await page.getByRole('row', { name: /rotate-me/ }).innerText(), /Active/)
    const enabled = (await rows()).find((r) => r.id === row.id)
    assert.deepEqual([enabled?.enabled, enabled?.disabledReason], [true, null])

    await page.getByRole('link', { name: 'Delete https://93.184.215.20/rotate-me' }).click()
    assert.equal(await page.getByRole('heading', { level: 1 }).innerText(), 'Delete this webhook?')
    await page.getByRole('button', { name: 'Delete webhook' }).click()
    await page.waitForURL(`${origin}${HOME}`)
    assert.match(await page.getByRole('status').first().innerText(), /deleted: nothing more is sent to it/)
    assert.equal((await rows()).some((r) => r.id === row.id), false)
    await done(page)
  })

  test("a form without its CSRF token: 403, nothing saved; another company's webhook: 404", async () => {
    const page = await signedIn()
    const before = (await rows()).length
    await page.evaluate(`document.querySelector('form[action="${HOME}/webhooks"] input[name="_csrf"]').remove()`)
    await page.getByLabel('URL', { exact: true }).fill(URL_A)
    const [response] = await Promise.all([page.waitForResponse(`${origin}${HOME}/webhooks`), page.getByRole('button', { name: 'Create webhook' }).click()])
    assert.equal(response.status(), 403)
    assert.equal((await rows()).length, before)

    const otherCompany = asCompanyId((await createCompany(t.db, systemActing(), { name: 'Other' })).id)
    const [theirs] = await rawRows<{ id: number }>(t.db, sql`
      insert into webhook_subscriptions (company_id, url, events, secret) values (${otherCompany}, ${URL_A}, ${['*']}, 'v1.x')
      returning id`)
    assert.ok(theirs)
    const view = await page.goto(`${origin}${HOME}/webhooks/${String(theirs.id)}/delete`)
    assert.equal(view?.status(), 404)
    await page.goto(`${origin}${HOME}`)
    const csrf = (await page.locator('form[action="/logout"] input[name="_csrf"]').getAttribute('value')) ?? ''
    for (const action of ['delete', 'rotate', 'enable']) {
      const answer: APIResponse = await page.request.post(`${origin}${HOME}/webhooks/${String(theirs.id)}/${action}`, { form: { _csrf: csrf } })
      assert.equal(answer.status(), 404, action)
    }
    const [still] = await rawRows<{ secret: string }>(t.db, sql`select secret from webhook_subscriptions where id = ${theirs.id}`)
    assert.equal(still?.secret, 'v1.x')
    await done(page)
  })

  test('the screenshot of docs/webhooks.md', async () => {
    const page = await signedIn({ width: 900, height: 1000 })
    await createThroughForm(page, URL_A, 'all', 'CRM sync')
    await page.waitForURL(`${origin}${HOME}`)
    const image = await page.locator('#webhooks-title').locator('xpath=..').screenshot()
    assert.ok(image.length > 5_000)
    if (process.env.UPDATE_SCREENSHOTS === '1') writeFileSync(SCREENSHOT, image)
    await done(page)
  })
})
