// The workspace's Leads pages in Chromium (playwright-core, Debian's Chromium): a member opens
// Leads from the header, creates a lead (a refusal first: the form again with the message
// beside its field), opens it, finds a contact and links the lead to it, follows the link to
// the contact's page, whose Leads section links back, and finds the lead counted on the list.
// Each page is checked with axe-core (WCAG 2.1 A and AA: no violation) and for content wider
// than the screen; at 1100 px and at 390 px, and at 390 px with JavaScript disabled. There
// axe cannot run in the page (it waits on timers, which do not fire), so the page as that
// browser holds it is opened again, at the same address and width, in a page where axe runs
// and the site's script is blocked: the same markup, stylesheet and layout.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import type { Browser, Page } from 'playwright-core'
import { systemActing } from '../../src/acting.js'
import { createCompany } from '../../src/modules/users-api/users-api.service.js'
import { asCompanyId, type CompanyId } from '../../src/tenancy.js'
import { backends, type TestApp } from '../helpers/app.js'
import { checkPageAsRun, screenshot, signInInChromium, startInChromium, withoutChromium } from '../helpers/chromium.js'
import { addContact } from '../helpers/contacts-factories.js'
import { rawRows, sql } from '../helpers/sql.js'
import { member, PASSWORD } from './helpers.js'

const [backend] = backends()
const MODES = [
  { width: 1100, javaScript: true },
  { width: 390, javaScript: true },
  { width: 390, javaScript: false },
]
describe('the workspace in Chromium: Leads', { skip: withoutChromium }, () => {
  let t: TestApp
  let browser: Browser
  let origin: string
  let companyId: CompanyId

  before(async () => {
    if (!backend) throw new Error('no backend')
    ;({ t, browser, origin } = await startInChromium(backend, { config: { signInLimit: { max: 100_000, windowMs: 60_000 } } }))
    companyId = asCompanyId((await createCompany(t.db, systemActing(), { name: 'Acme Sales', timezone: 'UTC' })).id)
  })
  after(async () => {
    await browser.close()
    await t.close()
  })

  const check = (page: Page, what: string, scripts: boolean) => checkPageAsRun(browser, page, what, scripts)

  for (const { width, javaScript } of MODES) {
    test(`a member creates a lead, opens it and links it to a contact (${String(width)} px, JavaScript ${javaScript ? 'on' : 'off'})`, async () => {
      const tag = `${String(width)}${javaScript ? 'js' : 'nojs'}`
      const rep = await member(t.db, companyId, { name: `Rita Rep ${tag}` })
      const contact = await addContact(t.db, { companyId, userId: rep.id }, { first_name: 'Marta', last_name: `Personal${tag}`, email: `marta.${tag}@home.example` })

      const context = await browser.newContext({ viewport: { width, height: 800 }, isMobile: width < 500, javaScriptEnabled: javaScript })
      const page = await context.newPage()
      const problems: string[] = []
      page.on('pageerror', (error) => problems.push(error.message))
      page.on('console', (message) => { if (message.type() === 'error' && !/status of 4\d\d/.test(message.text())) problems.push(message.text()) })

      await signInInChromium(page, origin, rep.email, PASSWORD)
      await page.waitForURL(`${origin}/tasks`)

      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Leads' }).click()
      await page.waitForURL(`${origin}/leads`)
      assert.equal(await page.getByRole('heading', { level: 1 }).textContent(), 'Leads')
      assert.equal(await page.locator('#leads-count').textContent(), 'Your leads: 0 leads, 0 with a contact.')
      await check(page, 'Leads (none yet)', javaScript)

      // New lead: a refusal first (the form again, the message beside its field, what was typed kept).
      await page.getByRole('link', { name: 'New lead' }).click()
      await page.waitForURL(`${origin}/leads/new`)
      await check(page, 'New lead', javaScript)
      await page.getByLabel('First name').fill('Marta')
      await page.getByLabel('Last name').fill(`Reis ${tag}`)
      await page.getByLabel('Email').fill('not an email')
      await page.getByLabel('Provider', { exact: true }).fill('linkedin')
      await page.getByRole('button', { name: 'Create lead' }).click()
      await page.locator('#field-email-error').waitFor()
      assert.equal(await page.locator('#field-email-error').textContent(), 'Is invalid.')
      assert.equal(await page.getByLabel('Last name').inputValue(), `Reis ${tag}`)
      await check(page, 'New lead refused', javaScript)
      await page.getByLabel('Email').fill(`marta.reis.${tag}@globex.example`)
      await page.getByLabel('Position').fill('Head of Sales')
      await page.getByLabel('Business name').fill('Globex')
      await page.getByRole('button', { name: 'Create lead' }).click()
      await page.waitForURL(/\/leads\/\d+$/)
      const leadUrl = page.url()
      const leadId = Number(leadUrl.split('/').pop())
      await page.getByRole('status').filter({ hasText: `Lead created: Marta Reis ${tag}.` }).waitFor()
      assert.equal(await page.getByRole('heading', { level: 1 }).textContent(), `Marta Reis ${tag}`)
      await check(page, 'a new lead', javaScript)

      // Link to contact: find the contact (another email), choose it, link.
      await page.getByRole('searchbox', { name: /^Find a contact/ }).fill(`Personal${tag}`)
      await page.getByRole('button', { name: 'Find' }).click()
      await page.waitForURL(/contact_search=/)
      await check(page, 'a lead with contacts found', javaScript)
      await page.getByRole('radio', { name: new RegExp(`Marta Personal${tag}`) }).check()
      await page.getByRole('button', { name: 'Link to contact' }).click()
      await page.waitForURL(leadUrl)
      await page.getByRole('status').filter({ hasText: `Marta Reis ${tag} is linked to Marta Personal${tag}.` }).waitFor()
      await check(page, 'a linked lead', javaScript)
      if (javaScript) await screenshot(page, 'workspace-lead')
      const [row] = await rawRows<{ contact_id: number | null }>(t.db, sql`select contact_id from leads where id = ${leadId}`)
      assert.equal(row?.contact_id, contact.id)

      // The contact's page lists the lead, linking back; the list counts it.
      await page.getByRole('link', { name: `Marta Personal${tag}` }).click()
      await page.waitForURL(`${origin}/contacts/${String(contact.id)}`)
      const section = page.getByRole('region', { name: 'Leads' })
      await check(page, 'the contact with its lead', javaScript)
      await section.getByRole('link', { name: `Marta Reis ${tag}` }).click()
      await page.waitForURL(leadUrl)
      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Leads' }).click()
      await page.waitForURL(`${origin}/leads`)
      assert.equal(await page.locator('#leads-count').textContent(), 'Your leads: 1 lead, 1 with a contact.')
      assert.equal(await page.getByRole('row', { name: new RegExp(`Marta Reis ${tag}.*Marta Personal${tag}`) }).count(), 1)
      await check(page, 'Leads with one lead', javaScript)

      await context.close()
      assert.deepEqual(problems, [])
    })
  }
})
