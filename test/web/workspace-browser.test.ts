// The workspace's contacts and Settings → Users in Chromium (playwright-core, Debian's
// Chromium), each page checked with axe-core (WCAG 2.1 AA: 0 violations) and, at 390 px, for
// overflow, with scripts (search as you type, Mark done without a reload). With
// UPDATE_SCREENSHOTS=1 the README's screenshots are written again.
import assert from 'node:assert/strict'
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import type { Browser, Page } from 'playwright-core'
import { systemActing } from '../../src/acting.js'
import { importFile } from '../../src/modules/whatsapp/whatsapp.service.js'
import { backends, type TestApp } from '../helpers/app.js'
import { screenshot, signInInChromium, startInChromium, withoutChromium } from '../helpers/chromium.js'
import { addContact, addTag } from '../helpers/contacts-factories.js'
import { tenant, type Tenant } from '../helpers/factories.js'
import { addFlow, addTask } from '../helpers/flows-factories.js'
import { rawRows, sql } from '../helpers/sql.js'
import { member, PASSWORD } from './helpers.js'

const [firstBackend] = backends()
if (!firstBackend) throw new Error('no backend')
const backend = firstBackend
const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8')

// axe-core and the overflow check run in the page, so these run with scripts; the same steps
// without scripts (links and form posts answering 303) are test/web/workspace-contacts.test.ts's.
const MODES = [
  { name: 'desktop', viewport: { width: 1200, height: 800 } },
  { name: '390 px', viewport: { width: 390, height: 844 } },
] as const

describe('the workspace in Chromium', { skip: withoutChromium }, () => {
  let t: TestApp
  let browser: Browser
  let origin: string
  before(async () => {
    ;({ t, browser, origin } = await startInChromium(backend, { config: { signInLimit: { max: 100_000, windowMs: 60_000 } } }))
  })
  after(async () => {
    await browser.close()
    await t.close()
  })

  /** axe-core on the page as it is (evaluated over the DevTools protocol, which the CSP does not govern): no violation. */
  async function accessible(page: Page, width: number) {
    await page.evaluate(AXE)
    const violations = await page.evaluate<string[]>(`axe.run(document, { runOnly: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] })
      .then((r) => r.violations.map((v) => v.id + ': ' + v.nodes.map((n) => n.target.join(' ')).join(', ')))`)
    assert.deepEqual(violations, [], `axe on ${page.url()}`)
    const scrollWidth = await page.evaluate<number>('document.documentElement.scrollWidth')
    assert.ok(scrollWidth <= width, `${page.url()} is ${String(scrollWidth)} px wide at ${String(width)} px`)
  }

  async function signIn(page: Page, email: string) {
    await signInInChromium(page, origin, email, PASSWORD, { keyboard: true })
    await page.waitForURL(`${origin}/tasks`)
  }

  async function company(): Promise<Tenant> {
    return tenant(t.db, { name: 'Acme Sales' })
  }

  for (const mode of MODES) {
    test(`a rep's day on the contacts pages (${mode.name})`, async () => {
      const acme = await company()
      const rep = await member(t.db, acme.companyId, { name: 'Rita Rep' })
      const who = { companyId: acme.companyId, userId: rep.id }
      const hot = await addTag(t.db, who, { name: 'Hot' })
      const ana = await addContact(t.db, who, { first_name: 'Ana', last_name: 'Souza', email: 'ana.souza@globex.example', business: 'Globex', stage: 'lead' })
      await addContact(t.db, who, { first_name: 'Bruno', last_name: 'Reis', email: 'bruno@initech.example', business: 'Initech', stage: 'lead', tags: [hot.id] })
      await addContact(t.db, who, { first_name: 'Carla', last_name: 'Dias', email: 'carla@umbrella.example' })
      await addFlow(t.db, acme.companyId, { userId: rep.id, name: 'Onboarding' })
      const due = new Date().toISOString().slice(0, 10)
      await addTask(t.db, acme.companyId, ana.id, { due, title: 'Call Ana', assignedToId: rep.id })
      const file = join(mkdtempSync(join(tmpdir(), 'engage-ws-')), 'chat.jsonl')
      const line = (direction: string, body: string, at: string) => JSON.stringify({ contact_id: ana.id, user_id: rep.id, direction, body, status: direction === 'inbound' ? 'received' : 'read', sent_at: at })
      writeFileSync(file, [line('inbound', 'Hi! Is the offer still on?', '2026-11-20T10:00:00Z'), line('outbound', 'It is: shall we call tomorrow?', '2026-11-20T10:04:00Z')].join('\n'))
      await importFile(t.db, systemActing(), { company: acme.companyId, file })

      const context = await browser.newContext({ viewport: mode.viewport })
      const page = await context.newPage()
      const width = mode.viewport.width
      await signIn(page, rep.email)
      // Tasks (where sign-in lands) is another page group's: start from Contacts.
      await page.goto(`${origin}/contacts`)
      await accessible(page, width)

      // Search by a part of the email: as one types with scripts, with the Show button without.
      await page.getByLabel('Search').fill('souza@glob')
      await page.waitForURL(/search_term=souza%40glob/)
      await page.getByRole('link', { name: 'Ana Souza' }).waitFor()
      assert.equal(await page.getByRole('link', { name: 'Bruno Reis' }).count(), 0)
      assert.match(page.url(), /search_term=souza%40glob/)
      await screenshot(page, 'workspace-contacts')

      // Stage and Tag beside Search: each choice is a view of its own in the address; back returns to the one before.
      await page.goto(`${origin}/contacts`)
      await page.getByLabel('Stage').selectOption({ label: 'Lead' })
      await page.waitForURL(/stage=lead/)
      await page.getByRole('link', { name: 'Ana Souza' }).waitFor()
      assert.equal(await page.getByRole('link', { name: 'Carla Dias' }).count(), 0)
      await page.getByLabel('Tag', { exact: true }).selectOption({ label: 'Hot' })
      await page.waitForURL((url) => url.searchParams.get('stage') === 'lead' && /^\d+$/.test(url.searchParams.get('tag_id') ?? ''))
      await page.getByText('Page 1 of 1 · 1 contact').waitFor()
      await accessible(page, width)
      await page.goBack()
      await page.waitForURL((url) => url.searchParams.get('stage') === 'lead' && !url.searchParams.get('tag_id'))
      assert.equal(await page.getByLabel('Tag', { exact: true }).inputValue(), '')
      assert.equal(await page.getByRole('link', { name: 'Ana Souza' }).count(), 1)

      // Two contacts ticked, added to a flow: "2 added".
      await page.goto(`${origin}/contacts`)
      await page.getByLabel('Select Bruno Reis').check()
      await page.getByLabel('Select Carla Dias').check()
      await page.getByLabel('Flow', { exact: true }).selectOption({ label: 'Onboarding' })
      await page.getByRole('button', { name: 'Add to flow' }).click()
      await page.getByText('2 added to Onboarding.').waitFor()
      await accessible(page, width)

      // The contact: stage, tag, Mark done, the WhatsApp conversation.
      await page.getByRole('link', { name: 'Ana Souza' }).click()
      await page.getByRole('heading', { name: 'Ana Souza', level: 1 }).waitFor()
      await accessible(page, width)
      await page.getByLabel('Change stage').selectOption({ label: 'Opportunity' })
      await page.getByRole('button', { name: 'Save stage' }).click()
      await page.getByText('Stage saved.').waitFor()
      await page.getByLabel('Tag', { exact: true }).selectOption({ label: 'Hot' })
      await page.getByRole('button', { name: 'Add tag' }).click()
      await page.getByText('Tag added.').waitFor()
      await page.getByRole('button', { name: 'Mark done Call Ana' }).click()
      await page.getByText('Task “Call Ana” done.').waitFor()
      assert.equal(await page.getByRole('button', { name: 'Mark done Call Ana' }).count(), 0)
      const chat = page.locator('ol.chat li')
      assert.deepEqual(await chat.evaluateAll((items) => items.map((item) => `${item.className}: ${item.querySelector('p')?.textContent ?? ''}`)), [
        'received: Hi! Is the offer still on?',
        'sent: It is: shall we call tomorrow?',
      ])
      await accessible(page, width)
      await screenshot(page, 'workspace-contact', { fullPage: true })
      const [row] = await rawRows<{ stage: string; tags: number }>(t.db, sql`
        select stage, (select count(*)::int from contact_tags ct where ct.company_id = c.company_id and ct.contact_id = c.id) as tags
          from contacts c where c.id = ${ana.id}`)
      assert.deepEqual(row, { stage: 'opportunity', tags: 1 })
      await context.close()
    })

    test(`an admin invites a user, who signs in with the link, and makes a member an admin (${mode.name})`, async () => {
      const acme = await company()
      const admin = await member(t.db, acme.companyId, { name: 'Ada Admin', role: 'admin' })
      const mia = await member(t.db, acme.companyId, { name: 'Mia Member' })
      const context = await browser.newContext({ viewport: mode.viewport })
      const page = await context.newPage()
      const width = mode.viewport.width
      await signIn(page, admin.email)
      await page.goto(`${origin}/contacts`)
      await page.getByRole('link', { name: 'Settings', exact: true }).click()
      await page.getByRole('navigation', { name: 'Settings' }).getByRole('link', { name: 'Users' }).click()
      await page.getByRole('heading', { name: 'Users', level: 1 }).waitFor()
      await accessible(page, width)
      const email = `newcomer.${String(Date.now())}.${String(width)}@example.com`
      await page.getByLabel('Name').fill('Nina Newcomer')
      await page.getByLabel('Email').fill(email)
      await page.getByRole('button', { name: 'Invite', exact: true }).click()
      const link = (await page.locator('#invite-link').textContent()) ?? ''
      assert.match(link, /\/invite\/[A-Za-z0-9_-]{43}$/)
      await accessible(page, width)
      await screenshot(page, 'workspace-users')

      // The link, in a second browser profile: choose a password, land signed in.
      const second = await browser.newContext({ viewport: mode.viewport })
      const newcomer = await second.newPage()
      await newcomer.goto(link)
      await newcomer.getByLabel('New password').fill('a long enough passphrase')
      await newcomer.getByLabel('Repeat the password').fill('a long enough passphrase')
      await newcomer.getByRole('button', { name: 'Set password and sign in' }).click()
      await newcomer.waitForURL(`${origin}/tasks`)
      await second.close()

      await page.getByRole('button', { name: 'Make admin Mia Member' }).click()
      await page.getByText('Mia Member is an admin now.').waitFor()
      const [row] = await rawRows<{ role: string }>(t.db, sql`select role from users where id = ${mia.id}`)
      assert.equal(row?.role, 'admin')
      await context.close()
    })
  }

  test('members see Users read only: no Invite, and a post answers 403 and changes nothing', async () => {
    const acme = await company()
    const rep = await member(t.db, acme.companyId)
    const other = await member(t.db, acme.companyId)
    const context = await browser.newContext()
    const page = await context.newPage()
    await signIn(page, rep.email)
    await page.goto(`${origin}/settings/users`)
    assert.equal(await page.getByRole('button', { name: 'Invite', exact: true }).count(), 0)
    assert.equal(await page.getByRole('button', { name: /Make admin/ }).count(), 0)
    const csrf = await page.locator('input[name="_csrf"]').first().inputValue()
    const res = await page.request.post(`${origin}/settings/users/${String(other.id)}/role`, { form: { _csrf: csrf, role: 'admin' }, maxRedirects: 0 })
    assert.equal(res.status(), 403)
    const [row] = await rawRows<{ role: string }>(t.db, sql`select role from users where id = ${other.id}`)
    assert.equal(row?.role, 'member')
    await context.close()
  })
})
