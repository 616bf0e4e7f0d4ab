// The Flows pages over HTTP (app.inject), without JavaScript: the list and its search, a
// flow's page (steps in order, its contacts), New flow (a refused step shown beside it, the
// typed rows kept), editing name and steps (the page says enrolled contacts keep their
// tasks, and they do), CSRF and another company's flow.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { backends, startApp, type TestApp } from '../helpers/app.js'
import { tenant, type Tenant } from '../helpers/factories.js'
import { addContact, addFlow, STEPS } from '../helpers/flows-factories.js'
import { rawRows, sql } from '../helpers/sql.js'
import { Browser, csrfOf, flowForm, member } from './helpers.js'

const [backend] = backends()
if (!backend) throw new Error('no backend')

const NOW = new Date('2026-03-10T15:00:00Z')

describe('Flows pages', () => {
  let t: TestApp
  let acme: Tenant
  let other: Tenant
  let admin: { id: number; email: string }

  async function signIn(email: string) {
    const browser = new Browser(t.app)
    assert.equal((await browser.signIn(email)).status, 303)
    return browser
  }
  const flowsOf = (companyId: number) => rawRows<{ id: number; name: string }>(t.db, sql`select id, name from flows where company_id = ${companyId} order by id`)

  before(async () => {
    t = await startApp(backend, { deps: { clock: () => NOW }, config: { signInLimit: { max: 100_000, windowMs: 60_000 } } })
    acme = await tenant(t.db, { name: 'Acme' })
    other = await tenant(t.db, { name: 'Other' })
    admin = await member(t.db, acme.companyId, { name: 'Ada Admin', role: 'admin' })
  })
  after(() => t.close())

  test('New flow with three steps: 303 to its page, which shows the steps in order; the list finds it by search', async () => {
    const browser = await signIn(admin.email)
    const form = await browser.get('/flows/new')
    assert.equal(form.status, 200)
    assert.match(form.body, /<legend>Step 5<\/legend>/)
    const res = await browser.request('POST', '/flows', flowForm(csrfOf(form.body), 'Inbound three', [
      ['email', '0', 'Thank you'], ['phonecall', '2', 'Intro call'], ['meeting', '7', 'Demo'],
    ]))
    assert.equal(res.status, 303, res.body)
    const [flow] = (await flowsOf(acme.companyId)).filter((f) => f.name === 'Inbound three')
    assert.ok(flow)
    assert.equal(res.location, `/flows/${flow.id}`)
    const page = await browser.get(res.location)
    assert.match(page.body, /Flow created: Inbound three\./)
    const steps = [...page.body.matchAll(/<td data-label="Instructions">([^<]*)<\/td>/g)].map((m) => m[1])
    assert.deepEqual(steps, ['Thank you', 'Intro call', 'Demo'])
    assert.match(page.body, /<td data-label="Day">Day 2<\/td>/)
    const list = await browser.get('/flows?search_term=three')
    assert.match(list.body, new RegExp(`<a href="/flows/${flow.id}">Inbound three</a>`))
    assert.doesNotMatch((await browser.get('/flows?search_term=nothing-like-it')).body, /Inbound three/)
  })

  test('New flow refused: 422, the bad step’s message beside it, the rows as typed; nothing written', async () => {
    const browser = await signIn(admin.email)
    const before = await flowsOf(acme.companyId)
    const csrf = csrfOf((await browser.get('/flows/new')).body)
    const bad = await browser.request('POST', '/flows', flowForm(csrf, 'Broken', [['email', '0', 'Fine'], ['fax', '-1', 'Typed here']]))
    assert.equal(bad.status, 422)
    assert.match(bad.body, /id="step-2-kind-error" class="field-error">Is not included in the list\./)
    assert.match(bad.body, /id="step-2-day-error" class="field-error">Must be an integer\./)
    assert.match(bad.body, /value="Typed here"/)
    assert.match(bad.body, /value="Broken"/)
    const none = await browser.request('POST', '/flows', flowForm(csrf, '', []))
    assert.equal(none.status, 422)
    assert.match(none.body, /id="field-name-error"/)
    assert.match(none.body, /Give at least one step/)
    const forged = await browser.request('POST', '/flows', flowForm('', 'Forged', [['email', '0', 'x']]).replace('_csrf=&', ''))
    assert.equal(forged.status, 403)
    assert.deepEqual(await flowsOf(acme.companyId), before)
  })

  test('Edit: the page says contacts keep their tasks; name and steps change; an enrolled contact keeps its tasks', async () => {
    const flow = await addFlow(t.db, acme.companyId, { userId: admin.id, name: 'Editable' })
    const contact = await addContact(t.db, acme.companyId, { userId: admin.id })
    const enrolled = await t.app.inject({ method: 'PUT', url: `/api/v1/flows/${flow.id}/add_contact`, headers: acme.auth, payload: { contact_id: contact.id } })
    assert.equal(enrolled.statusCode, 200)
    const tasksBefore = await rawRows(t.db, sql`select * from tasks where company_id = ${acme.companyId} and contact_id = ${contact.id} order by id`)
    const browser = await signIn(admin.email)
    const edit = await browser.get(`/flows/${flow.id}/edit`)
    assert.equal(edit.status, 200)
    assert.match(edit.body, /Contacts already in this flow keep the tasks they have/)
    assert.match(edit.body, new RegExp(`value="${STEPS[0]?.title ?? ''}"`))
    const res = await browser.request('POST', `/flows/${flow.id}`, flowForm(csrfOf(edit.body), 'Edited', [['linkedin', '1', 'Connect']], { status: 'active' }))
    assert.equal(res.status, 303, res.body)
    const page = await browser.get(`/flows/${flow.id}`)
    assert.match(page.body, /<h1>Edited<\/h1>/)
    assert.deepEqual([...page.body.matchAll(/<td data-label="Instructions">([^<]*)<\/td>/g)].map((m) => m[1]), ['Connect'])
    assert.match(page.body, new RegExp(`<a href="/contacts/${contact.id}">`))
    assert.deepEqual(await rawRows(t.db, sql`select * from tasks where company_id = ${acme.companyId} and contact_id = ${contact.id} order by id`), tasksBefore)
  })

  test('Add contacts from the flow’s page: find, tick two, 303 back saying “2 added”; a third already in it is named', async () => {
    const flow = await addFlow(t.db, acme.companyId, { userId: admin.id, name: 'Adding' })
    const [a, b, c] = [
      await addContact(t.db, acme.companyId, { userId: admin.id, firstName: 'Zelda', lastName: 'Findme' }),
      await addContact(t.db, acme.companyId, { userId: admin.id, firstName: 'Zoe', lastName: 'Findme' }),
      await addContact(t.db, acme.companyId, { userId: admin.id, firstName: 'Zack', lastName: 'Findme' }),
    ]
    await t.app.inject({ method: 'PUT', url: `/api/v1/flows/${flow.id}/add_contact`, headers: acme.auth, payload: { contact_id: c.id } })
    const browser = await signIn(admin.email)
    const found = await browser.get(`/flows/${flow.id}?search_term=findme`)
    assert.equal(found.status, 200)
    for (const contact of [a, b, c]) assert.match(found.body, new RegExp(`name="contact_ids\\[\\]" value="${contact.id}"`))
    const action = `/flows/${flow.id}/contacts?search_term=findme`
    const body = new URLSearchParams({ _csrf: csrfOf(found.body, action) })
    for (const contact of [a, b, c]) body.append('contact_ids[]', String(contact.id))
    const res = await browser.request('POST', action, body.toString())
    assert.equal(res.status, 303, res.body)
    const page = await browser.get(`/flows/${flow.id}`)
    assert.match(page.body, /2 added\./)
    assert.match(page.body, /Already in the flow, left as they were: Zack Findme\./)
    const tasks = await rawRows<{ contact_id: number }>(t.db, sql`select contact_id from tasks where company_id = ${acme.companyId} and flow_id = ${flow.id}`)
    assert.equal(tasks.length, STEPS.length * 3)
    const none = await browser.request('POST', action, new URLSearchParams({ _csrf: csrfOf(found.body, action) }).toString())
    assert.equal(none.status, 422)
    assert.match(none.body, /Tick at least one contact/)
  })

  test('another company’s flow: the 404 page, for the page, the edit page and the edit post', async () => {
    const theirs = await addFlow(t.db, other.companyId, { userId: other.userId, name: 'Theirs' })
    const browser = await signIn(admin.email)
    for (const path of [`/flows/${theirs.id}`, `/flows/${theirs.id}/edit`, '/flows/0', '/flows/abc']) {
      const res = await browser.get(path)
      assert.equal(res.status, 404, path)
      assert.match(res.body, /Page not found/)
    }
    const csrf = csrfOf((await browser.get('/flows')).body)
    const res = await browser.request('POST', `/flows/${theirs.id}`, flowForm(csrf, 'Taken', [['email', '0', 'x']]))
    assert.equal(res.status, 404)
    assert.deepEqual((await flowsOf(other.companyId)).map((f) => f.name), ['Theirs'])
  })
})
