// The workspace's Tasks and Flows pages in Chromium (playwright-core, Debian's Chromium),
// each page checked with axe-core (WCAG 2.1 A and AA: no violation) and, at 390 px wide, for
// content wider than the screen: a member's day (lands on Tasks → Today, opens a task's
// contact, marks the task done and finds it under Done, adds two contacts to a flow and finds
// their first tasks under Tasks), with JavaScript (Mark done without a reload) and without
// it; and an admin creating a flow of three steps.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import type { Browser, Page } from 'playwright-core'
import { systemActing } from '../../src/acting.js'
import { createCompany } from '../../src/modules/users-api/users-api.service.js'
import { dayIn } from '../../src/modules/tasks/task-dates.js'
import { asCompanyId, type CompanyId } from '../../src/tenancy.js'
import { backends, type TestApp } from '../helpers/app.js'
import { checkPage, screenshot, signInInChromium, startInChromium, withoutChromium } from '../helpers/chromium.js'
import { addContact, addFlow, addTask } from '../helpers/flows-factories.js'
import { rawRows, sql } from '../helpers/sql.js'
import { member, PASSWORD } from './helpers.js'

const [backend] = backends()
// Without JavaScript the same pages are tested over HTTP (tasks-pages, flows-pages): page.evaluate, which axe needs, does not run there.
const WIDTHS = [{ width: 1100, javaScript: true }, { width: 390, javaScript: true }]
describe('the workspace in Chromium: Tasks and Flows', { skip: withoutChromium }, () => {
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

  const today = () => dayIn(new Date(), 'UTC')

  async function openPage(options: { width: number; javaScript: boolean }) {
    const context = await browser.newContext({ viewport: { width: options.width, height: 800 }, isMobile: options.width < 500, javaScriptEnabled: options.javaScript })
    const page = await context.newPage()
    const problems: string[] = []
    page.on('pageerror', (error) => problems.push(error.message))
    page.on('console', (message) => { if (message.type() === 'error' && !/status of 4\d\d/.test(message.text())) problems.push(message.text()) })
    return { page, problems }
  }

  const signIn = (page: Page, email: string) => signInInChromium(page, origin, email, PASSWORD)

  for (const { width, javaScript } of WIDTHS) {
    test(`a member's day (${String(width)} px, JavaScript ${javaScript ? 'on' : 'off'})`, async () => {
      const rep = await member(t.db, companyId, { name: 'Rita Rep' })
      const ana = await addContact(t.db, companyId, { userId: rep.id, firstName: 'Ana', lastName: `Souza ${String(width)}${javaScript ? 'js' : ''}` })
      const call = await addTask(t.db, companyId, ana.id, { due: today(), title: `Call Ana ${String(width)}${javaScript ? "js" : "nojs"}`, assignedToId: rep.id, kind: 'phonecall' })
      const flow = await addFlow(t.db, companyId, { userId: rep.id, name: `Outbound ${String(width)}${String(javaScript)}`, steps: [
        { day: 0, kind: 'email', title: 'First touch' }, { day: 3, kind: 'phonecall', title: 'Follow-up call' },
      ] })
      const tag = `w${String(width)}${javaScript ? 'j' : 'n'}`
      const bo = await addContact(t.db, companyId, { userId: rep.id, firstName: 'Bo', lastName: `Flowtest${tag}` })
      const cy = await addContact(t.db, companyId, { userId: rep.id, firstName: 'Cy', lastName: `Flowtest${tag}` })

      const { page, problems } = await openPage({ width, javaScript })
      await signIn(page, rep.email)
      await page.waitForURL(`${origin}/tasks`)
      assert.equal(await page.getByRole('heading', { level: 1 }).textContent(), 'Tasks')
      assert.equal(await page.getByRole('navigation', { name: 'Tasks by day' }).getByRole('link', { name: 'Today' }).getAttribute('aria-current'), 'page')
      await checkPage(page, 'Tasks → Today')
      await screenshot(page, 'workspace-tasks')

      // The task's contact, and back.
      await page.getByRole('row', { name: new RegExp(call.title) }).getByRole('link', { name: `Ana Souza ${String(width)}${javaScript ? 'js' : ''}` }).click()
      await page.waitForURL(`${origin}/contacts/${String(ana.id)}`)
      await page.goBack()
      await page.waitForURL(`${origin}/tasks`)

      // Mark done: it leaves Today (without a reload when JavaScript runs) and shows under Done.
      if (javaScript) await page.evaluate('window.stayed = true')
      await page.getByRole('button', { name: `Mark done: ${call.title}` }).click()
      await page.getByRole('status').filter({ hasText: `Done: ${call.title}.` }).waitFor()
      if (javaScript) assert.equal(await page.evaluate('window.stayed'), true, 'no full reload')
      assert.equal(await page.getByRole('row', { name: new RegExp(call.title) }).count(), 0)
      await checkPage(page, 'Tasks after Mark done')
      await page.getByRole('navigation', { name: 'Tasks by day' }).getByRole('link', { name: 'Done' }).click()
      await page.waitForURL(`${origin}/tasks?tab=done`)
      assert.equal(await page.getByRole('row', { name: new RegExp(call.title) }).count(), 1)
      await checkPage(page, 'Tasks → Done')
      const [row] = await rawRows<{ done: boolean }>(t.db, sql`select done from tasks where id = ${call.id}`)
      assert.equal(row?.done, true)

      // Two contacts added to a flow from its page: their first tasks are under Tasks → Today.
      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Flows' }).click()
      await page.waitForURL(`${origin}/flows`)
      await checkPage(page, 'Flows')
      await page.getByRole('link', { name: flow.name }).click()
      await page.waitForURL(`${origin}/flows/${String(flow.id)}`)
      await page.getByRole('searchbox', { name: /^Find contacts/ }).fill(`Flowtest${tag}`)
      await page.getByRole('button', { name: 'Find' }).click()
      await page.getByLabel(`Bo Flowtest${tag}`).check()
      await page.getByLabel(`Cy Flowtest${tag}`).check()
      await checkPage(page, 'a flow with contacts found')
      await page.getByRole('button', { name: 'Add contacts' }).click()
      await page.waitForURL(`${origin}/flows/${String(flow.id)}`)
      await page.getByRole('status').filter({ hasText: '2 added.' }).waitFor()
      await checkPage(page, 'a flow after Add contacts')
      await screenshot(page, 'workspace-flow', { fullPage: true })
      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Tasks' }).click()
      await page.waitForURL(`${origin}/tasks`)
      for (const contact of [bo, cy]) {
        assert.equal(await page.getByRole('row', { name: new RegExp(`First touch.*${contact.first_name} Flowtest${tag}`) }).count(), 1, contact.first_name)
      }
      await page.context().close()
      assert.deepEqual(problems, [])
    })
  }

  test('an admin creates a flow with three steps (390 px)', async () => {
    const admin = await member(t.db, companyId, { name: 'Ada Admin', role: 'admin' })
    const { page, problems } = await openPage({ width: 390, javaScript: true })
    await signIn(page, admin.email)
    await page.waitForURL(`${origin}/tasks`)
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Flows' }).click()
    await page.getByRole('link', { name: 'New flow' }).click()
    await page.waitForURL(`${origin}/flows/new`)
    await checkPage(page, 'New flow')
    await page.getByLabel('Name').fill('Three-step outbound')
    const steps = [['email', '0', 'Intro email'], ['phonecall', '2', 'Call'], ['linkedin', '5', 'Connect on LinkedIn']] as const
    for (const [i, [kind, day, title]] of steps.entries()) {
      await page.locator(`#step-${String(i + 1)}-kind`).selectOption(kind)
      await page.locator(`#step-${String(i + 1)}-day`).fill(day)
      await page.locator(`#step-${String(i + 1)}-title`).fill(title)
    }
    await page.getByRole('button', { name: 'Create flow' }).click()
    await page.waitForURL(/\/flows\/\d+$/)
    await page.getByRole('status').filter({ hasText: 'Flow created: Three-step outbound.' }).waitFor()
    const instructions = await page.locator('td[data-label="Instructions"]').allTextContents()
    assert.deepEqual(instructions, steps.map(([, , title]) => title))
    await checkPage(page, 'a new flow')
    await page.getByRole('link', { name: 'Edit' }).click()
    await page.waitForURL(/\/flows\/\d+\/edit$/)
    await checkPage(page, 'a flow’s edit page')
    await page.context().close()
    assert.deepEqual(problems, [])
  })
})
