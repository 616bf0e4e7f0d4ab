import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { and, eq, isNull } from 'drizzle-orm'
import { contactCustomValues, contactEvents, contacts, contactTags, counters, customFields, tags } from '../../src/db/schema.js'
import { seedContacts } from '../../src/modules/contacts/contacts.demo.js'
import { STAGES } from '../../src/modules/contacts/contacts.schemas.js'
import { backends, startApp, type TestApp } from '../helpers/app.js'
import { addUser, tenant, type Tenant } from '../helpers/factories.js'
import { transaction } from '../../src/db/db.js'

for (const backend of backends()) {
  describe(`contacts demo data (${backend.name})`, () => {
    let t: TestApp
    let demo: Tenant
    const userIds: number[] = []

    before(async () => {
      t = await startApp(backend)
      demo = await tenant(t.db, { name: 'Demo' })
      userIds.push(demo.userId, (await addUser(t.db, demo.companyId)).id, (await addUser(t.db, demo.companyId)).id)
      let seed = 1
      const random = () => ((seed = (seed * 16807) % 2147483647) - 1) / 2147483646
      await transaction(t.db, (tx) => seedContacts({ db: tx, companyId: demo.companyId, userIds, now: new Date('2026-11-22T12:00:00Z'), random }))
    })
    after(() => t.close())

    test('about 200 contacts over every user and stage, with businesses, tags and custom values', async () => {
      const rows = await t.orm.select().from(contacts).where(and(eq(contacts.companyId, demo.companyId), isNull(contacts.deletedAt)))
      assert.equal(rows.length, 200)
      assert.deepEqual(new Set(rows.map((r) => r.userId)), new Set(userIds))
      assert.deepEqual(new Set(rows.map((r) => r.stage)), new Set(STAGES))
      assert.ok(rows.filter((r) => r.businessId !== null).length > 150)
      assert.equal(new Set(rows.map((r) => r.email.toLowerCase())).size, 200)

      const tagRows = await t.orm.select().from(tags).where(eq(tags.companyId, demo.companyId))
      assert.ok(tagRows.length >= 4)
      assert.ok(tagRows.every((tag) => /^#(?:[0-9a-f]{3}){1,2}$/i.test(tag.color)))
      const fieldRows = await t.orm.select().from(customFields).where(eq(customFields.companyId, demo.companyId))
      assert.ok(new Set(fieldRows.map((f) => f.kind)).size >= 5)
      assert.ok(fieldRows.some((f) => f.kind === 'dropdown' && f.options.length > 1))
      assert.ok((await t.orm.select().from(contactTags).where(eq(contactTags.companyId, demo.companyId))).length > 100)
      assert.ok((await t.orm.select().from(contactCustomValues).where(eq(contactCustomValues.companyId, demo.companyId))).length > 200)

      const created = await t.orm.select().from(contactEvents).where(eq(contactEvents.companyId, demo.companyId))
      assert.equal(created.filter((e) => e.kind === 'contact_created').length, 200)
    })

    test('counters match the rows, and the API reads the demo contacts', async () => {
      const rows = await t.orm.select().from(counters).where(eq(counters.companyId, demo.companyId))
      const live = await t.orm.select().from(contacts).where(and(eq(contacts.companyId, demo.companyId), isNull(contacts.deletedAt)))
      assert.equal(rows.find((r) => r.list === 'contacts')?.value, 200)
      for (const userId of userIds) {
        assert.equal(rows.find((r) => r.list === 'contacts_by_user' && r.key === userId)?.value, live.filter((c) => c.userId === userId).length)
      }
      const res = await t.app.inject({ url: '/api/v1/contacts?page=8', headers: demo.auth })
      assert.equal(res.statusCode, 200)
      assert.equal(res.json().meta.total_count, 200)
      assert.equal(res.json().data.length, 25)
      const mine = await t.app.inject({ url: `/api/v1/contacts?page=1&user_id=${userIds[1] ?? 0}`, headers: demo.auth })
      assert.equal(mine.json().meta.total_count, live.filter((c) => c.userId === userIds[1]).length)
      const first = res.json().data[0]
      const business = await t.app.inject({ url: `/api/v1/contacts/${first.id}/business`, headers: demo.auth })
      assert.ok([200, 404].includes(business.statusCode))
    })

    test('every demo value passes the API validation (a contact read and PUT back)', async () => {
      const res = await t.app.inject({ url: '/api/v1/contacts?page=1&per_page=100', headers: demo.auth })
      for (const contact of res.json().data) {
        const update = await t.app.inject({
          method: 'PUT',
          url: `/api/v1/contacts/${contact.id}`,
          headers: demo.auth,
          payload: { ...contact, tags: contact.tags.map((tag: { id: number }) => tag.id) },
        })
        assert.equal(update.statusCode, 200, update.body)
        assert.deepEqual(update.json(), contact)
      }
      const events = await t.orm.select().from(contactEvents).where(eq(contactEvents.companyId, demo.companyId))
      assert.equal(events.length, 200, 'nothing changed, nothing recorded')
    })
  })
}
