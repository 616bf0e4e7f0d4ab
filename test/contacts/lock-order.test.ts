// The lock order of docs/reliability.md, held where two writes cross: a PUT that gives a
// contact a new email (and a new owner) against a create of that same email. The create
// takes the email's lead-link lock, inserts the email and adjusts its owner's counter; the
// PUT must take that lock before it writes the email or holds a counter, or each waits for
// the other. The crossing is made deterministic: another transaction holds the counter row
// the PUT adjusts last (the user whose lead the PUT unlinks), so the PUT stops there; the
// create is sent while it waits.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { sql, rawRows } from '../helpers/sql.js'
import { LINKED_LEADS } from '../../src/modules/leads/lead-links.js'
import { backends, startApp, type TestApp } from '../helpers/app.js'
import { addContact, addTag } from '../helpers/contacts-factories.js'
import { addUser, tenant, type Tenant } from '../helpers/factories.js'
import { holdCounter } from '../helpers/counters.js'
import { deadlockCount, waitForLockWait } from '../helpers/locks.js'
import { transaction } from '../../src/db/db.js'

for (const backend of backends()) {
  describe(`lock order of crossing contact writes (${backend.name})`, () => {
    let t: TestApp
    let acme: Tenant

    before(async () => {
      t = await startApp(backend)
      acme = await tenant(t.db)
    })
    after(() => t.close())

    const deadlocks = () => deadlockCount(t.db)

    test('a PUT taking a new email and owner, crossing a create of that email: 200 and 422, no deadlock', async () => {
      const seller = await addUser(t.db, acme.companyId)
      const contact = await addContact(t.db, { companyId: acme.companyId, userId: seller.id }, { email: 'old.address@acme.example' })
      // The caller's lead of the old address, linked to the contact (counter leads_linked, caller).
      const lead = await t.app.inject({
        method: 'POST',
        url: '/api/v1/leads',
        headers: acme.auth,
        payload: { first_name: 'Old', email: 'old.address@acme.example', provider: 'linkedin' },
      })
      assert.equal(lead.statusCode, 201, lead.body)
      assert.equal(lead.json().contact_id, contact.id)
      const deadlocksBefore = await deadlocks()

      const release = await holdCounter(t.db, acme.companyId, LINKED_LEADS, acme.userId)
      const put = t.app.inject({
        method: 'PUT',
        url: `/api/v1/contacts/${String(contact.id)}`,
        headers: acme.auth,
        payload: { first_name: 'Moved', business: 'Acme Ltd', email: 'new.address@acme.example', user_id: acme.userId },
      })
      await waitForLockWait(t.db, 'the PUT')
      const create = t.app.inject({ method: 'POST', url: '/api/v1/contacts', headers: acme.auth, payload: { first_name: 'Rival', email: 'new.address@acme.example' } })
      await waitForLockWait(t.db, 'the create', 2)
      await release()

      const [changed, refused] = await Promise.all([put, create])
      assert.equal(changed.statusCode, 200, changed.body)
      assert.deepEqual([changed.json().email, changed.json().user_id], ['new.address@acme.example', acme.userId])
      assert.equal(refused.statusCode, 422, refused.body)
      assert.deepEqual(refused.json().error.details, { email: ['has already been taken'] })
      const [unlinked] = await rawRows<{ contact_id: number | null }>(t.db, sql`select contact_id from leads where id = ${lead.json().id as number}`)
      assert.deepEqual(unlinked, { contact_id: null })
      // Backends report their statistics within a second of going idle.
      await new Promise((resolve) => setTimeout(resolve, 1_200))
      assert.equal(await deadlocks(), deadlocksBefore)
    })

    test('a PUT that waits for another change of the same contact plans from what that change left', async () => {
      const [hot, partner] = [await addTag(t.db, acme, { name: 'Crossing hot' }), await addTag(t.db, acme, { name: 'Crossing partner' })]
      const contact = await addContact(t.db, acme, { email: 'crossing@acme.example', tags: [hot.id] })
      // Another writer holds the contact and gives it the partner tag, committing once the PUT waits.
      let commit!: () => void
      let locked!: () => void
      const gate = new Promise<void>((resolve) => (commit = resolve))
      const holding = new Promise<void>((resolve) => (locked = resolve))
      const other = transaction(t.db, async (tx) => {
        await rawRows(tx, sql`select id from contacts where id = ${contact.id} for update`)
        await rawRows(tx, sql`insert into contact_tags (company_id, contact_id, tag_id) values (${acme.companyId}, ${contact.id}, ${partner.id})`)
        locked()
        await gate
      })
      await holding
      const put = t.app.inject({
        method: 'PUT',
        url: `/api/v1/contacts/${String(contact.id)}`,
        headers: acme.auth,
        payload: { first_name: contact.first_name, email: contact.email, business: null, tags: [hot.id, partner.id] },
      })
      await waitForLockWait(t.db, 'the PUT')
      commit()
      await other

      const changed = await put
      assert.equal(changed.statusCode, 200, changed.body)
      assert.deepEqual(changed.json<{ tags: { id: number }[] }>().tags.map((tag) => tag.id), [hot.id, partner.id])
      // The PUT found the partner tag there: nothing to add, no tag_added event.
      const events = await rawRows<{ kind: string }>(t.db, sql`select kind from contact_events where contact_id = ${contact.id} order by id`)
      assert.deepEqual(events.map((e) => e.kind), ['contact_created'])
    })
  })
}
