// A tag or custom field deleted while a contact is being written with it (issue 10, item 4):
// the write's checks passed, then the foreign key fails. The answer is the 422 the checks
// give for a tag or field that does not exist, and nothing of the write is left behind.
// The race is made deterministic: another transaction holds the contact's email (an
// uncommitted row under the live-email unique index), so the write waits between its
// checks and its rows; the tag or field is deleted meanwhile, then the holder rolls back.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import type { Response as Reply } from 'light-my-request'
import { execute, rawRows, sql } from '../helpers/sql.js'
import { backends, startApp, type TestApp } from '../helpers/app.js'
import { addContact, addCustomField, addTag } from '../helpers/contacts-factories.js'
import { deadlockCount, holdUncommitted, waitForLockWait as waitForLockWaitIn } from '../helpers/locks.js'
import { tableSnapshot } from '../helpers/snapshot.js'
import { tenant, type Tenant } from '../helpers/factories.js'
import { transaction } from '../../src/db/db.js'

const TABLES = ['contacts', 'contact_tags', 'contact_custom_values', 'contact_events', 'businesses', 'counters']

for (const backend of backends()) {
  describe(`contacts written with a tag or field deleted meanwhile (${backend.name})`, () => {
    let t: TestApp
    let acme: Tenant

    before(async () => {
      t = await startApp(backend)
      acme = await tenant(t.db)
    })
    after(() => t.close())

    // The company's webhook event counter moves with the deletion of the tag or field (its
    // own tag.deleted / custom_field.deleted event), not with the refused write: left out.
    const snapshot = async () => {
      const state = await tableSnapshot(t.db, TABLES)
      state.counters = (state.counters ?? '').split('\n').filter((row) => !row.includes(',events,')).join('\n')
      return state
    }

    /** Another transaction inserts a live contact with `email` and keeps it uncommitted until the returned release. */
    const holdEmail = (email: string) =>
      holdUncommitted(t.db, (tx) => execute(tx, sql`
        insert into contacts (company_id, user_id, first_name, email) values (${acme.companyId}, ${acme.userId}, 'Holder', ${email})`))

    /** Until a statement of this database waits for a lock (the write, on the held email). */
    const waitForLockWait = () => waitForLockWaitIn(t.db, 'the write')

    /** Runs `write` held on `email`, deletes with `remove` meanwhile, and returns the write's answer. */
    async function race(email: string, write: () => Promise<Reply>, remove: () => Promise<Reply>) {
      const release = await holdEmail(email)
      const pending = write()
      await waitForLockWait()
      const removed = await remove()
      assert.equal(removed.statusCode, 204, removed.body)
      await release()
      return pending
    }

    const post = (payload: object) => t.app.inject({ method: 'POST', url: '/api/v1/contacts', headers: acme.auth, payload })
    const put = (id: number, payload: object) => t.app.inject({ method: 'PUT', url: `/api/v1/contacts/${id}`, headers: acme.auth, payload })
    const del = (url: string) => t.app.inject({ method: 'DELETE', url: `/api/v1${url}`, headers: acme.auth })

    test('create with a tag deleted meanwhile: 422 tags "does not exist", no contact, no row written', async () => {
      const kept = await addTag(t.db, acme)
      const doomed = await addTag(t.db, acme)
      const before = await snapshot()
      const res = await race(
        'race.tag@acme.example',
        () => post({ first_name: 'Race', email: 'race.tag@acme.example', business: 'Race Inc', tags: [kept.id, doomed.id] }),
        () => del(`/tags/${doomed.id}`),
      )
      assert.equal(res.statusCode, 422, res.body)
      assert.deepEqual(res.json().error.details, { tags: [`does not exist: ${doomed.id}`] })
      assert.deepEqual(await snapshot(), before) // the deleted tag had no contacts, so no events either
    })

    test('create with a custom field deleted meanwhile: 422 custom_fields "<name> does not exist", nothing written', async () => {
      await addCustomField(t.db, acme, { field: 'Kept', kind: 'input' })
      const doomed = await addCustomField(t.db, acme, { field: 'Doomed', kind: 'input' })
      const before = await snapshot()
      const res = await race(
        'race.field@acme.example',
        () => post({ first_name: 'Race', email: 'race.field@acme.example', custom_fields: [{ field: 'Kept', value: 'a' }, { field: 'Doomed', value: 'b' }] }),
        () => del(`/custom_fields/${doomed.id}`),
      )
      assert.equal(res.statusCode, 422, res.body)
      assert.deepEqual(res.json().error.details, { custom_fields: ['Doomed does not exist'] })
      assert.deepEqual(await snapshot(), before)
    })

    test('update with a tag deleted meanwhile: 422, the contact exactly as it was', async () => {
      const kept = await addTag(t.db, acme)
      const doomed = await addTag(t.db, acme)
      const contact = await addContact(t.db, acme, { email: 'before@acme.example', tags: [kept.id] })
      const before = await snapshot()
      const res = await race(
        'after@acme.example',
        () => put(contact.id, { first_name: 'Changed', email: 'after@acme.example', business: null, tags: [kept.id, doomed.id] }),
        () => del(`/tags/${doomed.id}`),
      )
      assert.equal(res.statusCode, 422, res.body)
      assert.deepEqual(res.json().error.details, { tags: [`does not exist: ${doomed.id}`] })
      assert.deepEqual(await snapshot(), before)
      const read = await t.app.inject({ url: `/api/v1/contacts/${contact.id}`, headers: acme.auth })
      assert.equal(read.json().email, 'before@acme.example')
      assert.deepEqual(read.json().tags.map((tag: { id: number }) => tag.id), [kept.id])
    })

    test('update with a custom field deleted meanwhile: 422, the contact exactly as it was', async () => {
      const doomed = await addCustomField(t.db, acme, { field: 'Gone soon', kind: 'input' })
      const contact = await addContact(t.db, acme, { email: 'field.before@acme.example' })
      const before = await snapshot()
      const res = await race(
        'field.after@acme.example',
        () => put(contact.id, { first_name: 'Changed', email: 'field.after@acme.example', business: null, custom_fields: [{ field: 'Gone soon', value: 'x' }] }),
        () => del(`/custom_fields/${doomed.id}`),
      )
      assert.equal(res.statusCode, 422, res.body)
      assert.deepEqual(res.json().error.details, { custom_fields: ['Gone soon does not exist'] })
      assert.deepEqual(await snapshot(), before)
    })

    test('a create and a tag deletion locking in opposite orders: the deadlock victim is retried, not a 500', async () => {
      // The create locks the company's event counter in its insert, then its foreign key
      // waits for the tag; the deletion (here by hand) holds the tag, then wants the counter.
      const tag = await addTag(t.db, acme)
      let release!: () => void
      let holding!: () => void
      const gate = new Promise<void>((resolve) => (release = resolve))
      const held = new Promise<void>((resolve) => (holding = resolve))
      let deletionError: unknown
      const deletion = transaction(t.db, async (tx) => {
        await execute(tx, sql`select id from tags where company_id = ${acme.companyId} and id = ${tag.id} for update`)
        holding()
        await gate
        try {
          await execute(tx, sql`update counters set value = value where company_id = ${acme.companyId} and list = 'events' and key = 0`)
        } catch (err) {
          deletionError = err
        }
        throw new Error('rolled back on purpose')
      }).catch(() => undefined)
      await held
      // An event counter row to lock (the tag's creation made it).
      const pending = post({ first_name: 'Deadlock', email: 'deadlock@acme.example', tags: [tag.id] })
      await waitForLockWait()
      release() // the cycle closes; PostgreSQL aborts one side after deadlock_timeout
      await deletion
      const res = await pending
      assert.equal(res.statusCode, 201, res.body)
      assert.deepEqual(res.json().tags.map((x: { id: number }) => x.id), [tag.id])
      assert.equal(deletionError, undefined, 'the create, which waited first, was the victim and ran again')
    })

    const deadlocks = () => deadlockCount(t.db)

    /**
     * 30 creates naming a tag or field (`payload`) while `removal` deletes it: each 201, or 422
     * with `refused`; the deletion 204; every contact created whole; and no deadlock. The
     * creates share-lock the definition before the company's counters, the order the deletion
     * takes them in (backends report their statistics within a second of going idle).
     */
    async function manyCreatesRacing(prefix: string, payload: object, removal: () => Promise<Reply>, refused: object) {
      const deadlocksBefore = await deadlocks()
      const writes = Array.from({ length: 30 }, (_, i) => post({ first_name: 'Many', email: `${prefix}${String(i)}@acme.example`, ...payload }))
      const removed = removal()
      const answers = await Promise.all(writes)
      assert.equal((await removed).statusCode, 204)
      for (const res of answers) {
        assert.ok([201, 422].includes(res.statusCode), res.body)
        if (res.statusCode === 422) assert.deepEqual(res.json().error.details, refused)
      }
      const created = answers.filter((res) => res.statusCode === 201).length
      const [row] = await rawRows<{ n: number; events: number }>(
        t.db,
        sql`select count(distinct c.id)::int as n, count(e.id)::int as events
            from contacts c left join contact_events e on e.company_id = c.company_id and e.contact_id = c.id and e.kind = 'contact_created'
            where c.email like ${`${prefix}%@acme.example`}`,
      )
      assert.deepEqual(row, { n: created, events: created })
      await new Promise((resolve) => setTimeout(resolve, 1_200))
      assert.equal(await deadlocks(), deadlocksBefore)
    }

    test('many writes racing a tag deletion: each 201 or 422, never 500 or a deadlock, and no half-written contact', async () => {
      const doomed = await addTag(t.db, acme)
      await manyCreatesRacing('racetag', { tags: [doomed.id] }, () => del(`/tags/${doomed.id}`), { tags: [`does not exist: ${doomed.id}`] })
    })

    test('many writes racing a custom field deletion: each 201 or 422, never 500 or a deadlock', async () => {
      const doomed = await addCustomField(t.db, acme, { field: 'Short-lived', kind: 'input' })
      await manyCreatesRacing('racefield', { custom_fields: [{ field: 'Short-lived', value: 'x' }] }, () => del(`/custom_fields/${doomed.id}`), {
        custom_fields: ['Short-lived does not exist'],
      })
    })
  })
}
