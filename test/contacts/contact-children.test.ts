// A contact keeps its tags and custom fields beside its row (contacts.tags_json and
// custom_fields_json, kept by the triggers of migrations/0020): after every kind of write that
// changes what they show, each contact's two columns equal its tags and values aggregated
// afresh with the repository's own TAGS_JSON and FIELDS_JSON, and the API shows them.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { TAGS_JSON, FIELDS_JSON } from '../../src/modules/contacts/contacts.repository.js'
import { backends, startApp, type TestApp } from '../helpers/app.js'
import { addCustomField, addTag } from '../helpers/contacts-factories.js'
import { tenant, type Tenant } from '../helpers/factories.js'
import { rawRows, sql } from '../helpers/sql.js'

interface Stale {
  id: number
  kept_tags: string
  tags: string
  kept_fields: string
  fields: string
}

for (const backend of backends()) {
  describe(`a contact's tags and custom fields kept beside it (${backend.name})`, () => {
    let t: TestApp
    let acme: Tenant

    before(async () => {
      t = await startApp(backend)
      acme = await tenant(t.db, { name: 'Acme' })
    })
    after(() => t.close())

    /** The contacts whose kept JSON differs from their tags and values aggregated now. */
    const stale = () =>
      rawRows<Stale>(t.db, sql`
        select c.id, c.tags_json::text as kept_tags, c.custom_fields_json::text as kept_fields,
               coalesce((select ${sql.raw(TAGS_JSON)} from contact_tags ct join tags t on t.company_id = ct.company_id and t.id = ct.tag_id
                          where ct.company_id = c.company_id and ct.contact_id = c.id), '[]')::text as tags,
               coalesce((select ${sql.raw(FIELDS_JSON)} from contact_custom_values v join custom_fields f on f.company_id = v.company_id and f.id = v.custom_field_id
                          where v.company_id = c.company_id and v.contact_id = c.id), '[]')::text as fields
          from contacts c
         where c.company_id = ${acme.companyId}`).then((rows) =>
        rows.filter((r) => r.kept_tags !== r.tags || r.kept_fields !== r.fields))

    const call = (method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, payload?: object) =>
      t.app.inject({ method, url: `/api/v1${url}`, headers: acme.auth, ...(payload === undefined ? {} : { payload }) })

    const shown = async (id: number) => {
      const res = await call('GET', `/contacts/${id}`)
      assert.equal(res.statusCode, 200)
      const body = res.json()
      return { tags: body.tags.map((tag: { name: string }) => tag.name), fields: body.custom_fields }
    }

    test('create, change, batch; tags and fields renamed and deleted: every contact stays in step', async () => {
      const hot = await addTag(t.db, acme, { name: 'Hot "lead" \\ ünïcode', color: '#e11d48' })
      const cold = await addTag(t.db, acme, { name: 'Cold', color: '#0000ff' })
      const size = await addCustomField(t.db, acme, { field: 'Size' })
      const source = await addCustomField(t.db, acme, { field: 'Source' })

      const created = await call('POST', '/contacts', {
        first_name: 'Ana', email: 'ana@example.com', tags: [cold.id, hot.id],
        custom_fields: [{ field: 'Source', value: 'Event "X"\n' }, { field: 'Size', value: 'M' }],
      })
      assert.equal(created.statusCode, 201)
      const ana = created.json().id as number
      const bare = (await call('POST', '/contacts', { first_name: 'Bo', email: 'bo@example.com' })).json().id as number
      assert.deepEqual(await stale(), [])
      assert.deepEqual(await shown(ana), {
        tags: ['Hot "lead" \\ ünïcode', 'Cold'],
        fields: [{ field: 'Size', value: 'M' }, { field: 'Source', value: 'Event "X"\n' }],
      })
      assert.deepEqual(await shown(bare), { tags: [], fields: [] })

      const changed = await call('PUT', `/contacts/${ana}`, {
        first_name: 'Ana', email: 'ana@example.com', business: null, tags: [cold.id], custom_fields: [{ field: 'Size', value: '' }],
      })
      assert.equal(changed.statusCode, 200)
      assert.deepEqual(await stale(), [])
      assert.deepEqual(await shown(ana), { tags: ['Cold'], fields: [{ field: 'Source', value: 'Event "X"\n' }] })

      const batch = await call('POST', '/contacts/batch', {
        contacts: [
          { first_name: 'Bo', email: 'bo@example.com', tags: [hot.id, cold.id], custom_fields: [{ field: 'Size', value: 'L' }] },
          { first_name: 'Cy', email: 'cy@example.com', tags: [hot.id], custom_fields: [{ field: 'Source', value: 'Web' }] },
        ],
      })
      assert.equal(batch.statusCode, 200)
      assert.deepEqual(batch.json().results.map((r: { status: number }) => r.status), [200, 201])
      const cy = batch.json().results[1].id as number
      assert.deepEqual(await stale(), [])
      assert.deepEqual(await shown(bare), { tags: ['Hot "lead" \\ ünïcode', 'Cold'], fields: [{ field: 'Size', value: 'L' }] })

      assert.equal((await call('PUT', `/tags/${hot.id}`, { name: 'Warm', color: '#ffaa00' })).statusCode, 200)
      assert.equal((await call('PUT', `/custom_fields/${source.id}`, { field: 'Origin', kind: 'input' })).statusCode, 200)
      assert.deepEqual(await stale(), [])
      assert.deepEqual(await shown(cy), { tags: ['Warm'], fields: [{ field: 'Origin', value: 'Web' }] })
      const [kept] = await rawRows<{ tags_json: unknown }>(t.db, sql`select tags_json from contacts where id = ${cy}`)
      assert.deepEqual(kept?.tags_json, [{ id: hot.id, name: 'Warm', color: '#ffaa00' }])

      assert.equal((await call('DELETE', `/tags/${cold.id}`)).statusCode, 204)
      assert.equal((await call('DELETE', `/custom_fields/${size.id}`)).statusCode, 204)
      assert.deepEqual(await stale(), [])
      assert.deepEqual(await shown(ana), { tags: [], fields: [{ field: 'Origin', value: 'Event "X"\n' }] })
      assert.deepEqual(await shown(bare), { tags: ['Warm'], fields: [] })

      // The page reads the same columns.
      const page = await call('GET', '/contacts?page=1')
      assert.equal(page.statusCode, 200)
      assert.deepEqual(page.json().data.map((c: { id: number; tags: { name: string }[] }) => [c.id, c.tags.map((tag) => tag.name)]),
        [[ana, []], [bare, ['Warm']], [cy, ['Warm']]])
    })
  })
}
