// Issue 38 §3: every field of every form of the web application, found by reading the pages
// themselves (an admin's pages reached by their links, the sign-in and invite pages), so a
// new form or field is swept without touching this: each field gets NUL, lone surrogates and
// leap seconds, the others keep the values the page gave them. Every answer: no 5xx, and an
// HTML page or a redirect (docs/web.md), never JSON. OAuth's own endpoints are swept by
// test/oauth.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { systemActing } from '../../src/acting.js'
import { inviteUser } from '../../src/modules/auth/accounts.service.js'
import { backends, startApp, type TestApp } from '../helpers/app.js'
import { addUser, tenant } from '../helpers/factories.js'
import { addContact, addTask } from '../helpers/flows-factories.js'
import { encode } from '../fuzz/requests.js'
import { SWEPT } from '../fuzz/values.js'
import { Browser, member } from './helpers.js'

const [backend] = backends()
if (!backend) throw new Error('no backend')

interface Field {
  name: string
  value: string
  /** Checkboxes and radios: sent only when checked. */
  checked: boolean
  choice: boolean
}

interface Form {
  page: string
  action: string
  method: 'GET' | 'POST'
  fields: Field[]
}

const attribute = (tag: string, name: string) => new RegExp(`\\b${name}="([^"]*)"`).exec(tag)?.[1]
const unescape = (text: string) =>
  text.replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&')

/** The forms of a page, with their fields as the page fills them. */
export function formsOf(page: string, body: string): Form[] {
  const forms: Form[] = []
  for (const match of body.matchAll(/<form\b([^>]*)>([\s\S]*?)<\/form>/g)) {
    const [, attributes = '', inner = ''] = match
    const fields: Field[] = []
    for (const control of inner.matchAll(/<(input|select|textarea)\b([^>]*)>([\s\S]*?<\/\1>)?/g)) {
      const [, kind = '', tag = '', content = ''] = control
      const name = attribute(tag, 'name')
      if (name === undefined) continue
      const type = attribute(tag, 'type') ?? ''
      const choice = type === 'checkbox' || type === 'radio'
      let value = unescape(attribute(tag, 'value') ?? '')
      if (kind === 'select') value = unescape(/<option\b[^>]*\bselected[^>]*>/.exec(content)?.[0].match(/value="([^"]*)"/)?.[1] ?? /<option\b[^>]*value="([^"]*)"/.exec(content)?.[1] ?? '')
      if (kind === 'textarea') value = unescape(content.replace(/<\/textarea>$/, ''))
      fields.push({ name, value, choice, checked: !choice || /\bchecked\b/.test(tag) })
    }
    const action = unescape(attribute(attributes, 'action') ?? page)
    const method = (attribute(attributes, 'method') ?? 'get').toUpperCase() === 'POST' ? 'POST' : 'GET'
    forms.push({ page, action, method, fields })
  }
  return forms
}

/** The same-site pages a page links to (not the API, not files). */
const linksOf = (body: string) =>
  [...body.matchAll(/<a\b[^>]*\bhref="(\/[^"]*)"/g)]
    .map((m) => unescape(m[1] ?? ''))
    .filter((href) => !href.startsWith('/api/') && !href.startsWith('/docs') && !href.startsWith('/oauth/') && !/\/export\b|\.(css|js)$/.test(href))

describe('every field of every web form with NUL, lone surrogates and leap seconds: no 5xx, HTML answers', () => {
  let t: TestApp
  const forms: Form[] = []
  let admin: Browser
  let visitor: Browser

  before(async () => {
    t = await startApp(backend, { config: { signInLimit: { max: 100_000, windowMs: 60_000 } } })
    const acme = await tenant(t.db, { name: 'Acme' })
    const boss = await member(t.db, acme.companyId, { role: 'admin', email: 'boss@acme.example' })
    await t.app.inject({ method: 'POST', url: '/api/v1/webhooks', headers: acme.auth, payload: { url: 'https://93.184.215.14/hook', events: ['*'] } })
    // A contact with a lead of its email: the contact's page links the lead's page and its forms.
    await t.app.inject({ method: 'POST', url: '/api/v1/contacts', headers: acme.auth, payload: { first_name: 'Ana', email: 'ana@acme.example' } })
    await t.app.inject({ method: 'POST', url: '/api/v1/leads', headers: acme.auth, payload: { first_name: 'Ana', email: 'ana@acme.example', provider: 'linkedin' } })
    // A meeting transcription of the admin's, linked to a task, so its page's forms are swept.
    const contact = await addContact(t.db, acme.companyId, { userId: boss.id })
    const task = await addTask(t.db, acme.companyId, contact.id, { due: '2026-11-22', assignedToId: boss.id })
    const meeting = await t.app.inject({ method: 'POST', url: '/api/v1/meet_transcriptions', headers: acme.auth, payload: { user_id: boss.id, company_id: acme.companyId, meet_id: 'fuzz-meet' } })
    await t.app.inject({ method: 'PUT', url: `/api/v1/meet_transcriptions/${String(meeting.json<{ id: number }>().id)}/to_task`, headers: acme.auth, payload: { task_id: task.id } })
    const invited = await addUser(t.db, acme.companyId, { email: 'new@acme.example' })
    const invite = await inviteUser(t.db, systemActing(), invited.id, 'http://localhost')
    admin = new Browser(t.app)
    assert.equal((await admin.signIn(boss.email)).status, 303)
    visitor = new Browser(t.app)

    // The admin's pages, breadth first from Settings; then the visitor's.
    const seen = new Set<string>()
    const queue = ['/settings/integrations', '/settings/audit', '/settings/apps', '/settings/tokens']
    while (queue.length > 0 && seen.size < 60) {
      const page = queue.shift() ?? ''
      if (seen.has(page)) continue
      seen.add(page)
      const res = await admin.get(page)
      if (res.status !== 200 || !String(res.headers['content-type']).startsWith('text/html')) continue
      forms.push(...formsOf(page, res.body))
      queue.push(...linksOf(res.body).filter((href) => !seen.has(href)))
    }
    for (const page of ['/login', new URL(invite.url).pathname]) {
      const res = await visitor.get(page)
      assert.equal(res.status, 200, page)
      forms.push(...formsOf(page, res.body).map((form) => ({ ...form, page: `visitor ${page}` })))
    }
  })
  after(() => t.close())

  test('the pages have the forms (sign in, invite, tokens, webhooks, apps, audit filters)', () => {
    const actions = new Set(forms.map((f) => `${f.method} ${f.action.split('?')[0] ?? ''}`))
    for (const expected of ['POST /login', 'POST /settings/integrations/tokens', 'POST /settings/integrations/webhooks', 'POST /settings/apps', 'GET /settings/audit', 'GET /meetings']) {
      assert.ok(actions.has(expected), `${expected} in ${[...actions].join(', ')}`)
    }
    assert.ok([...actions].some((a) => a.startsWith('POST /invite/')), 'the invite form')
    for (const form of ['stop', 'transcript', 'task']) assert.ok([...actions].some((a) => new RegExp(`^POST /meetings/\\d+/${form}$`).test(a)), `a transcription's ${form} form`)
  })

  test('each field: no 5xx, an HTML page or a redirect', async (t) => {
    const problems: string[] = []
    let sent = 0
    // Sign-out last (it ends the session the other forms need); forms that delete, after the rest.
    const ordered = forms
      .filter((f) => f.action !== '/logout')
      .sort((a, b) => Number(/delete|revoke/.test(a.action)) - Number(/delete|revoke/.test(b.action)))
    for (const form of ordered) {
      const who = form.page.startsWith('visitor') ? visitor : admin
      for (const field of form.fields) {
        if (field.name === '_csrf') continue
        // What a password field gets is remembered as a secret (test/helpers/secrets.ts): a leap
        // second there, then as a token's name in the audit log, would be taken for a leaked one.
        const values = /password|confirm/.test(field.name) ? SWEPT.filter((v) => !/^\d{4}-/.test(v)) : SWEPT
        for (const text of values) {
          const pairs = form.fields
            .filter((f) => f.checked || f === field)
            .map((f) => `${encode(f.name)}=${encode(f === field ? text : f.value)}`)
            .join('&')
          const res =
            form.method === 'GET'
              ? await who.request('GET', `${form.action}${form.action.includes('?') ? '&' : '?'}${pairs}`)
              : await who.request('POST', form.action, pairs)
          sent++
          const type = String(res.headers['content-type'])
          const fine = res.status < 500 && ((res.status >= 300 && res.status < 400) || type.startsWith('text/html'))
          if (!fine) problems.push(`${form.method} ${form.action} ${field.name}=${JSON.stringify(text)}: ${String(res.status)} ${type} ${res.body.slice(0, 200)}`)
        }
      }
    }
    t.diagnostic(`${String(sent)} requests over ${String(ordered.length)} forms`)
    assert.deepEqual(problems, [])
    assert.ok(sent >= SWEPT.length * 8, String(sent))
  })
})
