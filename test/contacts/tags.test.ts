import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { rawRows, sql } from '../helpers/sql.js'
import { backends, startApp, type TestApp } from '../helpers/app.js'
import { addContact, addTag } from '../helpers/contacts-factories.js'
import { tenant, type Tenant } from '../helpers/factories.js'

/** A tags row, every column (the queries select *). */
interface TagRow {
  company_id: number
  id: number
  name: string
  color: string
  created_at: Date
  updated_at: Date
}

for (const backend of backends()) {
  describe(`tags (${backend.name})`, () => {
    let t: TestApp
    let acme: Tenant
    let other: Tenant

    before(async () => {
      t = await startApp(backend)
      acme = await tenant(t.db, { name: 'Acme' })
      other = await tenant(t.db, { name: 'Other' })
    })
    after(() => t.close())

    const tagRows = (companyId: number) => rawRows<TagRow>(t.db, sql`select * from tags where company_id = ${companyId} order by id`)
    const tagById = (id: number) => rawRows<TagRow>(t.db, sql`select * from tags where id = ${id}`)
    const post = (payload: object | string, who = acme, contentType = 'application/json') =>
      t.app.inject({ method: 'POST', url: '/api/v1/tags', headers: { ...who.auth, 'content-type': contentType }, payload })

    test('POST creates a tag: 201, Location, the record, the row', async () => {
      const res = await post({ name: 'Hot lead', color: '#E11D48' })
      assert.equal(res.statusCode, 201)
      const body = res.json()
      assert.deepEqual(Object.keys(body).sort(), ['color', 'created_at', 'id', 'name', 'updated_at'])
      assert.equal(res.headers.location, `/api/v1/tags/${body.id}`)
      assert.equal(body.name, 'Hot lead')
      assert.equal(body.color, '#E11D48')
      assert.match(body.created_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/)
      const [row] = await tagById(body.id)
      assert.equal(row?.company_id, acme.companyId)
      assert.equal(row.name, 'Hot lead')
    })

    test('fields may come wrapped in "tag", or as a form', async () => {
      const wrapped = await post({ tag: { name: 'Wrapped', color: '#abc' } })
      assert.equal(wrapped.statusCode, 201)
      assert.equal(wrapped.json().name, 'Wrapped')
      const form = await post('tag[name]=Form&tag[color]=%23a1b2c3', acme, 'application/x-www-form-urlencoded')
      assert.equal(form.statusCode, 201)
      assert.deepEqual([form.json().name, form.json().color], ['Form', '#a1b2c3'])
    })

    test('bad input: 422 naming the field, nothing stored', async () => {
      const before = await tagRows(acme.companyId)
      const cases: [object, string, string][] = [
        [{ color: '#fff' }, 'name', "can't be blank"],
        [{ name: '   ', color: '#fff' }, 'name', "can't be blank"],
        [{ name: 'x'.repeat(256), color: '#fff' }, 'name', 'is too long (maximum is 255 characters)'],
        [{ name: 'No colour' }, 'color', "can't be blank"],
        [{ name: 'Red', color: 'red' }, 'color', 'is invalid'],
        [{ name: 'Red', color: '#ff' }, 'color', 'is invalid'],
        [{ name: 'Red', color: '#ffff' }, 'color', 'is invalid'],
        [{ name: 'Red', color: '#fffffff' }, 'color', 'is invalid'],
        [{ name: 'Red', color: '#gggggg' }, 'color', 'is invalid'],
        [{ name: 'Red', color: 'ff0000' }, 'color', 'is invalid'],
        [{ name: 'Red', color: 7 }, 'color', 'must be a string'],
      ]
      for (const [payload, field, message] of cases) {
        const res = await post(payload)
        assert.equal(res.statusCode, 422, JSON.stringify(payload))
        assert.deepEqual(res.json().error.details[field], [message], JSON.stringify(res.json()))
      }
      assert.deepEqual(await tagRows(acme.companyId), before)
    })

    test('name is unique per company, case-insensitively; other companies may reuse it', async () => {
      assert.equal((await post({ name: 'Customer', color: '#000' })).statusCode, 201)
      const dup = await post({ name: 'CUSTOMER', color: '#111' })
      assert.equal(dup.statusCode, 422)
      assert.deepEqual(dup.json().error.details, { name: ['has already been taken'] })
      assert.equal((await post({ name: 'customer', color: '#000' }, other)).statusCode, 201)
    })

    test('two concurrent creates of one name: exactly one wins', async () => {
      const results = await Promise.all([post({ name: 'Race', color: '#000' }), post({ name: 'race', color: '#fff' })])
      assert.deepEqual(results.map((r) => r.statusCode).sort(), [201, 422])
      const rows = (await tagRows(acme.companyId)).filter((row) => row.name.toLowerCase() === 'race')
      assert.equal(rows.length, 1)
    })

    test('GET lists the company tags, id ascending, unpaged', async () => {
      const res = await t.app.inject({ url: '/api/v1/tags', headers: acme.auth })
      assert.equal(res.statusCode, 200)
      const body = res.json()
      const rows = await tagRows(acme.companyId)
      assert.deepEqual(body.data.map((tag: { id: number }) => tag.id), rows.map((row) => row.id))
      assert.deepEqual(body.meta, { total_count: rows.length })
      const otherList = await t.app.inject({ url: '/api/v1/tags', headers: other.auth })
      assert.deepEqual(otherList.json().data.map((tag: { name: string }) => tag.name), ['customer'])
    })

    test('PUT renames and recolours; 404 for a missing or foreign tag; 422 for a taken name', async () => {
      const tag = await addTag(t.db, acme, { name: 'Before', color: '#000' })
      const res = await t.app.inject({ method: 'PUT', url: `/api/v1/tags/${tag.id}`, headers: acme.auth, payload: { tag: { name: 'After', color: '#fff' } } })
      assert.equal(res.statusCode, 200)
      assert.equal(res.json().name, 'After')
      assert.equal(res.json().color, '#fff')
      assert.equal(res.json().created_at, tag.created_at.toISOString())
      const [row] = await tagById(tag.id)
      assert.deepEqual([row?.name, row?.color], ['After', '#fff'])

      const foreign = await addTag(t.db, other, { name: 'Theirs' })
      for (const id of [foreign.id, 999999]) {
        const missing = await t.app.inject({ method: 'PUT', url: `/api/v1/tags/${id}`, headers: acme.auth, payload: { name: 'X', color: '#fff' } })
        assert.equal(missing.statusCode, 404)
        assert.equal(missing.json().error.message, 'Not found')
      }
      const [theirs] = await tagById(foreign.id)
      assert.equal(theirs?.name, 'Theirs')

      const taken = await t.app.inject({ method: 'PUT', url: `/api/v1/tags/${tag.id}`, headers: acme.auth, payload: { name: 'hot LEAD', color: '#fff' } })
      assert.equal(taken.statusCode, 422)
      assert.deepEqual(taken.json().error.details, { name: ['has already been taken'] })
      const keeps = await t.app.inject({ method: 'PUT', url: `/api/v1/tags/${tag.id}`, headers: acme.auth, payload: { name: 'AFTER', color: '#fff' } })
      assert.equal(keeps.statusCode, 200, 'its own name in another case is fine')

      const badId = await t.app.inject({ method: 'PUT', url: '/api/v1/tags/abc', headers: acme.auth, payload: { name: 'X', color: '#fff' } })
      assert.equal(badId.statusCode, 422)
      assert.ok(badId.json().error.details.id)
      const missingFields = await t.app.inject({ method: 'PUT', url: `/api/v1/tags/${tag.id}`, headers: acme.auth, payload: {} })
      assert.deepEqual(missingFields.json().error.details, { name: ["can't be blank"], color: ["can't be blank"] })
    })

    test('every write answers exactly the record a later GET lists', async () => {
      const listed = async (id: number) => {
        const res = await t.app.inject({ url: '/api/v1/tags', headers: acme.auth })
        return JSON.stringify(res.json<{ data: { id: number }[] }>().data.find((tag) => tag.id === id))
      }
      const created = await t.app.inject({ method: 'POST', url: '/api/v1/tags', headers: acme.auth, payload: { name: 'Écho "1"', color: '#abc' } })
      assert.equal(created.statusCode, 201)
      const id = created.json<{ id: number }>().id
      assert.equal(created.body, await listed(id))
      const changed = await t.app.inject({ method: 'PUT', url: `/api/v1/tags/${id}`, headers: acme.auth, payload: { name: 'Echo 2', color: '#aabbcc' } })
      assert.equal(changed.statusCode, 200)
      assert.equal(changed.body, await listed(id))
    })

    test('DELETE removes the tag from contacts with a tag_removed event on each live one', async () => {
      const tag = await addTag(t.db, acme, { name: 'Doomed' })
      const keep = await addTag(t.db, acme, { name: 'Kept' })
      const a = await addContact(t.db, acme, { tags: [tag.id, keep.id] })
      const b = await addContact(t.db, acme, { tags: [tag.id] })
      const gone = await addContact(t.db, acme, { tags: [tag.id] })
      assert.equal((await t.app.inject({ method: 'DELETE', url: `/api/v1/contacts/${gone.id}`, headers: acme.auth })).statusCode, 204)

      const foreign = await t.app.inject({ method: 'DELETE', url: `/api/v1/tags/${tag.id}`, headers: other.auth })
      assert.equal(foreign.statusCode, 404)

      const res = await t.app.inject({ method: 'DELETE', url: `/api/v1/tags/${tag.id}`, headers: acme.auth })
      assert.equal(res.statusCode, 204)
      assert.equal(res.body, '')
      assert.equal((await tagById(tag.id)).length, 0)
      const links = await rawRows<{ contact_id: number; tag_id: number; company_id: number; created_at: Date }>(t.db, sql`
        select * from contact_tags where company_id = ${acme.companyId}`)
      assert.deepEqual(links.filter((l) => l.tag_id === tag.id), [])
      assert.ok(links.some((l) => l.contact_id === a.id && l.tag_id === keep.id))

      const removed = await rawRows<{ contact_id: number; data: Record<string, unknown>; user_id: number | null }>(t.db, sql`
        select contact_id, data, user_id from contact_events where company_id = ${acme.companyId} and kind = 'tag_removed' order by id`)
      assert.deepEqual(removed.map((e) => e.contact_id), [a.id, b.id])
      assert.deepEqual(removed[0]?.data, { tag_id: tag.id, name: 'Doomed', reason: 'tag_deleted' })
      assert.equal(removed[0].user_id, acme.userId)

      const contact = await t.app.inject({ url: `/api/v1/contacts/${a.id}`, headers: acme.auth })
      assert.deepEqual(contact.json().tags.map((x: { id: number }) => x.id), [keep.id])
      assert.equal((await t.app.inject({ method: 'DELETE', url: `/api/v1/tags/${tag.id}`, headers: acme.auth })).statusCode, 404)
    })
  })
}
