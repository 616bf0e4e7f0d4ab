// The workspace's contacts pages without a browser (app.inject): the list's search and view in
// the address, a contact's forms, company isolation, CSRF, refusals beside their fields, and
// that each write leaves exactly what its API operation leaves (test/helpers/same-effect.ts).
import assert from 'node:assert/strict'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import { systemActing } from '../../src/acting.js'
import { importFile } from '../../src/modules/whatsapp/whatsapp.service.js'
import { backends, startApp, type TestApp } from '../helpers/app.js'
import { addContact, addTag } from '../helpers/contacts-factories.js'
import { addSubscription, tenant, type Tenant } from '../helpers/factories.js'
import { addFlow, addTask } from '../helpers/flows-factories.js'
import { assertSameEffect } from '../helpers/same-effect.js'
import { rawRows, sql } from '../helpers/sql.js'
import { Browser, csrfOf, member } from './helpers.js'

const [firstBackend] = backends()
if (!firstBackend) throw new Error('no backend')
const backend = firstBackend

describe('workspace: contacts', () => {
  let t: TestApp
  before(async () => {
    t = await startApp(backend, { config: { signInLimit: { max: 100_000, windowMs: 60_000 } } })
  })
  after(() => t.close())

  /** A company with an admin's api token, and a member signed in to the workspace. */
  async function company() {
    const owner = await tenant(t.db)
    // A subscription, so that writes record their webhook events (api_events) to compare.
    await addSubscription(t.db, owner.companyId)
    const user = await member(t.db, owner.companyId)
    const browser = new Browser(t.app)
    const signedIn = await browser.signIn(user.email)
    assert.equal(signedIn.status, 303, signedIn.body)
    assert.equal(signedIn.location, '/tasks')
    return { owner, user, browser }
  }

  const api = (owner: Tenant, method: 'PUT' | 'POST' | 'DELETE', url: string, payload?: object) =>
    t.app.inject({ method, url: `/api/v1${url}`, headers: owner.auth, ...(payload ? { payload } : {}) })

  const stageOf = async (id: number) => (await rawRows<{ stage: string | null }>(t.db, sql`select stage from contacts where id = ${id}`))[0]?.stage

  test('the list: 25 a page, a search by part of an email, the view in the address', async () => {
    const { owner, browser } = await company()
    await addContact(t.db, owner, { first_name: 'Ana', last_name: 'Souza', email: 'ana.souza@globex.example', business: 'Globex' })
    await addContact(t.db, owner, { first_name: 'Bruno', email: 'bruno@initech.example' })
    const all = await browser.get('/contacts')
    assert.equal(all.status, 200)
    assert.match(all.body, /<a href="\/contacts\/\d+">Ana Souza<\/a>/)
    assert.match(all.body, /Bruno/)
    assert.match(all.body, /<label for="search">Search/)
    assert.match(all.body, /New contact/)
    const found = await browser.get('/contacts?search_term=souza%40glob')
    assert.equal(found.status, 200)
    assert.match(found.body, /Ana Souza/)
    assert.doesNotMatch(found.body, /Bruno/)
    assert.match(found.body, /value="souza@glob"/, 'the search field keeps the term')
    // A repeated parameter counts once (the last, as Rack reads it); a page that is no number or
    // an overlong search is refused with the page again (422), never a 500.
    assert.match((await browser.get('/contacts?search_term=a&search_term=bruno')).body, /value="bruno"/)
    assert.equal((await browser.get('/contacts?search_term[]=a')).status, 422)
    assert.equal((await browser.get('/contacts?page=0')).status, 422)
    assert.equal((await browser.get(`/contacts?search_term=${'x'.repeat(256)}`)).status, 422)
  })

  test('the list by stage and by tag beside Search: in the address, with the search and the pages; a bad value is the page again (422)', async () => {
    const { owner, browser } = await company()
    const other = await tenant(t.db)
    const hot = await addTag(t.db, owner, { name: 'Hot' })
    const cold = await addTag(t.db, owner, { name: 'Cold' })
    const theirs = await addTag(t.db, other, { name: 'Theirs' })
    const wanted: number[] = []
    for (let i = 0; i < 30; i++) {
      const contact = await addContact(t.db, owner, { first_name: `Lead${String(i)}`, last_name: i % 2 === 0 ? 'Anand' : 'Berg', email: `lead${String(i)}@acme.example`, stage: 'lead', tags: [hot.id] })
      if (i % 2 === 0) wanted.push(contact.id)
    }
    await addContact(t.db, owner, { first_name: 'Colder', last_name: 'Anand', email: 'colder@acme.example', stage: 'lead', tags: [cold.id] })
    await addContact(t.db, owner, { first_name: 'Mqlish', last_name: 'Anand', email: 'mql@acme.example', stage: 'mql', tags: [hot.id] })

    const list = await browser.get('/contacts')
    assert.match(list.body, /<label for="field-stage">Stage/)
    assert.match(list.body, /<option value="lead">Lead<\/option>/)
    assert.match(list.body, /<label for="field-tag_id">Tag/)
    assert.match(list.body, new RegExp(`<option value="${String(cold.id)}">Cold</option><option value="${String(hot.id)}">Hot</option>`), 'the tags by name')
    assert.doesNotMatch(list.body, /Theirs/)

    const both = await browser.get(`/contacts?stage=lead&tag_id=${String(hot.id)}`)
    assert.equal(both.status, 200)
    assert.match(both.body, /Page 1 of 2 · 30 contacts/)
    assert.doesNotMatch(both.body, /Colder|Mqlish/)
    assert.match(both.body, /<option value="lead" selected>Lead<\/option>/, 'the form shows the view')
    assert.match(both.body, new RegExp(`<option value="${String(hot.id)}" selected>Hot</option>`))
    assert.match(both.body, new RegExp(`href="/contacts\\?stage=lead&amp;tag_id=${String(hot.id)}&amp;page=2" rel="next"`), 'the next page keeps the filters')
    assert.match(both.body, new RegExp(`href="/contacts/export\\?stage=lead&amp;tag_id=${String(hot.id)}"`), 'Export this view keeps them too')
    const second = await browser.get(`/contacts?stage=lead&tag_id=${String(hot.id)}&page=2`)
    assert.match(second.body, /Page 2 of 2/)
    assert.match(second.body, /Lead29/)

    // With a search, one of two characters (what search as you type sends first) and a longer one.
    for (const term of ['an', 'anand']) {
      const found = await browser.get(`/contacts?search_term=${term}&stage=lead&tag_id=${String(hot.id)}`)
      assert.equal(found.status, 200)
      assert.match(found.body, /Page 1 of 1 · 15 contacts/, term)
      const shown = [...found.body.matchAll(/<a href="\/contacts\/(\d+)">/g)].map((m) => Number(m[1]))
      assert.deepEqual(shown, wanted, term)
    }
    const someone = await browser.get(`/contacts?search_term=anand&user_id=${String(owner.userId)}&stage=mql`)
    assert.match(someone.body, /Mqlish/)
    assert.match(someone.body, /Page 1 of 1 · 1 contact</)

    const nobody = await browser.get(`/contacts?tag_id=${String(theirs.id)}`)
    assert.equal(nobody.status, 200, "another company's tag: an empty list, as the API answers")
    assert.match(nobody.body, /No contact matches this view\./)
    assert.match(nobody.body, /<a href="\/contacts" class="clear-view">Clear<\/a>/)

    // A value that is none of the choices: the page again with the refusal beside its field, never a 500.
    for (const [query, name] of [['stage=hot', 'stage'], ['tag_id=abc', 'tag_id'], ['tag_id=0', 'tag_id'], ['stage[]=lead', 'stage'], [`tag_id=${'9'.repeat(30)}`, 'tag_id']] as const) {
      const refused = await browser.get(`/contacts?search_term=an&${query}`)
      assert.equal(refused.status, 422, query)
      assert.match(String(refused.headers['content-type']), /text\/html/, query)
      assert.match(refused.body, new RegExp(`<p id="field-${name}-error" class="field-error">`), query)
      assert.match(refused.body, /value="an"/, `${query}: the search as typed`)
      assert.doesNotMatch(refused.body, /Lead0/, query)
    }
    assert.equal((await browser.get('/contacts?stage=&tag_id=&user_id=')).status, 200, 'empty filters are none')
  })

  test("another company's contact answers the 404 page; a post without its CSRF token answers 403 and changes nothing", async () => {
    const { browser } = await company()
    const other = await tenant(t.db)
    const theirs = await addContact(t.db, other, { first_name: 'Hidden' })
    const seen = await browser.get(`/contacts/${String(theirs.id)}`)
    assert.equal(seen.status, 404)
    assert.match(String(seen.headers['content-type']), /text\/html/)
    assert.doesNotMatch(seen.body, /Hidden/)
    const mine = await company()
    const contact = await addContact(t.db, mine.owner, { first_name: 'Carla' })
    const refused = await mine.browser.request('POST', `/contacts/${String(contact.id)}/stage`, { stage: 'client' })
    assert.equal(refused.status, 403)
    assert.equal(await stageOf(contact.id), null)
    // Another company's contact through a form: 404, nothing changed.
    const page = await mine.browser.get(`/contacts/${String(contact.id)}`)
    const foreign = await mine.browser.request('POST', `/contacts/${String(theirs.id)}/stage`, { _csrf: csrfOf(page.body), stage: 'client' })
    assert.equal(foreign.status, 404)
    assert.equal(await stageOf(theirs.id), null)
  })

  test('Edit refuses with PUT’s messages beside the fields, keeping what was typed (422)', async () => {
    const { owner, browser } = await company()
    const contact = await addContact(t.db, owner, { first_name: 'Dora', email: 'dora@example.com' })
    const res = await browser.submit(`/contacts/${String(contact.id)}/edit`, `/contacts/${String(contact.id)}`, {
      first_name: '  ', email: 'not an email', city: 'Porto <b>',
    })
    assert.equal(res.status, 422)
    assert.match(res.body, /id="field-email-error" class="field-error">[^<]+</)
    assert.match(res.body, /id="field-first_name-error"/)
    assert.match(res.body, /value="not an email"/)
    assert.match(res.body, /value="Porto &lt;b&gt;"/)
    const [row] = await rawRows<{ email: string; city: string | null }>(t.db, sql`select email, city from contacts where id = ${contact.id}`)
    assert.deepEqual(row, { email: 'dora@example.com', city: null })
  })

  test('changing the stage, adding and removing a tag, editing and deleting leave what the API leaves', async () => {
    const a = await company()
    const b = await company()
    const twins = { api: a.owner.companyId, web: b.owner.companyId }
    const tagA = await addTag(t.db, a.owner, { name: 'Hot' })
    const tagB = await addTag(t.db, b.owner, { name: 'Hot' })
    const fields = { first_name: 'Eva', last_name: 'Lima', email: 'eva@example.com', business: 'Globex' }
    const ca = await addContact(t.db, a.owner, fields)
    const cb = await addContact(t.db, b.owner, fields)
    const onPage = (path: string, action: string, form: Record<string, string>) => async () => {
      const res = await b.browser.submit(path, action, form)
      assert.equal(res.status, 303, res.body)
    }
    const page = `/contacts/${String(cb.id)}`

    await assertSameEffect(t.db, twins, {
      api: () => api(a.owner, 'PUT', `/contacts/${String(ca.id)}`, { ...fields, stage: 'client' }),
      web: onPage(page, `${page}/stage`, { stage: 'client' }),
    })
    assert.equal(await stageOf(cb.id), 'client')
    await assertSameEffect(t.db, twins, {
      api: () => api(a.owner, 'PUT', `/contacts/${String(ca.id)}`, { ...fields, tags: [tagA.id] }),
      web: onPage(page, `${page}/tags`, { tag_id: String(tagB.id) }),
    })
    assert.match((await b.browser.get(page)).body, /<span class="tag">Hot<\/span>/)
    await assertSameEffect(t.db, twins, {
      api: () => api(a.owner, 'PUT', `/contacts/${String(ca.id)}`, { ...fields, tags: [] }),
      web: onPage(page, `${page}/tags/${String(tagB.id)}/remove`, {}),
    })
    await assertSameEffect(t.db, twins, {
      api: () => api(a.owner, 'PUT', `/contacts/${String(ca.id)}`, { ...fields, city: 'Porto', last_name: null }),
      web: onPage(`${page}/edit`, page, { first_name: 'Eva', last_name: '', email: 'eva@example.com', business: 'Globex', city: 'Porto' }),
    })
    await assertSameEffect(t.db, twins, {
      api: () => api(a.owner, 'DELETE', `/contacts/${String(ca.id)}`),
      web: onPage(`${page}/delete`, `${page}/delete`, {}),
    })
    assert.equal((await b.browser.get(page)).status, 404)
  })

  test('New contact creates what POST /contacts creates', async () => {
    const a = await company()
    const b = await company()
    const fields = { first_name: 'Fabio', email: 'fabio@example.com', business: 'Initech', city: 'Lisbon' }
    await assertSameEffect(t.db, { api: a.owner.companyId, web: b.owner.companyId }, {
      api: () => api(a.owner, 'POST', '/contacts', fields),
      web: async () => {
        const res = await b.browser.submit('/contacts/new', '/contacts', fields)
        assert.equal(res.status, 303, res.body)
        assert.match(res.location ?? '', /^\/contacts\/\d+$/)
      },
    })
  })

  test('Add to flow: two ticked contacts in one go, "2 added", then which were already in it; the same as two add_contact calls', async () => {
    const a = await company()
    const b = await company()
    const flowA = await addFlow(t.db, a.owner.companyId, { userId: a.owner.userId, name: 'Onboarding' })
    const flowB = await addFlow(t.db, b.owner.companyId, { userId: b.owner.userId, name: 'Onboarding' })
    const pair = async (who: Tenant) => [await addContact(t.db, who, { first_name: 'Gil', email: 'gil@example.com' }), await addContact(t.db, who, { first_name: 'Hana', email: 'hana@example.com' })]
    const [a1, a2] = await pair(a.owner)
    const [b1, b2] = await pair(b.owner)
    if (!a1 || !a2 || !b1 || !b2) throw new Error('no contacts')
    const post = (ids: number[]) => {
      const body = new URLSearchParams({ flow_id: String(flowB.id) })
      for (const id of ids) body.append('contact_ids[]', String(id))
      return b.browser.get('/contacts').then((list) => {
        body.set('_csrf', csrfOf(list.body, '/contacts/add-to-flow'))
        return b.browser.request('POST', '/contacts/add-to-flow', body.toString())
      })
    }
    await assertSameEffect(t.db, { api: a.owner.companyId, web: b.owner.companyId }, {
      api: async () => {
        for (const contact of [a1, a2]) assert.equal((await api(a.owner, 'PUT', `/flows/${String(flowA.id)}/add_contact`, { contact_id: contact.id })).statusCode, 200)
      },
      web: async () => { assert.equal((await post([b1.id, b2.id])).status, 303); },
    })
    const shown = await b.browser.get('/contacts')
    assert.match(shown.body, /2 added to Onboarding\./)
    const again = await post([b1.id, b2.id])
    assert.equal(again.status, 303)
    const told = await b.browser.get('/contacts')
    assert.match(told.body, /0 added to Onboarding\./)
    assert.match(told.body, /Already in the flow, left as they were: Gil, Hana\./)
    // Nothing ticked, or an unknown flow: the list again with the refusal (422), nothing added.
    const [{ count } = { count: -1 }] = await rawRows<{ count: number }>(t.db, sql`select count(*)::int as count from flow_enrollments where company_id = ${b.owner.companyId}`)
    assert.equal((await post([])).status, 422)
    const list = await b.browser.get('/contacts')
    const unknown = await b.browser.request('POST', '/contacts/add-to-flow', `_csrf=${csrfOf(list.body, '/contacts/add-to-flow')}&flow_id=999999&contact_ids[]=${String(b1.id)}`)
    assert.equal(unknown.status, 422)
    assert.match(unknown.body, /class="field-error">Does not exist\./)
    const [{ count: still } = { count: -2 }] = await rawRows<{ count: number }>(t.db, sql`select count(*)::int as count from flow_enrollments where company_id = ${b.owner.companyId}`)
    assert.equal(still, count)
  })

  test('Mark done on a contact’s task does what the API’s PUT /tasks/:id/complete does', async () => {
    const a = await company()
    const b = await company()
    const ca = await addContact(t.db, a.owner, { first_name: 'Ines', email: 'ines@example.com' })
    const cb = await addContact(t.db, b.owner, { first_name: 'Ines', email: 'ines@example.com' })
    const due = new Date().toISOString().slice(0, 10)
    const ta = await addTask(t.db, a.owner.companyId, ca.id, { due, title: 'Call Ines', assignedToId: a.owner.userId })
    const tb = await addTask(t.db, b.owner.companyId, cb.id, { due, title: 'Call Ines', assignedToId: b.owner.userId })
    const page = `/contacts/${String(cb.id)}`
    await assertSameEffect(t.db, { api: a.owner.companyId, web: b.owner.companyId }, {
      api: async () => {
        const res = await api(a.owner, 'PUT', `/tasks/${String(ta.id)}/complete`)
        assert.equal(res.statusCode, 200, res.body)
      },
      web: async () => {
        const res = await b.browser.submit(page, `${page}/tasks/${String(tb.id)}/done`)
        assert.equal(res.status, 303, res.body)
      },
    })
    const shown = await b.browser.get(page)
    assert.match(shown.body, /Task “Call Ines” done\./)
    assert.doesNotMatch(shown.body, /Mark done/)
  })

  test('a contact’s WhatsApp conversation reads as a chat, in order, sent and received told apart', async () => {
    const { owner, browser } = await company()
    const contact = await addContact(t.db, owner, { first_name: 'Joana' })
    const file = join(mkdtempSync(join(tmpdir(), 'engage-ws-chat-')), 'chat.jsonl')
    const line = (direction: string, body: string, status: string, sentAt: string) =>
      JSON.stringify({ contact_id: contact.id, user_id: owner.userId, direction, body, status, sent_at: sentAt })
    writeFileSync(file, `${line('outbound', 'Second: our offer', 'read', '2026-11-20T10:05:00Z')}\n${line('inbound', 'First: hello <there>', 'received', '2026-11-20T10:00:00Z')}\n`)
    await importFile(t.db, systemActing(), { company: owner.companyId, file })
    const page = await browser.get(`/contacts/${String(contact.id)}`)
    assert.equal(page.status, 200)
    const chat = page.body.slice(page.body.indexOf('<ol class="chat">'))
    assert.ok(chat.includes('First: hello &lt;there&gt;'))
    assert.ok(chat.indexOf('First: hello &lt;there&gt;') < chat.indexOf('Second: our offer'))
    assert.match(chat, /<li class="received">[\s\S]*?First: hello/)
    assert.match(chat, /<li class="sent">[\s\S]*?Second: our offer/)
  })
})
