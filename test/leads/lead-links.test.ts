// Linking in both orders, through the API: a contact created (POST /contacts) links the
// leads of its email in its write statement, under the email's lead-link lock; a lead
// created (POST /leads) takes that lock and links itself to a live contact of its email; a
// contact deleted (DELETE /contacts/:id) lets its leads go.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { CONTACTS_COUNTER } from '../../src/modules/contacts/contacts.service.js'
import { tenant, type Tenant } from '../helpers/factories.js'
import { addContact } from '../helpers/leads-factories.js'
import { backends, startApp, type TestApp } from '../helpers/app.js'
import { holdCounter } from '../helpers/counters.js'
import { waitForLockWait } from '../helpers/locks.js'
import { rawRows, sql } from '../helpers/sql.js'

for (const backend of backends()) {
  describe(`lead links (${backend.name})`, () => {
    let t: TestApp
    let acme: Tenant
    let other: Tenant
    let seq = 0

    before(async () => {
      t = await startApp(backend)
      acme = await tenant(t.db)
      other = await tenant(t.db)
    })
    after(() => t.close())

    const email = () => `link${++seq}@example.com`
    async function createLead(who: Tenant, fields: Record<string, unknown>) {
      const res = await t.app.inject({
        method: 'POST', url: '/api/v1/leads', headers: who.auth,
        payload: { first_name: 'L', provider: 'linkedin', ...fields },
      })
      assert.equal(res.statusCode, 201, res.body)
      return res.json<{ id: number; contact_id: number | null }>()
    }
    const contactIdOf = async (leadId: number) =>
      (await rawRows<{ c: number | null }>(t.db, sql`select contact_id as c from leads where id = ${leadId}`))[0]?.c
    const counts = async (who: Tenant) => {
      const read = (q: string) =>
        t.app.inject({ url: `/api/v1/leads/count?user_id=${who.userId}${q}`, headers: who.auth }).then((r) => r.json<{ count: number }>().count)
      return { all: await read(''), linked: await read('&with_contact=true'), unlinked: await read('&without_contact=true') }
    }
    async function createContact(who: Tenant, address: string) {
      const res = await t.app.inject({ method: 'POST', url: '/api/v1/contacts', headers: who.auth, payload: { first_name: 'C', email: address } })
      assert.equal(res.statusCode, 201, res.body)
      return res.json<{ id: number }>()
    }

    test('lead first, then the contact: every lead of that email (any provider, any case) is linked; counts follow', async () => {
      const address = email()
      const a = await createLead(acme, { email: address, provider: 'linkedin' })
      const b = await createLead(acme, { email: address.toUpperCase(), provider: 'apollo' })
      const theirs = await createLead(other, { email: address })
      const before = await counts(acme)

      const contact = await createContact(acme, address.replace('link', 'LINK'))
      assert.equal(await contactIdOf(a.id), contact.id)
      assert.equal(await contactIdOf(b.id), contact.id)
      assert.equal(await contactIdOf(theirs.id), null) // another company's lead stays apart
      const shown = await t.app.inject({ url: `/api/v1/leads/${a.id}`, headers: acme.auth })
      assert.equal(shown.json().contact_id, contact.id)
      assert.deepEqual(await counts(acme), { all: before.all, linked: before.linked + 2, unlinked: before.unlinked - 2 })
      assert.deepEqual(await counts(other), { all: 1, linked: 0, unlinked: 1 })
    })

    test('contact first, then the lead: linked on create', async () => {
      const address = email()
      const contact = await addContact(t.db, acme.companyId, acme.userId, { email: address })
      const before = await counts(acme)
      const lead = await createLead(acme, { email: address })
      assert.equal(lead.contact_id, contact.id)
      assert.deepEqual(await counts(acme), { all: before.all + 1, linked: before.linked + 1, unlinked: before.unlinked })
    })

    test('a deleted contact lets its leads go, with the counts; a new contact of the email takes them over', async () => {
      const address = email()
      const lead = await createLead(acme, { email: address })
      const first = await createContact(acme, address)
      const linked = await counts(acme)

      // The contact is deleted (soft): its leads lose the link.
      const deleted = await t.app.inject({ method: 'DELETE', url: `/api/v1/contacts/${String(first.id)}`, headers: acme.auth })
      assert.equal(deleted.statusCode, 204, deleted.body)
      assert.equal(await contactIdOf(lead.id), null)
      assert.deepEqual(await counts(acme), { all: linked.all, linked: linked.linked - 1, unlinked: linked.unlinked + 1 })

      // A new contact with that email takes the lead over.
      const second = await createContact(acme, address)
      assert.equal(await contactIdOf(lead.id), second.id)
      assert.deepEqual(await counts(acme), linked)
    })

    test('a DELETE of the contact by another company is a 404 and leaves its leads linked', async () => {
      const address = email()
      const lead = await createLead(acme, { email: address })
      const contact = await createContact(acme, address)
      const refused = await t.app.inject({ method: 'DELETE', url: `/api/v1/contacts/${String(contact.id)}`, headers: other.auth })
      assert.equal(refused.statusCode, 404, refused.body)
      assert.equal(await contactIdOf(lead.id), contact.id)
    })

    test('a lead and its contact created at the same moment still meet', async () => {
      await createContact(acme, email()) // the company's contacts counter row exists
      for (let i = 0; i < 5; i++) {
        const address = email()
        // The contact's write statement has linked (finding nothing) and waits on the company's
        // contacts counter, held by another transaction, when the lead comes.
        const release = await holdCounter(t.db, acme.companyId, CONTACTS_COUNTER)
        const contactDone = createContact(acme, address)
        await waitForLockWait(t.db, 'the contact')
        const leadDone = createLead(acme, { email: address })
        await waitForLockWait(t.db, 'the lead', 2)
        await release()
        const [contact, lead] = await Promise.all([contactDone, leadDone])
        assert.equal(await contactIdOf(lead.id), contact.id, `round ${String(i)}`)
      }
      const all = await rawRows<{ n: number }>(t.db, sql`
        select count(*)::int as n from leads where company_id = ${acme.companyId} and contact_id is not null`)
      assert.equal((await counts(acme)).linked, all[0]?.n)
    })
  })
}
