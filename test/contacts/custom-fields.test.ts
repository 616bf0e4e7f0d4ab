import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { rawRows, sql } from '../helpers/sql.js'
import { backends, startApp, type TestApp } from '../helpers/app.js'
import { addContact, addCustomField } from '../helpers/contacts-factories.js'
import { tenant, type Tenant } from '../helpers/factories.js'

/** A custom_fields row, every column (the queries select *). */
interface FieldRow {
  company_id: number
  id: number
  field: string
  kind: string
  options: { name: string }[]
  created_at: Date
  updated_at: Date
}

for (const backend of backends()) {
  describe(`custom fields (${backend.name})`, () => {
    let t: TestApp
    let acme: Tenant
    let other: Tenant

    before(async () => {
      t = await startApp(backend)
      acme = await tenant(t.db, { name: 'Acme' })
      other = await tenant(t.db, { name: 'Other' })
    })
    after(() => t.close())

    const rowsOf = (companyId: number) =>
      rawRows<FieldRow>(t.db, sql`select * from custom_fields where company_id = ${companyId} order by id`)
    const rowsById = (id: number) => rawRows<FieldRow>(t.db, sql`select * from custom_fields where id = ${id}`)
    const post = (payload: object | string, who = acme, contentType = 'application/json') =>
      t.app.inject({ method: 'POST', url: '/api/v1/custom_fields', headers: { ...who.auth, 'content-type': contentType }, payload })
    const put = (id: number, payload: object, who = acme) =>
      t.app.inject({ method: 'PUT', url: `/api/v1/custom_fields/${id}`, headers: who.auth, payload })

    test('POST creates each kind: 201, Location, the record, the row', async () => {
      for (const kind of ['input', 'textarea', 'email', 'telephone', 'date']) {
        const res = await post({ field: `My ${kind}`, kind })
        assert.equal(res.statusCode, 201, res.body)
        const body = res.json()
        assert.equal(res.headers.location, `/api/v1/custom_fields/${body.id}`)
        assert.deepEqual(Object.keys(body).sort(), ['created_at', 'field', 'id', 'kind', 'options', 'updated_at'])
        assert.deepEqual([body.field, body.kind, body.options], [`My ${kind}`, kind, []])
      }
      const dropdown = await post({ custom_field: { field: 'Size', kind: 'dropdown', options: [{ name: 'S' }, { name: 'M' }] } })
      assert.equal(dropdown.statusCode, 201)
      assert.deepEqual(dropdown.json().options, [{ name: 'S' }, { name: 'M' }])
      const [row] = await rowsById(dropdown.json().id)
      assert.deepEqual(row?.options, [{ name: 'S' }, { name: 'M' }])
      assert.equal(row.company_id, acme.companyId)
    })

    test('a form body with options', async () => {
      const res = await post(
        'custom_field[field]=Colour&custom_field[kind]=dropdown&custom_field[options][][name]=Red&custom_field[options][][name]=Blue',
        acme,
        'application/x-www-form-urlencoded',
      )
      assert.equal(res.statusCode, 201, res.body)
      assert.deepEqual(res.json().options, [{ name: 'Red' }, { name: 'Blue' }])
    })

    test('options are ignored for kinds other than dropdown', async () => {
      const res = await post({ field: 'Notes', kind: 'textarea', options: [{ name: 'x' }] })
      assert.equal(res.statusCode, 201)
      assert.deepEqual(res.json().options, [])
    })

    test('bad input: 422 naming the field, nothing stored', async () => {
      const before = await rowsOf(acme.companyId)
      const cases: [object, string, string[]][] = [
        [{ kind: 'input' }, 'field', ["can't be blank"]],
        [{ field: ' ', kind: 'input' }, 'field', ["can't be blank"]],
        [{ field: 'x'.repeat(256), kind: 'input' }, 'field', ['is too long (maximum is 255 characters)']],
        [{ field: 'F' }, 'kind', ["can't be blank"]],
        [{ field: 'F', kind: 'number' }, 'kind', ['is not included in the list']],
        [{ field: 'F', kind: '' }, 'kind', ['is not included in the list']],
        [{ field: 'F', kind: 'dropdown' }, 'options', ['must have at least 1 item for a dropdown']],
        [{ field: 'F', kind: 'dropdown', options: [] }, 'options', ['must have at least 1 item for a dropdown']],
        [{ field: 'F', kind: 'dropdown', options: null }, 'options', ['must have at least 1 item for a dropdown']],
        [{ field: 'F', kind: 'dropdown', options: [{ name: 'A' }, { name: ' ' }] }, 'options', ["name can't be blank"]],
        [{ field: 'F', kind: 'dropdown', options: [{}] }, 'options', ["name can't be blank"]],
        [{ field: 'F', kind: 'dropdown', options: [{ name: 'A' }, { name: 'a' }] }, 'options', ['name "a" is given more than once']],
        [{ field: 'F', kind: 'dropdown', options: 'A' }, 'options', ['must be a list']],
        [{ field: 'F', kind: 'dropdown', options: [{ name: 5 }] }, 'options', ['must be a string']],
      ]
      for (const [payload, field, messages] of cases) {
        const res = await post(payload)
        assert.equal(res.statusCode, 422, JSON.stringify(payload))
        assert.deepEqual(res.json().error.details, { [field]: messages }, JSON.stringify(payload))
      }
      assert.deepEqual(await rowsOf(acme.companyId), before)
    })

    test('field is unique per company, case-insensitively; concurrent creates: one wins', async () => {
      assert.equal((await post({ field: 'Birthday', kind: 'date' })).statusCode, 201)
      const dup = await post({ field: 'BIRTHDAY', kind: 'input' })
      assert.equal(dup.statusCode, 422)
      assert.deepEqual(dup.json().error.details, { field: ['has already been taken'] })
      assert.equal((await post({ field: 'birthday', kind: 'date' }, other)).statusCode, 201)

      const results = await Promise.all([post({ field: 'Race', kind: 'input' }), post({ field: 'RACE', kind: 'input' })])
      assert.deepEqual(results.map((r) => r.statusCode).sort(), [201, 422])
      assert.equal((await rowsOf(acme.companyId)).filter((r) => r.field.toLowerCase() === 'race').length, 1)
    })

    test('GET lists the company definitions, id ascending, unpaged', async () => {
      const res = await t.app.inject({ url: '/api/v1/custom_fields', headers: acme.auth })
      assert.equal(res.statusCode, 200)
      const rows = await rowsOf(acme.companyId)
      assert.deepEqual(res.json().data.map((f: { id: number }) => f.id), rows.map((r) => r.id))
      assert.deepEqual(res.json().meta, { total_count: rows.length })
      const theirs = await t.app.inject({ url: '/api/v1/custom_fields', headers: other.auth })
      assert.deepEqual(theirs.json().data.map((f: { field: string }) => f.field), ['birthday'])
    })

    test('PUT changes a definition; omitted options are kept; 404 missing or foreign; 422 taken', async () => {
      const field = await addCustomField(t.db, acme, { field: 'Plan', kind: 'dropdown', options: [{ name: 'Free' }] })
      const renamed = await put(field.id, { field: 'Plan name', kind: 'dropdown' })
      assert.equal(renamed.statusCode, 200)
      assert.deepEqual(renamed.json().options, [{ name: 'Free' }])
      assert.equal(renamed.json().field, 'Plan name')
      const reoptioned = await put(field.id, { custom_field: { field: 'Plan name', kind: 'dropdown', options: [{ name: 'Pro' }, { name: 'Team' }] } })
      assert.deepEqual(reoptioned.json().options, [{ name: 'Pro' }, { name: 'Team' }])
      const [row] = await rowsById(field.id)
      assert.deepEqual(row?.options, [{ name: 'Pro' }, { name: 'Team' }])

      const toInput = await put(field.id, { field: 'Plan name', kind: 'input' })
      assert.deepEqual([toInput.json().kind, toInput.json().options], ['input', []])
      const backWithout = await put(field.id, { field: 'Plan name', kind: 'dropdown' })
      assert.equal(backWithout.statusCode, 422)
      assert.deepEqual(backWithout.json().error.details, { options: ['must have at least 1 item for a dropdown'] })

      const taken = await put(field.id, { field: 'birthday', kind: 'input' })
      assert.deepEqual(taken.json().error.details, { field: ['has already been taken'] })

      const foreign = await addCustomField(t.db, other, { field: 'Theirs' })
      for (const id of [foreign.id, 987654]) {
        const res = await put(id, { field: 'X', kind: 'input' })
        assert.equal(res.statusCode, 404)
      }
      const [theirs] = await rowsById(foreign.id)
      assert.equal(theirs?.field, 'Theirs')
      const missing = await put(field.id, {})
      assert.deepEqual(missing.json().error.details, { field: ["can't be blank"], kind: ["can't be blank"] })
    })

    test('a refused PUT changes nothing; a missing or foreign id is 404 before any problem of the options', async () => {
      const field = await addCustomField(t.db, acme, { field: 'Tier', kind: 'input' })
      const before = await rowsById(field.id)
      for (const payload of [
        { field: 'Tier 2', kind: 'dropdown' },
        { field: 'Tier 2', kind: 'dropdown', options: null },
        { field: 'Tier 2', kind: 'dropdown', options: [{ name: 'A' }, { name: 'a' }] },
        { field: 'Tier 2', kind: 'dropdown', options: [{ name: ' ' }] },
      ]) {
        const res = await put(field.id, payload)
        assert.equal(res.statusCode, 422, JSON.stringify(payload))
        assert.deepEqual(Object.keys(res.json().error.details), ['options'], JSON.stringify(payload))
        assert.deepEqual(await rowsById(field.id), before)
      }
      const foreign = await addCustomField(t.db, other, { field: 'Their tier' })
      for (const id of [foreign.id, 987655]) {
        for (const payload of [{ field: 'X', kind: 'dropdown' }, { field: 'X', kind: 'dropdown', options: [] }]) {
          assert.equal((await put(id, payload)).statusCode, 404, `${id} ${JSON.stringify(payload)}`)
        }
      }
    })

    test('every write answers exactly the record a later GET lists', async () => {
      const listed = async (id: number) => {
        const res = await t.app.inject({ url: '/api/v1/custom_fields', headers: acme.auth })
        return JSON.stringify(res.json<{ data: { id: number }[] }>().data.find((f) => f.id === id))
      }
      const created = await post({ field: 'Echo', kind: 'dropdown', options: [{ name: 'Ünï' }, { name: '"quoted"' }] })
      assert.equal(created.statusCode, 201)
      const id = created.json<{ id: number }>().id
      assert.equal(created.body, await listed(id))
      for (const payload of [{ field: 'Echo 2', kind: 'dropdown' }, { field: 'Echo 3', kind: 'date', options: [{ name: 'x' }] }]) {
        const res = await put(id, payload)
        assert.equal(res.statusCode, 200, res.body)
        assert.equal(res.body, await listed(id))
      }
    })

    test('DELETE removes the definition and its values on contacts; 404 after and for foreign ids', async () => {
      const doomed = await addCustomField(t.db, acme, { field: 'Doomed' })
      const kept = await addCustomField(t.db, acme, { field: 'Kept' })
      const contact = await addContact(t.db, acme, { custom_fields: [{ field: 'Doomed', value: 'a' }, { field: 'Kept', value: 'b' }] })

      assert.equal((await t.app.inject({ method: 'DELETE', url: `/api/v1/custom_fields/${doomed.id}`, headers: other.auth })).statusCode, 404)
      const res = await t.app.inject({ method: 'DELETE', url: `/api/v1/custom_fields/${doomed.id}`, headers: acme.auth })
      assert.equal(res.statusCode, 204)
      assert.equal(res.body, '')
      assert.equal((await rowsById(doomed.id)).length, 0)
      const values = await rawRows<{ custom_field_id: number; value: string }>(t.db, sql`
        select custom_field_id, value from contact_custom_values where contact_id = ${contact.id}`)
      assert.deepEqual(values.map((v) => [v.custom_field_id, v.value]), [[kept.id, 'b']])
      const read = await t.app.inject({ url: `/api/v1/contacts/${contact.id}`, headers: acme.auth })
      assert.deepEqual(read.json().custom_fields, [{ field: 'Kept', value: 'b' }])
      assert.equal((await t.app.inject({ method: 'DELETE', url: `/api/v1/custom_fields/${doomed.id}`, headers: acme.auth })).statusCode, 404)
    })
  })
}
