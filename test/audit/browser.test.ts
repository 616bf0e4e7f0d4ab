// Settings → Security log in a real browser (Chromium through playwright-core, as
// test/web/browser.test.ts): the record of the browser's own sign-in with its address, the
// filters as a form (with and without JavaScript), the export link, the phone width, and
// members kept out.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { type Browser, type Page } from 'playwright-core'
import { setPassword } from '../../src/modules/auth/accounts.service.js'
import { systemActing } from '../../src/acting.js'
import { createCompany } from '../../src/modules/users-api/users-api.service.js'
import { asCompanyId, type CompanyId } from '../../src/tenancy.js'
import { backends, type TestApp } from '../helpers/app.js'
import { startInChromium, withoutChromium } from '../helpers/chromium.js'
import { addUser } from '../helpers/factories.js'
import { member, PASSWORD } from '../web/helpers.js'

const [backend] = backends()
if (!backend) throw new Error('no backend')

describe('the security log in Chromium', { skip: withoutChromium }, () => {
  let t: TestApp
  let browser: Browser
  let origin: string
  let companyId: CompanyId
  let adminEmail = ''

  before(async () => {
    ;({ t, browser, origin } = await startInChromium(backend))
    companyId = asCompanyId((await createCompany(t.db, systemActing(), { name: 'Acme Sales', timezone: 'UTC' })).id)
    const admin = await addUser(t.db, companyId, { name: 'Ana Admin', email: 'ana@acme.example', role: 'admin' })
    await setPassword(t.db, systemActing(), admin.id, { password: PASSWORD })
    adminEmail = admin.email
  })
  after(async () => {
    await browser.close()
    await t.close()
  })

  async function signIn(page: Page, email: string, password = PASSWORD) {
    await page.goto(`${origin}/login`)
    await page.getByLabel('Email').fill(email)
    await page.getByLabel('Password').fill(password)
    await page.getByRole('button', { name: 'Sign in' }).click()
  }

  const open = (options: { javaScriptEnabled?: boolean; viewport?: { width: number; height: number }; isMobile?: boolean } = {}) =>
    browser.newContext({ viewport: options.viewport ?? { width: 1100, height: 760 }, isMobile: options.isMobile ?? false, javaScriptEnabled: options.javaScriptEnabled ?? true }).then((c) => c.newPage())

  test("the admin's own sign-in is there, with the browser's address; a filter narrows the list; the export downloads", async () => {
    const page = await open()
    await signIn(page, adminEmail, 'not the password of anyone')
    await signIn(page, adminEmail)
    await page.waitForURL(`${origin}/tasks`)
    await page.goto(`${origin}/settings/integrations`)
    await page.getByRole('link', { name: 'Security log' }).click()
    await page.waitForURL(`${origin}/settings/audit`)
    const items = page.locator('ol.audit-log li')
    assert.match(await items.first().innerText(), /^Ana Admin signed in, from 127\.0\.0\.1, just now/)
    assert.match(await items.nth(1).innerText(), /^Ana Admin was refused sign-in \(a wrong password\), from 127\.0\.0\.1/)
    await page.getByLabel('Outcome').selectOption('failure')
    await page.getByRole('button', { name: 'Filter' }).click()
    await page.waitForURL(/outcome=failure/)
    const texts = await items.allInnerTexts()
    assert.equal(texts.length, 1)
    assert.match(texts[0] ?? '', /refused sign-in/)
    const link = page.getByRole('link', { name: /^Export/ })
    assert.match((await link.getAttribute('href')) ?? '', /^\/settings\/audit\/export\?since=/)
    const [download] = await Promise.all([page.waitForEvent('download'), link.click()])
    const path = await download.path()
    const { readFileSync } = await import('node:fs')
    const lines = readFileSync(path, 'utf8').trimEnd().split('\n').map((line) => JSON.parse(line) as { action: string; ip: string | null })
    assert.ok(lines.some((e) => e.action === 'user.signed_in' && e.ip === '127.0.0.1'))
    await page.context().close()
  })

  test('without JavaScript and at phone width: the form filters, nothing overflows sideways', async () => {
    const page = await open({ javaScriptEnabled: false, viewport: { width: 375, height: 740 }, isMobile: true })
    await signIn(page, adminEmail)
    await page.waitForURL(`${origin}/tasks`)
    await page.goto(`${origin}/settings/integrations`)
    await page.goto(`${origin}/settings/audit`)
    await page.getByLabel('Action').selectOption('user.signed_in')
    await page.getByRole('button', { name: 'Filter' }).click()
    await page.waitForURL(/action=user.signed_in/)
    const texts = await page.locator('ol.audit-log li').allInnerTexts()
    assert.ok(texts.length >= 2 && texts.every((text) => /signed in/.test(text)))
    const overflow = Number(await page.evaluate('document.documentElement.scrollWidth - window.innerWidth'))
    assert.ok(overflow <= 0, `the page is ${String(overflow)} px wider than the screen`)
    const box = await page.getByRole('button', { name: 'Filter' }).boundingBox()
    assert.ok(box && box.x >= 0 && box.x + box.width <= 375)
    await page.context().close()
  })

  test('a member gets a 403 page, and no link to it', async () => {
    const user = await member(t.db, companyId)
    const page = await open()
    await signIn(page, user.email)
    await page.waitForURL(`${origin}/tasks`)
    await page.goto(`${origin}/settings/integrations`)
    assert.equal(await page.getByRole('link', { name: 'Security log' }).count(), 0)
    const res = await page.goto(`${origin}/settings/audit`)
    assert.equal(res?.status(), 403)
    assert.match(await page.locator('main').innerText(), /Only an admin of .+ can do this/)
    const exported = await page.goto(`${origin}/settings/audit/export?since=2020-01-01T00:00:00Z&until=2030-01-01T00:00:00Z`)
    assert.equal(exported?.status(), 403)
    await page.context().close()
  })
})
