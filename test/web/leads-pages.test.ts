// The Leads pages over HTTP (app.inject), as a browser without JavaScript uses them: the list
// by creator with the API's count, by link and page; New lead (the form again with the
// message beside its field, then 303 to the lead); a lead's page and Link to contact; the
// contact page's Leads; another company's ids; posts without the CSRF token; members and
// admins alike (docs/access-control.md); and each write leaving what its API call leaves.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { createLead } from '../../src/modules/leads-api/leads-api.service.js'
import type { CompanyId } from '../../src/tenancy.js'
import { backends, startApp, type TestApp } from '../helpers/app.js'
import { addContact } from '../helpers/contacts-factories.js'
import { addSubscription, tenant, type Tenant } from '../helpers/factories.js'
import { assertSameEffect } from '../helpers/same-effect.js'
import { encode } from '../fuzz/requests.js'
import { SWEPT } from '../fuzz/values.js'
import { rawRows, sql } from '../helpers/sql.js'
import { Browser, csrfOf, member } from './helpers.js'

const [firstBackend] = backends()
if (!firstBackend) throw new Error('no backend')
const backend = firstBackend

/** The names of the list's rows, in order. */
const names = (body: string) => [...body.matchAll(/<td data-label="Name"><a href="\/leads\/\d+">([^<]*)<\/a><\/td>/g)].map((m) => m[1])

describe('Leads pages', () => {
  let t: TestApp
  let acme: Tenant
  let other: Tenant
  let rep: { id: number; email: string; name: string }
  let boss: { id: number; email: string; name: string }
  let seq = 0

  before(async () => {
    t = await startApp(backend, { config: { signInLimit: { max: 100_000, windowMs: 60_000 } } })
    acme = await tenant(t.db, { name: 'Acme' })
    other = await tenant(t.db, { name: 'Other' })
    rep = await member(t.db, acme.companyId, { name: 'Rita Rep' })
    boss = await member(t.db, acme.companyId, { name: 'Bea Boss', role: 'admin' })
  })
  after(() => t.close())

  async function signIn(email: string) {
    const browser = new Browser(t.app)
    const res = await browser.signIn(email)
    assert.equal(res.status, 303, res.body)
    return browser
  }
  const lead = (companyId: CompanyId, userId: number, fields: { first_name?: string; email?: string; provider?: string } = {}) =>
    createLead(t.db, { companyId, userId }, { first_name: fields.first_name ?? `Lead ${String(++seq)}`, email: fields.email ?? `lead${String(++seq)}@example.com`, provider: fields.provider ?? 'linkedin' })
  const contactIdOf = async (id: number) => (await rawRows<{ c: number | null }>(t.db, sql`select contact_id as c from leads where id = ${id}`))[0]?.c
  const apiCount = async (userId: number, query = '') =>
    (await t.app.inject({ url: `/api/v1/leads/count?user_id=${String(userId)}${query}`, headers: acme.auth })).json<{ count: number }>().count

  test('the list: the signed-in user\'s leads with the API\'s count, by link, 25 a page; New lead; another creator\'s leads', async () => {
    const ana = await addContact(t.db, { companyId: acme.companyId, userId: rep.id }, { first_name: 'Ana', last_name: 'Souza', email: 'ana.souza@globex.example' })
    const linked = await lead(acme.companyId, rep.id, { first_name: 'Linked', email: 'ANA.SOUZA@globex.example' })
    assert.equal(linked.contact_id, ana.id)
    for (let i = 0; i < 26; i++) await lead(acme.companyId, rep.id, { first_name: `Prospect ${String(i).padStart(2, '0')}` })
    await lead(acme.companyId, boss.id, { first_name: 'Bosses own' })
    await lead(other.companyId, other.userId, { first_name: 'Not ours' })

    const browser = await signIn(rep.email)
    const list = await browser.get('/leads')
    assert.equal(list.status, 200)
    assert.match(list.body, /<h1>Leads<\/h1>/)
    assert.match(list.body, /<a class="button primary" href="\/leads\/new">New lead<\/a>/)
    const [all, withContact] = [await apiCount(rep.id), await apiCount(rep.id, '&with_contact=true')]
    assert.deepEqual([all, withContact], [27, 1])
    assert.match(list.body, /<p class="muted" id="leads-count">Your leads: 27 leads, 1 with a contact\.<\/p>/)
    assert.match(list.body, /aria-current="page">All \(27\)<\/a><a href="\/leads\?contact=with">With a contact \(1\)<\/a><a href="\/leads\?contact=without">Without a contact \(26\)<\/a>/)
    assert.equal(names(list.body).length, 25)
    assert.equal(names(list.body)[0], 'Linked')
    assert.match(list.body, new RegExp(`<td data-label="Contact"><a href="/contacts/${String(ana.id)}">Ana Souza</a></td>`))
    assert.match(list.body, /<span>Page 1 of 2 · 27 leads<\/span>\s*<a href="\/leads\?page=2" rel="next">Next<\/a>/)
    assert.ok(!list.body.includes('Bosses own') && !list.body.includes('Not ours'))
    assert.deepEqual(names((await browser.get('/leads?page=2')).body), ['Prospect 24', 'Prospect 25'])
    assert.deepEqual(names((await browser.get('/leads?contact=with')).body), ['Linked'])
    assert.equal(names((await browser.get('/leads?contact=without&page=2')).body).length, 1)

    const theirs = await browser.get(`/leads?user_id=${String(boss.id)}`)
    assert.match(theirs.body, /Leads of Bea Boss: 1 lead, 0 with a contact\./)
    assert.deepEqual(names(theirs.body), ['Bosses own'])
    const foreign = await browser.get(`/leads?user_id=${String(other.userId)}`)
    assert.equal(foreign.status, 200)
    assert.deepEqual(names(foreign.body), [], 'another company\'s user: an empty list, as the API answers')
    const bad = await browser.get('/leads?page=0&contact=maybe')
    assert.equal(bad.status, 422)
    assert.match(bad.body, /role="alert">This address cannot be shown/)
    assert.equal(names(bad.body).length, 25)
  })

  test('New lead: the form; refusals (422) beside their fields with what was typed; then 303 to the lead, linked by its email', async () => {
    const browser = await signIn(rep.email)
    const form = await browser.get('/leads/new')
    assert.equal(form.status, 200)
    assert.match(form.body, /<h1>New lead<\/h1>/)
    const csrf = csrfOf(form.body, '/leads')
    const before = await rawRows(t.db, sql`select id from leads where company_id = ${acme.companyId} order by id`)

    const refused = await browser.request('POST', '/leads', { _csrf: csrf, first_name: '', email: 'not an email', provider: 'linkedin', city: 'Typed city', degree_of_connection: 'x' })
    assert.equal(refused.status, 422)
    assert.match(refused.body, /id="field-first_name-error" class="field-error">Can&#39;t be blank\./)
    assert.match(refused.body, /id="field-email-error" class="field-error">Is invalid\./)
    assert.match(refused.body, /id="field-degree_of_connection-error" class="field-error">Must be an integer\./)
    assert.match(refused.body, /value="Typed city"/)
    assert.match(refused.body, /value="not an email"/)

    const address = 'marta.reis@globex.example'
    const contact = await addContact(t.db, { companyId: acme.companyId, userId: rep.id }, { first_name: 'Marta', email: address })
    const fields = { first_name: 'Marta', last_name: 'Reis', email: address, provider: 'linkedin', position: 'Head of Sales', degree_of_connection: '2', business_name: 'Globex', business_colaborators_count: '250', city: '', telephone: '' }
    const created = await browser.request('POST', '/leads', { _csrf: csrf, ...fields })
    assert.equal(created.status, 303, created.body)
    assert.match(created.location ?? '', /^\/leads\/\d+$/)
    const page = await browser.get(created.location ?? '')
    assert.match(page.body, /role="status">Lead created: Marta Reis\./)
    assert.match(page.body, /<h1>Marta Reis<\/h1>/)
    assert.match(page.body, /<dt>Position<\/dt><dd class="wrap">Head of Sales<\/dd>/)
    assert.match(page.body, /<dt>Business employees<\/dt><dd class="wrap">250<\/dd>/)
    assert.match(page.body, new RegExp(`Linked to <a href="/contacts/${String(contact.id)}">Marta</a>`))
    const [row] = await rawRows<{ city: string | null; contact_id: number; user_id: number }>(t.db, sql`select city, contact_id, user_id from leads where id = ${Number(created.location?.split('/').pop())}`)
    assert.deepEqual(row, { city: null, contact_id: contact.id, user_id: rep.id })

    const taken = await browser.request('POST', '/leads', { _csrf: csrf, ...fields, email: address.toUpperCase() })
    assert.equal(taken.status, 422)
    assert.match(taken.body, /id="field-email-error" class="field-error">Has already been taken\./)
    assert.equal((await rawRows(t.db, sql`select id from leads where company_id = ${acme.companyId}`)).length, before.length + 1)
  })

  test('a lead\'s page: Link to contact finds contacts, links the chosen one (303), refuses no choice or another company\'s contact (422)', async () => {
    const own = await lead(acme.companyId, rep.id, { first_name: 'Hugo', email: 'hugo@work.example' })
    const hugo = await addContact(t.db, { companyId: acme.companyId, userId: rep.id }, { first_name: 'Hugo', last_name: 'Linkable', email: 'hugo@home.example' })
    const theirContact = await addContact(t.db, { companyId: other.companyId, userId: other.userId }, { first_name: 'Hugo', last_name: 'Linkable', email: 'hugo@other.example' })
    const browser = await signIn(rep.email)
    const base = `/leads/${String(own.id)}`
    const page = await browser.get(base)
    assert.equal(page.status, 200)
    assert.match(page.body, /No contact\. A lead is linked by itself/)
    assert.match(page.body, /<dt>Created by<\/dt><dd>Rita Rep<\/dd>/)
    const found = await browser.get(`${base}?contact_search=linkable`)
    assert.match(found.body, new RegExp(`<input type="radio" name="contact_id" value="${String(hugo.id)}"> Hugo Linkable <span class="muted">hugo@home.example</span>`))
    assert.ok(!found.body.includes(`value="${String(theirContact.id)}"`), 'only the company\'s contacts are found')
    const action = `${base}/contact?contact_search=linkable`
    const csrf = csrfOf(found.body, action)

    const none = await browser.request('POST', action, { _csrf: csrf })
    assert.equal(none.status, 422)
    assert.match(none.body, /id="contact-choice-error" class="field-error">Choose a contact\./)
    const foreign = await browser.request('POST', action, { _csrf: csrf, contact_id: String(theirContact.id) })
    assert.equal(foreign.status, 422)
    assert.match(foreign.body, /class="field-error">Does not exist\./)
    assert.match(foreign.body, /Hugo Linkable/, 'the search is drawn again')
    assert.equal(await contactIdOf(own.id), null)

    const linked = await browser.request('POST', action, { _csrf: csrf, contact_id: String(hugo.id) })
    assert.equal(linked.status, 303, linked.body)
    assert.equal(linked.location, base)
    const after = await browser.get(base)
    assert.match(after.body, /role="status">Hugo is linked to Hugo Linkable\./)
    assert.match(after.body, new RegExp(`Linked to <a href="/contacts/${String(hugo.id)}">Hugo Linkable</a>`))
    assert.match(after.body, /The contact’s email is not the lead’s: it was linked by hand\./)
    assert.equal(await contactIdOf(own.id), hugo.id)
    const [audit] = await rawRows<{ actor_type: string; actor_id: number; changes: unknown }>(t.db, sql`
      select actor_type, actor_id, changes from audit_events where company_id = ${acme.companyId} and action = 'lead.linked' and target_id = ${own.id}`)
    assert.deepEqual(audit, { actor_type: 'user', actor_id: rep.id, changes: { contact_id: [null, hugo.id] } })

    // The contact's page lists it, linking back.
    const contactPage = await browser.get(`/contacts/${String(hugo.id)}`)
    assert.match(contactPage.body, new RegExp(`<h2 id="leads-title">Leads</h2>\\s*<ul><li><a href="${base}">Hugo</a> <span class="muted wrap">linkedin · hugo@work.example</span></li></ul>`))
    assert.match((await browser.get(`/contacts/${String(theirContact.id)}`)).body, /Page not found/)
  })

  test('another company\'s lead: the 404 page, for its page and its form; nothing changes', async () => {
    const theirs = await lead(other.companyId, other.userId)
    const contact = await addContact(t.db, { companyId: acme.companyId, userId: rep.id })
    const browser = await signIn(rep.email)
    const csrf = csrfOf((await browser.get('/leads/new')).body)
    for (const id of [String(theirs.id), '999999999', 'abc', '0']) {
      const page = await browser.get(`/leads/${id}`)
      assert.equal(page.status, 404, id)
      assert.match(page.headers['content-type'] as string, /text\/html/)
      assert.match(page.body, /Page not found/)
      const post = await browser.request('POST', `/leads/${id}/contact`, { _csrf: csrf, contact_id: String(contact.id) })
      assert.equal(post.status, 404, id)
      assert.match(post.body, /Page not found/)
    }
    assert.equal(await contactIdOf(theirs.id), null)
  })

  test('a post without the CSRF token: 403 page, nothing created or linked; signed out: to the sign-in page', async () => {
    const own = await lead(acme.companyId, rep.id)
    const contact = await addContact(t.db, { companyId: acme.companyId, userId: rep.id })
    const browser = await signIn(rep.email)
    const before = await rawRows(t.db, sql`select * from leads where company_id = ${acme.companyId} order by id`)
    const created = await browser.request('POST', '/leads', { first_name: 'Forged', email: 'forged@example.com', provider: 'linkedin' })
    assert.equal(created.status, 403)
    assert.match(created.body, /Form expired/)
    const linked = await browser.request('POST', `/leads/${String(own.id)}/contact`, { contact_id: String(contact.id), _csrf: 'forged' })
    assert.equal(linked.status, 403)
    assert.deepEqual(await rawRows(t.db, sql`select * from leads where company_id = ${acme.companyId} order by id`), before)

    const visitor = new Browser(t.app)
    for (const path of ['/leads', '/leads/new', `/leads/${String(own.id)}`]) {
      const res = await visitor.get(path)
      assert.equal(res.status, 303, path)
      assert.equal(res.location, '/login')
    }
  })

  test('members and admins alike (roles matrix: any role): each sees anyone\'s leads, creates leads and links any of them', async () => {
    const admin = await member(t.db, acme.companyId, { name: 'Ada Admin', role: 'admin' })
    const plain = await member(t.db, acme.companyId, { name: 'Mo Member' })
    const adminLead = await lead(acme.companyId, admin.id, { first_name: 'Admin made' })
    const memberLead = await lead(acme.companyId, plain.id, { first_name: 'Member made' })
    const contact = await addContact(t.db, { companyId: acme.companyId, userId: admin.id }, { first_name: 'Roles', last_name: 'Contact' })
    for (const [who, target] of [[plain, adminLead], [admin, memberLead]] as const) {
      const browser = await signIn(who.email)
      const shown = names((await browser.get(`/leads?user_id=${String(target.user_id)}`)).body)
      assert.ok(shown.includes(target.first_name), `${who.name}: ${JSON.stringify(shown)}`)
      const res = await browser.submit(`/leads/${String(target.id)}?contact_search=roles`, `/leads/${String(target.id)}/contact?contact_search=roles`, { contact_id: String(contact.id) })
      assert.equal(res.status, 303, `${who.name}: ${res.body.slice(0, 200)}`)
      assert.equal(await contactIdOf(target.id), contact.id)
      const created = await browser.submit('/leads/new', '/leads', { first_name: 'By', last_name: who.name, email: `by.${String(who.id)}@example.com`, provider: 'website' })
      assert.equal(created.status, 303, created.body)
    }
  })

  test('the search and the choice of Link to contact, and the list\'s address, with NUL, lone surrogates and leap seconds: no 5xx, HTML', async () => {
    const own = await lead(acme.companyId, rep.id)
    const browser = await signIn(rep.email)
    const base = `/leads/${String(own.id)}`
    const csrf = csrfOf((await browser.get(`${base}?contact_search=a`)).body, `${base}/contact?contact_search=a`)
    const problems: string[] = []
    for (const text of [...SWEPT, '9999999999999999999', '-1']) {
      const value = encode(text)
      for (const res of [
        await browser.get(`${base}?contact_search=${value}`),
        await browser.get(`/leads?user_id=${value}&contact=${value}&page=${value}`),
        await browser.request('POST', `${base}/contact?contact_search=${value}`, `_csrf=${encodeURIComponent(csrf)}&contact_id=${value}`),
      ]) {
        if (res.status >= 500 || !String(res.headers['content-type']).startsWith('text/html')) problems.push(`${JSON.stringify(text)}: ${String(res.status)}`)
      }
    }
    assert.deepEqual(problems, [])
    assert.equal(await contactIdOf(own.id), null)
  })

  describe('the same effect as the API', () => {
    /** A company with a subscription (so webhook events are recorded) and a member signed in. */
    async function twin() {
      const owner = await tenant(t.db)
      await addSubscription(t.db, owner.companyId)
      const user = await member(t.db, owner.companyId)
      return { owner, browser: await signIn(user.email) }
    }

    test('New lead creates what POST /leads creates (the lead, its business, lead.created and lead.linked)', async () => {
      const a = await twin()
      const b = await twin()
      for (const who of [a, b]) await addContact(t.db, who.owner, { first_name: 'Nina', email: 'nina@globex.example' })
      const fields = { first_name: 'Nina', last_name: 'Lopes', email: 'nina@globex.example', provider: 'apollo', degree_of_connection: '3', business_name: 'Globex', business_sector: 'Logistics' }
      const effects = await assertSameEffect(t.db, { api: a.owner.companyId, web: b.owner.companyId }, {
        api: async () => {
          const res = await t.app.inject({ method: 'POST', url: '/api/v1/leads', headers: a.owner.auth, payload: { ...fields, degree_of_connection: 3 } })
          assert.equal(res.statusCode, 201, res.body)
        },
        web: async () => {
          const blanks = { position: '', linkedin_url: '', telephone: '', city: '', state_province: '', country: '', business_linkedin_url: '', business_colaborators_count: '', business_telephone: '' }
          const res = await b.browser.submit('/leads/new', '/leads', { ...fields, ...blanks })
          assert.equal(res.status, 303, res.body)
        },
      })
      assert.deepEqual(Object.keys(effects).sort(), ['businesses', 'leads', 'webhook events'])
      assert.equal(effects['webhook events']?.came.length, 2)
    })

    test('Link to contact does what PUT /leads/:id/contact does (the link, lead.linked, the audit record)', async () => {
      const a = await twin()
      const b = await twin()
      const set = async (who: Tenant) => ({
        lead: await lead(who.companyId, who.userId, { first_name: 'Olga', email: 'olga@work.example' }),
        contact: await addContact(t.db, who, { first_name: 'Olga', last_name: 'Home', email: 'olga@home.example' }),
      })
      const [ta, tb] = [await set(a.owner), await set(b.owner)]
      const base = `/leads/${String(tb.lead.id)}`
      const effects = await assertSameEffect(t.db, { api: a.owner.companyId, web: b.owner.companyId }, {
        api: async () => {
          const res = await t.app.inject({ method: 'PUT', url: `/api/v1/leads/${String(ta.lead.id)}/contact`, headers: a.owner.auth, payload: { contact_id: ta.contact.id } })
          assert.equal(res.statusCode, 200, res.body)
        },
        web: async () => {
          const res = await b.browser.submit(`${base}?contact_search=olga`, `${base}/contact?contact_search=olga`, { contact_id: String(tb.contact.id) })
          assert.equal(res.status, 303, res.body)
        },
      })
      assert.deepEqual(Object.keys(effects).sort(), ['audit_events', 'leads', 'webhook events'])
    })
  })
})
