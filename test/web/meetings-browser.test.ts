// The workspace's Meetings pages in Chromium (playwright-core, Debian's Chromium): a member
// opens Meetings from the header, opens a transcription, stops it, attaches a transcript (a
// long one, with a word longer than the screen) and links it to a task, then finds it on the
// task's contact's page; each page checked with axe-core (WCAG 2.1 A and AA: no violation)
// and for content wider than the screen, at 1100 and 390 px wide with JavaScript and at
// 390 px without it (every action a form post answering 303). Buttons are pressed from the
// keyboard (Enter), so the keyboard alone does it.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import type { Browser } from 'playwright-core'
import { backends, type TestApp } from '../helpers/app.js'
import { checkPageAsRun, screenshot, signInInChromium, startInChromium, withoutChromium } from '../helpers/chromium.js'
import { tenant, type Tenant } from '../helpers/factories.js'
import { addContact, addTask } from '../helpers/flows-factories.js'
import { rawRows, sql } from '../helpers/sql.js'
import { member, PASSWORD } from './helpers.js'

const [backend] = backends()
const MODES = [
  { width: 1100, javaScript: true },
  { width: 390, javaScript: true },
  { width: 390, javaScript: false },
]
describe('the workspace in Chromium: Meetings', { skip: withoutChromium }, () => {
  let t: TestApp
  let browser: Browser
  let origin: string
  let acme: Tenant

  before(async () => {
    if (!backend) throw new Error('no backend')
    ;({ t, browser, origin } = await startInChromium(backend, { config: { signInLimit: { max: 100_000, windowMs: 60_000 } } }))
    acme = await tenant(t.db, { name: 'Acme Sales' })
  })
  after(async () => {
    await browser.close()
    await t.close()
  })

  for (const { width, javaScript } of MODES) {
    test(`a member stops a meeting, attaches its transcript and links it to a task (${String(width)} px, JavaScript ${javaScript ? 'on' : 'off'})`, async () => {
      const mode = `${String(width)}${javaScript ? 'js' : 'nojs'}`
      const rep = await member(t.db, acme.companyId, { name: `Rita Rep ${mode}` })
      const ana = await addContact(t.db, acme.companyId, { userId: rep.id, firstName: 'Ana', lastName: `Souza ${mode}` })
      const task = await addTask(t.db, acme.companyId, ana.id, { due: '2026-11-22', title: `Demo call ${mode}`, assignedToId: rep.id, kind: 'meeting' })
      const created = await t.app.inject({
        method: 'POST', url: '/api/v1/meet_transcriptions', headers: acme.auth,
        payload: { user_id: rep.id, company_id: acme.companyId, meet_id: `meet-${mode}` },
      })
      const meeting = created.json<{ id: number }>()
      const path = `${origin}/meetings/${String(meeting.id)}`

      const context = await browser.newContext({ viewport: { width, height: 800 }, isMobile: width < 500, javaScriptEnabled: javaScript })
      const page = await context.newPage()
      const problems: string[] = []
      page.on('pageerror', (error) => problems.push(error.message))
      page.on('console', (message) => { if (message.type() === 'error' && !/status of 4\d\d/.test(message.text())) problems.push(message.text()) })

      const checked = (what: string) => checkPageAsRun(browser, page, what, javaScript)
      await signInInChromium(page, origin, rep.email, PASSWORD, { keyboard: true })
      await page.waitForURL(`${origin}/tasks`)

      // The header's Meetings link, the list, a transcription's page.
      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Meetings' }).press('Enter')
      await page.waitForURL(`${origin}/meetings`)
      assert.equal(await page.getByRole('heading', { level: 1 }).textContent(), 'Meetings')
      const row = page.getByRole('row', { name: new RegExp(`meet-${mode}`) })
      assert.match(await row.textContent() ?? '', /Recording/)
      await checked('Meetings')
      await row.getByRole('link', { name: `meet-${mode}` }).press('Enter')
      await page.waitForURL(path)
      await checked('a recording transcription')

      // Stop.
      await page.getByRole('button', { name: 'Stop', exact: true }).press('Enter')
      await page.getByRole('status').filter({ hasText: 'Recording stopped.' }).waitFor()
      assert.equal(page.url(), path)
      assert.equal(await page.getByRole('button', { name: 'Stop', exact: true }).count(), 0)
      await checked('a stopped transcription')

      // Attach a transcript: lines kept, a word longer than the screen wrapped, markup shown as text.
      const transcript = `Ana: Thanks for joining <b>today</b>.\nBruno: Happy to be here. ${'https://example.com/'.repeat(12)}\n${'Long line of talk. '.repeat(40)}`
      await page.getByRole('textbox', { name: 'Transcript' }).fill(transcript)
      await page.getByRole('button', { name: 'Attach transcript' }).press('Enter')
      await page.getByRole('status').filter({ hasText: 'Transcript attached.' }).waitFor()
      assert.equal(await page.locator('.transcript').textContent(), transcript.replace(/\r\n/g, '\n'))
      await checked('a transcribed transcription')

      // Link to a task.
      await page.getByLabel('Task', { exact: true }).selectOption({ label: `Demo call ${mode} (Ana Souza ${mode}, due Sun, 22 Nov 2026)` })
      await page.getByRole('button', { name: 'Link to task' }).press('Enter')
      await page.getByRole('status').filter({ hasText: `Linked to the task “Demo call ${mode}”.` }).waitFor()
      await checked('a transcription linked to a task')
      // Whose open tasks to choose from: the recorder's, by default.
      assert.equal(await page.getByLabel('Open tasks of').inputValue(), String(rep.id))
      if (javaScript) await screenshot(page, 'workspace-meeting')
      const [stored] = await rawRows<{ status: string; transcript: string; task_id: number }>(t.db, sql`
        select status, transcript, task_id from meet_transcriptions where id = ${meeting.id}`)
      assert.deepEqual({ ...stored, transcript: stored?.transcript.replace(/\r\n/g, '\n') }, { status: 'transcribed', transcript, task_id: task.id })

      // The task's contact lists the transcription among its Meetings.
      await page.getByRole('definition').getByRole('link', { name: new RegExp(`Demo call ${mode}`) }).press('Enter')
      await page.waitForURL(`${origin}/contacts/${String(ana.id)}#task-${String(task.id)}`)
      const meetings = page.getByRole('region', { name: 'Meetings' })
      await meetings.getByRole('link', { name: `meet-${mode}` }).waitFor()
      await checked('the contact’s page')

      await context.close()
      assert.deepEqual(problems, [])
    })
  }
})
