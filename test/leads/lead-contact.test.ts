// PUT /leads/:id/contact, the workspace's addition (docs/leads-meetings-whatsapp.md): a lead
// linked by hand to a live contact of the company, whatever its email; the counters, the
// lead.linked webhook event and the audit record it leaves; what it refuses, leaving nothing;
// and how a link made by hand meets the email rule afterwards.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { systemActing } from '../../src/acting.js'
import { createToken } from '../../src/modules/auth/tokens.service.js'
import { backends, startApp, type TestApp } from '../helpers/app.js'
import { tenant, type Tenant } from '../helpers/factories.js'
import { addContact } from '../helpers/leads-factories.js'
import { rawRows, sql } from '../helpers/sql.js'

interface LeadBody {
  id: number
  contact_id: number | null
  email: string
  updated_at: string
}

for (const backend of backends()) {
  describe(`linking a lead by hand (${backend.name})`, () => {
    let t: TestApp
    let acme: Tenant
    let other: Tenant
    let seq = 0

    before(async () => {
      t = await startApp(backend)
      acme = await tenant(t.db, { name: 'Acme' })
      other = await tenant(t.db, { name: 'Other' })
    })
    after(() => t.close())

    const email = () => `hand${String(++seq)}@example.com`
    async function createLead(who: Tenant, fields: Record<string, unknown> = {}) {
      const res = await t.app.inject({
        method: 'POST', url: '/api/v1/leads', headers: who.auth,
        payload: { first_name: 'Marta', last_name: 'Reis', provider: 'linkedin', email: email(), ...fields },
      })
      assert.equal(res.statusCode, 201, res.body)
      return res.json<LeadBody>()
    }
    const link = (id: number | string, payload: unknown, headers: Record<string, string> = acme.auth) =>
      t.app.inject({ method: 'PUT', url: `/api/v1/leads/${String(id)}/contact`, headers, payload: payload as object })
    const counts = async (who: Tenant) => {
      const read = (q: string) =>
        t.app.inject({ url: `/api/v1/leads/count?user_id=${String(who.userId)}${q}`, headers: who.auth }).then((r) => r.json<{ count: number }>().count)
      return { linked: await read('&with_contact=true'), unlinked: await read('&without_contact=true') }
    }
    /** What a link may leave: the lead rows, the audit records of leads, the webhook events. */
    async function leftBy(companyId: number) {
      return {
        leads: await rawRows<Record<string, unknown>>(t.db, sql`select * from leads where company_id = ${companyId} order by id`),
        audit: await rawRows<Record<string, unknown>>(t.db, sql`
          select action, actor_type, actor_id, target_type, target_id, target_label, changes from audit_events
           where company_id = ${companyId} and action like 'lead.%' order by id`),
        outbox: await rawRows<{ type: string; data: string }>(t.db, sql`
          select type, data::text as data from api_event_outbox where company_id = ${companyId} order by id`),
      }
    }

    test('a lead without a contact, linked to one with another email: 200, the lead; the counters, lead.linked and the audit record', async () => {
      const lead = await createLead(acme)
      assert.equal(lead.contact_id, null)
      const contact = await addContact(t.db, acme.companyId, acme.userId, { email: email(), firstName: 'Marta' })
      const before = await leftBy(acme.companyId)
      const counted = await counts(acme)

      const res = await link(lead.id, { contact_id: contact.id })
      assert.equal(res.statusCode, 200, res.body)
      const linked = res.json<LeadBody>()
      assert.equal(linked.contact_id, contact.id)
      assert.equal(linked.email, lead.email, 'the lead keeps its own email')
      assert.deepEqual((await t.app.inject({ url: `/api/v1/leads/${String(lead.id)}`, headers: acme.auth })).json(), linked)
      assert.deepEqual(await counts(acme), { linked: counted.linked + 1, unlinked: counted.unlinked - 1 })

      const after = await leftBy(acme.companyId)
      assert.deepEqual(after.outbox.slice(before.outbox.length).map((e) => e.type), ['lead.linked'])
      assert.deepEqual(JSON.parse(after.outbox.at(-1)?.data ?? 'null'), linked)
      assert.deepEqual(after.audit.slice(before.audit.length), [{
        action: 'lead.linked', actor_type: 'api_token', actor_id: (await rawRows<{ id: number }>(t.db, sql`select id from api_tokens where user_id = ${acme.userId}`))[0]?.id,
        target_type: 'lead', target_id: lead.id, target_label: 'Marta Reis', changes: { contact_id: [null, contact.id] },
      }])
    })

    test('linked again to another contact: the link replaced, the counters as they were; the same contact again changes nothing', async () => {
      const address = email()
      const first = await addContact(t.db, acme.companyId, acme.userId, { email: address })
      const lead = await createLead(acme, { email: address })
      assert.equal(lead.contact_id, first.id, 'linked by its email')
      const second = await addContact(t.db, acme.companyId, acme.userId, { email: email() })
      const counted = await counts(acme)

      const res = await link(lead.id, { contact_id: second.id })
      assert.equal(res.statusCode, 200, res.body)
      assert.equal(res.json<LeadBody>().contact_id, second.id)
      assert.deepEqual(await counts(acme), counted)
      const [audit] = (await leftBy(acme.companyId)).audit.slice(-1)
      assert.deepEqual(audit?.changes, { contact_id: [first.id, second.id] })

      const before = await leftBy(acme.companyId)
      const again = await link(lead.id, { contact_id: second.id })
      assert.equal(again.statusCode, 200, again.body)
      assert.deepEqual(again.json(), res.json())
      assert.deepEqual(await leftBy(acme.companyId), before, 'nothing written')
    })

    test('refusals leave nothing: a contact of another company, a deleted or unknown one (422); another company\'s lead (404); a bad body; a read-only token (403)', async () => {
      const lead = await createLead(acme)
      const theirs = await addContact(t.db, other.companyId, other.userId)
      const deleted = await addContact(t.db, acme.companyId, acme.userId, { deleted: true })
      const own = await addContact(t.db, acme.companyId, acme.userId)
      const theirLead = await createLead(other)
      const before = await leftBy(acme.companyId)
      const theirsBefore = await leftBy(other.companyId)

      for (const contactId of [theirs.id, deleted.id, 999_999_999]) {
        const res = await link(lead.id, { contact_id: contactId })
        assert.equal(res.statusCode, 422, String(contactId))
        assert.deepEqual(res.json().error.details, { contact_id: ['does not exist'] })
        assert.deepEqual(res.json().error.detail_codes, { contact_id: ['not_found'] })
      }
      for (const id of [theirLead.id, 999_999_999]) {
        const res = await link(id, { contact_id: own.id })
        assert.equal(res.statusCode, 404, String(id))
        assert.equal(res.json().error.code, 'not_found')
      }
      for (const payload of [{}, { contact_id: 'abc' }, { contact_id: 0 }, { contact_id: null }]) {
        const res = await link(lead.id, payload)
        assert.equal(res.statusCode, 422, JSON.stringify(payload))
        assert.ok(res.json().error.details.contact_id, JSON.stringify(payload))
      }
      const reader = await createToken(t.db, systemActing(), acme.userId, { scopes: ['leads:read'] })
      const refused = await link(lead.id, { contact_id: own.id }, { authorization: `Bearer ${reader.token}` })
      assert.equal(refused.statusCode, 403)
      assert.deepEqual(refused.json().error.details, { scope: ['leads:write'] })
      assert.deepEqual(await leftBy(acme.companyId), before)
      assert.deepEqual(await leftBy(other.companyId), theirsBefore)
    })

    test('a form body works as JSON does', async () => {
      const lead = await createLead(acme)
      const contact = await addContact(t.db, acme.companyId, acme.userId)
      const res = await t.app.inject({
        method: 'PUT', url: `/api/v1/leads/${String(lead.id)}/contact`,
        headers: { ...acme.auth, 'content-type': 'application/x-www-form-urlencoded' }, payload: `contact_id=${String(contact.id)}`,
      })
      assert.equal(res.statusCode, 200, res.body)
      assert.equal(res.json<LeadBody>().contact_id, contact.id)
    })

    test('afterwards: a contact created with the lead\'s email leaves the hand-made link alone; deleting the contact unlinks the lead', async () => {
      const address = email()
      const lead = await createLead(acme, { email: address })
      const chosen = await addContact(t.db, acme.companyId, acme.userId, { email: email() })
      assert.equal((await link(lead.id, { contact_id: chosen.id })).statusCode, 200)

      const created = await t.app.inject({ method: 'POST', url: '/api/v1/contacts', headers: acme.auth, payload: { first_name: 'Same', email: address } })
      assert.equal(created.statusCode, 201, created.body)
      const contactOf = async () => (await rawRows<{ c: number | null }>(t.db, sql`select contact_id as c from leads where id = ${lead.id}`))[0]?.c
      assert.equal(await contactOf(), chosen.id, 'the email rule links only leads without a contact')

      const counted = await counts(acme)
      assert.equal((await t.app.inject({ method: 'DELETE', url: `/api/v1/contacts/${String(chosen.id)}`, headers: acme.auth })).statusCode, 204)
      assert.equal(await contactOf(), null)
      assert.deepEqual(await counts(acme), { linked: counted.linked - 1, unlinked: counted.unlinked + 1 })
      assert.equal((await link(lead.id, { contact_id: created.json<{ id: number }>().id })).statusCode, 200, 'linked again by hand')
    })
  })
}
