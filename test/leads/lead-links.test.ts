// Linking in both orders, as the contacts module drives it: a contact created (or given an
// email) later calls linkLeadsToContact in its transaction; a deleted one unlinkLeadsFromContact.
import assert from 'node:assert/strict'
import { setTimeout as sleep } from 'node:timers/promises'
import { after, before, describe, test } from 'node:test'
import { eq, sql } from 'drizzle-orm'
import { contacts, leads } from '../../src/db/schema.js'
import { linkLeadsToContact, lockLeadEmail, unlinkLeadsFromContact } from '../../src/modules/leads/lead-links.js'
import { tenant, type Tenant } from '../helpers/factories.js'
import { addContact } from '../helpers/leads-factories.js'
import { backends, startApp, type TestApp } from '../helpers/app.js'

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
      (await t.db.select({ c: leads.contactId }).from(leads).where(eq(leads.id, leadId)))[0]?.c
    const counts = async (who: Tenant) => {
      const read = (q: string) =>
        t.app.inject({ url: `/api/v1/leads/count?user_id=${who.userId}${q}`, headers: who.auth }).then((r) => r.json<{ count: number }>().count)
      return { all: await read(''), linked: await read('&with_contact=true'), unlinked: await read('&without_contact=true') }
    }
    /** What the contacts module does on create: insert the contact, then link, in one transaction. */
    const createContact = (who: Tenant, address: string, pause = 0) =>
      t.db.transaction(async (tx) => {
        await lockLeadEmail(tx, who.companyId, address) // the caller's part, as in changeContact
        const [row] = await tx.insert(contacts).values({ companyId: who.companyId, userId: who.userId, firstName: 'C', email: address }).returning()
        if (!row) throw new Error('no contact')
        await linkLeadsToContact(tx, who.companyId, row.id, address)
        if (pause) await tx.execute(sql`select pg_sleep(${pause / 1000})`)
        return row
      })

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

    test('linking leaves leads already linked alone; unlinking frees them and the counts', async () => {
      const address = email()
      const lead = await createLead(acme, { email: address })
      const first = await createContact(acme, address)
      await t.db.transaction((tx) => linkLeadsToContact(tx, acme.companyId, first.id, address)) // twice: no double count
      const linked = await counts(acme)

      // The contact is deleted (soft): its leads lose the link.
      await t.db.transaction(async (tx) => {
        await tx.update(contacts).set({ deletedAt: new Date() }).where(eq(contacts.id, first.id))
        await unlinkLeadsFromContact(tx, acme.companyId, first.id)
      })
      assert.equal(await contactIdOf(lead.id), null)
      assert.deepEqual(await counts(acme), { all: linked.all, linked: linked.linked - 1, unlinked: linked.unlinked + 1 })

      // A new contact with that email takes the lead over.
      const second = await createContact(acme, address)
      assert.equal(await contactIdOf(lead.id), second.id)
      assert.deepEqual(await counts(acme), linked)
    })

    test('unlinking in another company changes nothing here', async () => {
      const address = email()
      const lead = await createLead(acme, { email: address })
      const contact = await createContact(acme, address)
      await t.db.transaction((tx) => unlinkLeadsFromContact(tx, other.companyId, contact.id))
      assert.equal(await contactIdOf(lead.id), contact.id)
    })

    test('a lead and its contact created at the same moment still meet', async () => {
      for (let i = 0; i < 5; i++) {
        const address = email()
        // The contact's transaction has linked (finding nothing) but not committed when the lead comes.
        const contactDone = createContact(acme, address, 300)
        await sleep(100)
        const [contact, lead] = await Promise.all([contactDone, createLead(acme, { email: address })])
        assert.equal(await contactIdOf(lead.id), contact.id, `round ${i}`)
      }
      const all = await t.db.select({ n: sql<number>`count(*)::int` }).from(leads)
        .where(sql`${leads.companyId} = ${acme.companyId} and ${leads.contactId} is not null`)
      assert.equal((await counts(acme)).linked, all[0]?.n)
    })
  })
}
