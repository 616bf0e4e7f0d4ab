import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { rawRows, sql } from '../helpers/sql.js'
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

    const liveContacts = () => rawRows<{ user_id: number; stage: string | null; business_id: number | null; email: string }>(t.db, sql`
      select user_id, stage, business_id, email from contacts where company_id = ${demo.companyId} and deleted_at is null`)
    const eventKinds = () => rawRows<{ kind: string }>(t.db, sql`select kind from contact_events where company_id = ${demo.companyId}`)
    const countOf = async (table: 'contact_tags' | 'contact_custom_values') =>
      (await rawRows<{ n: number }>(t.db, sql`select count(*)::int as n from ${sql.identifier(table)} where company_id = ${demo.companyId}`))[0]?.n ?? 0

    test('about 200 contacts over every user and stage, with businesses, tags and custom values', async () => {
      const rows = await liveContacts()
      assert.equal(rows.length, 200)
      assert.deepEqual(new Set(rows.map((r) => r.user_id)), new Set(userIds))
      assert.deepEqual(new Set(rows.map((r) => r.stage)), new Set(STAGES))
      assert.ok(rows.filter((r) => r.business_id !== null).length > 150)
      assert.equal(new Set(rows.map((r) => r.email.toLowerCase())).size, 200)

      const tagRows = await rawRows<{ color: string }>(t.db, sql`select color from tags where company_id = ${demo.companyId}`)
      assert.ok(tagRows.length >= 4)
      assert.ok(tagRows.every((tag) => /^#(?:[0-9a-f]{3}){1,2}$/i.test(tag.color)))
      const fieldRows = await rawRows<{ kind: string; options: { name: string }[] }>(t.db, sql`
        select kind, options from custom_fields where company_id = ${demo.companyId}`)
      assert.ok(new Set(fieldRows.map((f) => f.kind)).size >= 5)
      assert.ok(fieldRows.some((f) => f.kind === 'dropdown' && f.options.length > 1))
      assert.ok((await countOf('contact_tags')) > 100)
      assert.ok((await countOf('contact_custom_values')) > 200)

      const created = await eventKinds()
      assert.equal(created.filter((e) => e.kind === 'contact_created').length, 200)
    })

    test('counters match the rows, and the API reads the demo contacts', async () => {
      const rows = await rawRows<{ list: string; key: number; value: number }>(t.db, sql`
        select list, key, value from counters where company_id = ${demo.companyId}`)
      const live = await liveContacts()
      assert.equal(rows.find((r) => r.list === 'contacts')?.value, 200)
      for (const userId of userIds) {
        assert.equal(rows.find((r) => r.list === 'contacts_by_user' && r.key === userId)?.value, live.filter((c) => c.user_id === userId).length)
      }
      const res = await t.app.inject({ url: '/api/v1/contacts?page=8', headers: demo.auth })
      assert.equal(res.statusCode, 200)
      assert.equal(res.json().meta.total_count, 200)
      assert.equal(res.json().data.length, 25)
      const mine = await t.app.inject({ url: `/api/v1/contacts?page=1&user_id=${userIds[1] ?? 0}`, headers: demo.auth })
      assert.equal(mine.json().meta.total_count, live.filter((c) => c.user_id === userIds[1]).length)
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
      const events = await eventKinds()
      assert.equal(events.length, 200, 'nothing changed, nothing recorded')
    })
  })
}
