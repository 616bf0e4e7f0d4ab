import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { rawRows, sql } from '../helpers/sql.js'
import { backends, startApp, type TestApp } from '../helpers/app.js'
import { addContact, addCustomField, addTag } from '../helpers/contacts-factories.js'
import { counterValue } from '../helpers/counters.js'
import { addUser, tenant, type Tenant } from '../helpers/factories.js'

const FIELDS = [
  'address', 'business', 'carousel', 'cellphone', 'city', 'contact_group_id', 'country', 'created_at', 'custom_fields',
  'email', 'first_name', 'id', 'last_name', 'linkedin', 'position', 'stage', 'state', 'tags', 'telephone', 'updated_at',
  'url', 'user_id', 'variable1', 'variable2', 'variable3',
]

/** The columns of a contacts row these tests read (the queries select them all, *). */
interface ContactRow {
  company_id: number
  user_id: number
  deleted_at: Date | null
  first_name: string
  city: string | null
  business: string | null
  business_id: number | null
  email: string
}

for (const backend of backends()) {
  describe(`contacts (${backend.name})`, () => {
    let t: TestApp
    let acme: Tenant
    let other: Tenant
    let now = new Date('2026-03-01T12:00:00.000Z')
    const tick = () => (now = new Date(now.getTime() + 60_000))
    let hot: { id: number }
    let vip: { id: number }
    let foreignTag: { id: number }

    before(async () => {
      t = await startApp(backend, { deps: { clock: () => now } })
      acme = await tenant(t.db, { name: 'Acme' })
      other = await tenant(t.db, { name: 'Other' })
      vip = await addTag(t.db, acme, { name: 'VIP', color: '#ffd700' })
      hot = await addTag(t.db, acme, { name: 'Hot', color: '#f00' })
      foreignTag = await addTag(t.db, other, { name: 'Theirs' })
      await addCustomField(t.db, acme, { field: 'Size', kind: 'dropdown', options: [{ name: 'S' }, { name: 'M' }, { name: 'XL' }] })
      await addCustomField(t.db, acme, { field: 'Birthday', kind: 'date' })
      await addCustomField(t.db, acme, { field: 'Work email', kind: 'email' })
      await addCustomField(t.db, acme, { field: 'Office phone', kind: 'telephone' })
      await addCustomField(t.db, acme, { field: 'Notes', kind: 'textarea' })
      await addCustomField(t.db, other, { field: 'Secret', kind: 'input' })
    })
    after(() => t.close())

    const post = (payload: object | string, who = acme, contentType = 'application/json') =>
      t.app.inject({ method: 'POST', url: '/api/v1/contacts', headers: { ...who.auth, 'content-type': contentType }, payload })
    const put = (id: number, payload: object, who = acme) =>
      t.app.inject({ method: 'PUT', url: `/api/v1/contacts/${id}`, headers: who.auth, payload })
    const get = (url: string, who = acme) => t.app.inject({ url, headers: who.auth })
    const del = (id: number, who = acme) => t.app.inject({ method: 'DELETE', url: `/api/v1/contacts/${id}`, headers: who.auth })
    const counter = (companyId: number, list: string, key = 0) => counterValue(t.db, companyId, list, key)
    const liveContacts = (companyId: number) =>
      rawRows<ContactRow>(t.db, sql`select * from contacts where company_id = ${companyId} and deleted_at is null`)
    const liveCount = async (companyId: number) =>
      (await rawRows<{ id: number }>(t.db, sql`select id from contacts where company_id = ${companyId} and deleted_at is null`)).length
    const eventsOf = (contactId: number) =>
      rawRows<{ kind: string; user_id: number | null; occurred_at: Date; data: Record<string, unknown> }>(t.db, sql`
        select kind, user_id, occurred_at, data from contact_events where contact_id = ${contactId} order by id`)
    /** The contact's row, all columns (none when there is no such id). */
    const contactRows = (id: number) => rawRows<ContactRow>(t.db, sql`select * from contacts where id = ${id}`)
    const tagsOf = (contactId: number) => rawRows<{ tag_id: number }>(t.db, sql`select tag_id from contact_tags where contact_id = ${contactId}`)
    const businessesOf = (companyId: number) =>
      rawRows<{ id: number; name: string }>(t.db, sql`select id, name from businesses where company_id = ${companyId}`)
    const minimal = (email: string) => ({ first_name: 'Min', email })

    test('POST creates a contact with every field: 201, Location, record, rows, event, counters', async () => {
      const before = await counter(acme.companyId, 'contacts')
      tick()
      const res = await post({
        contact: {
          first_name: 'Ana',
          last_name: 'Souza',
          email: 'Ana.Souza@Globex.example',
          business: 'Globex',
          position: 'Head of Sales',
          telephone: '+55 (11) 3333-4444',
          cellphone: '11 98765.4321',
          address: 'Rua A, 1',
          city: 'São Paulo',
          state: 'SP',
          country: 'Brazil',
          url: 'https://globex.example',
          linkedin: 'https://linkedin.com/in/ana',
          variable1: 'v1',
          variable2: 'v2',
          variable3: 'v3',
          carousel: 'true',
          stage: 'lead',
          contact_group_id: '12',
          user_id: other.userId,
          tags: [hot.id, vip.id, hot.id],
          custom_fields: [
            { field: 'size', value: 'XL' },
            { field: 'Birthday', value: '1990-02-28' },
            { field: 'Notes', value: '' },
          ],
        },
      })
      assert.equal(res.statusCode, 201, res.body)
      const body = res.json()
      assert.equal(res.headers.location, `/api/v1/contacts/${body.id}`)
      assert.deepEqual(Object.keys(body).sort(), FIELDS)
      assert.deepEqual(body, {
        id: body.id,
        user_id: acme.userId,
        first_name: 'Ana',
        last_name: 'Souza',
        email: 'Ana.Souza@Globex.example',
        business: 'Globex',
        position: 'Head of Sales',
        telephone: '+55 (11) 3333-4444',
        cellphone: '11 98765.4321',
        address: 'Rua A, 1',
        city: 'São Paulo',
        state: 'SP',
        country: 'Brazil',
        url: 'https://globex.example',
        linkedin: 'https://linkedin.com/in/ana',
        variable1: 'v1',
        variable2: 'v2',
        variable3: 'v3',
        carousel: true,
        stage: 'lead',
        contact_group_id: 12,
        tags: [
          { id: vip.id, name: 'VIP', color: '#ffd700' },
          { id: hot.id, name: 'Hot', color: '#f00' },
        ],
        custom_fields: [
          { field: 'Size', value: 'XL' },
          { field: 'Birthday', value: '1990-02-28' },
        ],
        created_at: now.toISOString(),
        updated_at: now.toISOString(),
      })

      const [row] = await contactRows(body.id)
      assert.equal(row?.company_id, acme.companyId)
      assert.equal(row.user_id, acme.userId, 'user_id is ignored on create')
      assert.ok(row.business_id)
      const [business] = await rawRows<{ name: string }>(t.db, sql`select name from businesses where id = ${row.business_id}`)
      assert.equal(business?.name, 'Globex')
      assert.equal((await tagsOf(body.id)).length, 2)
      assert.equal((await rawRows<{ custom_field_id: number }>(t.db, sql`
        select custom_field_id from contact_custom_values where contact_id = ${body.id}`)).length, 2)
      const events = await eventsOf(body.id)
      assert.deepEqual(events.map((e) => [e.kind, e.user_id, e.occurred_at.toISOString()]), [['contact_created', acme.userId, now.toISOString()]])
      assert.equal(await counter(acme.companyId, 'contacts'), before + 1)
      assert.equal(await counter(acme.companyId, 'contacts'), await liveCount(acme.companyId))
    })

    test('POST with only the required fields: defaults', async () => {
      const res = await post(minimal('min@example.com'))
      assert.equal(res.statusCode, 201)
      const body = res.json()
      assert.equal(body.carousel, false)
      assert.equal(body.stage, null)
      assert.equal(body.business, null)
      assert.deepEqual(body.tags, [])
      assert.deepEqual(body.custom_fields, [])
      const [row] = await contactRows(body.id)
      assert.equal(row?.business_id, null)
    })

    test('the longest values fit: 255 characters (code points) in each text field, 1,000 in address', async () => {
      const long = '😀'.repeat(255)
      const fields = ['first_name', 'last_name', 'business', 'position', 'city', 'state', 'country', 'url', 'linkedin', 'variable1', 'variable2', 'variable3']
      const res = await post({ ...minimal('longest@example.com'), ...Object.fromEntries(fields.map((field) => [field, long])), address: 'é'.repeat(1000) })
      assert.equal(res.statusCode, 201, res.body)
      const body = res.json<Record<string, unknown>>()
      for (const field of fields) assert.equal(body[field], long, field)
      assert.equal(body.address, 'é'.repeat(1000))
    })

    test('carousel takes true/false as strings or booleans', async () => {
      let n = 0
      for (const [value, expected] of [[true, true], [false, false], ['false', false], ['true', true], [null, false]] as const) {
        const res = await post({ ...minimal(`carousel-${n++}@example.com`), carousel: value })
        assert.equal(res.statusCode, 201, res.body)
        assert.equal(res.json().carousel, expected)
      }
    })

    test('a Rails-style form body with tags and custom fields', async () => {
      const res = await post(
        `contact[first_name]=Form&contact[email]=form%40example.com&contact[carousel]=true&contact[tags][]=${hot.id}` +
          '&contact[custom_fields][][field]=Size&contact[custom_fields][][value]=M&contact[stage]=&contact[contact_group_id]=',
        acme,
        'application/x-www-form-urlencoded',
      )
      assert.equal(res.statusCode, 201, res.body)
      assert.deepEqual(res.json().tags.map((x: { id: number }) => x.id), [hot.id])
      assert.deepEqual(res.json().custom_fields, [{ field: 'Size', value: 'M' }])
      assert.equal(res.json().carousel, true)
      assert.equal(res.json().stage, null)
    })

    test('phone numbers: 7-20 digits with + ( ) - . and spaces', async () => {
      let n = 0
      for (const phone of ['1234567', '+55 (11) 98765-4321', '555.123.4567', '12345678901234567890', '(11) 3333 4444', '']) {
        const res = await post({ ...minimal(`phone${n++}@example.com`), telephone: phone, cellphone: phone })
        assert.equal(res.statusCode, 201, phone)
        assert.equal(res.json().telephone, phone)
      }
      for (const phone of ['123456', '123456789012345678901', '12345a67', '55+1234567', '++551234567', '+', '1234567 ext 8', '1234567#']) {
        for (const field of ['telephone', 'cellphone']) {
          const res = await post({ ...minimal(`bad-phone@example.com`), [field]: phone })
          assert.equal(res.statusCode, 422, `${field} ${phone}`)
          assert.deepEqual(res.json().error.details, { [field]: ['is invalid'] }, phone)
        }
      }
    })

    test('bad input on create: 422 naming the field, nothing stored', async () => {
      const before = await liveCount(acme.companyId)
      const total = await counter(acme.companyId, 'contacts')
      const ok = minimal('never@example.com')
      const cases: [object, Record<string, string[]>][] = [
        [{ email: 'x@example.com' }, { first_name: ["can't be blank"] }],
        [{ ...ok, first_name: '  ' }, { first_name: ["can't be blank"] }],
        [{ ...ok, first_name: 'x'.repeat(256) }, { first_name: ['is too long (maximum is 255 characters)'] }],
        [{ first_name: 'A' }, { email: ["can't be blank"] }],
        [{ ...ok, email: 'not-an-email' }, { email: ['is invalid'] }],
        [{ ...ok, email: 'a@b' }, { email: ['is invalid'] }],
        [{ ...ok, email: '' }, { email: ["can't be blank", 'is invalid'] }],
        [{ ...ok, email: `${'a'.repeat(250)}@x.com` }, { email: ['is too long (maximum is 255 characters)'] }],
        [{ ...ok, stage: 'customer' }, { stage: ['is not included in the list'] }],
        [{ ...ok, carousel: 'yes' }, { carousel: ['must be true or false'] }],
        [{ ...ok, carousel: 1 }, { carousel: ['must be true or false'] }],
        [{ ...ok, last_name: 'x'.repeat(256) }, { last_name: ['is too long (maximum is 255 characters)'] }],
        [{ ...ok, address: 'x'.repeat(1001) }, { address: ['is too long (maximum is 1000 characters)'] }],
        [{ ...ok, city: 'x'.repeat(256) }, { city: ['is too long (maximum is 255 characters)'] }],
        [{ ...ok, variable3: 'x'.repeat(256) }, { variable3: ['is too long (maximum is 255 characters)'] }],
        [{ ...ok, business: 5 }, { business: ['must be a string'] }],
        [{ ...ok, contact_group_id: 'abc' }, { contact_group_id: ['must be an integer'] }],
        [{ ...ok, tags: 'VIP' }, { tags: ['must be a list'] }],
        [{ ...ok, tags: ['abc'] }, { tags: ['must be an integer'] }],
        [{ ...ok, tags: [0] }, { tags: ['must be greater than or equal to 1'] }],
        [{ ...ok, tags: [999999] }, { tags: ['does not exist: 999999'] }],
        [{ ...ok, tags: [vip.id, foreignTag.id] }, { tags: [`does not exist: ${foreignTag.id}`] }],
        [{ ...ok, custom_fields: 'x' }, { custom_fields: ['must be a list'] }],
        [{ ...ok, custom_fields: [{ value: 'x' }] }, { custom_fields: ["field can't be blank"] }],
        [{ ...ok, custom_fields: [{ field: 'Nope', value: 'x' }] }, { custom_fields: ['Nope does not exist'] }],
        [{ ...ok, custom_fields: [{ field: 'Secret', value: 'x' }] }, { custom_fields: ['Secret does not exist'] }],
        [{ ...ok, custom_fields: [{ field: 'Size', value: 'XXL' }] }, { custom_fields: ['Size is not included in the list'] }],
        [{ ...ok, custom_fields: [{ field: 'Size', value: 'xl' }] }, { custom_fields: ['Size is not included in the list'] }],
        [{ ...ok, custom_fields: [{ field: 'Birthday', value: '2023-02-29' }] }, { custom_fields: ['Birthday must be a date (yyyy-mm-dd)'] }],
        [{ ...ok, custom_fields: [{ field: 'Birthday', value: '01/02/1990' }] }, { custom_fields: ['Birthday must be a date (yyyy-mm-dd)'] }],
        [{ ...ok, custom_fields: [{ field: 'Work email', value: 'nope' }] }, { custom_fields: ['Work email is invalid'] }],
        [{ ...ok, custom_fields: [{ field: 'Office phone', value: '123' }] }, { custom_fields: ['Office phone is invalid'] }],
        [{ ...ok, custom_fields: [{ field: 'Size', value: 'S' }, { field: 'SIZE', value: 'M' }] }, { custom_fields: ['Size is given more than once'] }],
        [{ ...ok, custom_fields: [{ field: 'Notes', value: 'x'.repeat(256) }] }, { custom_fields: ['is too long (maximum is 255 characters)'] }],
        [
          { ...ok, tags: [424242], custom_fields: [{ field: 'Nope' }] },
          { tags: ['does not exist: 424242'], custom_fields: ['Nope does not exist'] },
        ],
      ]
      for (const [payload, details] of cases) {
        const res = await post(payload)
        assert.equal(res.statusCode, 422, JSON.stringify(payload).slice(0, 200))
        assert.equal(res.json().error.message, 'Could not save the entity')
        assert.deepEqual(res.json().error.details, details, JSON.stringify(payload).slice(0, 200))
      }
      assert.equal(await liveCount(acme.companyId), before)
      assert.equal(await counter(acme.companyId, 'contacts'), total)
      assert.equal((await rawRows<{ id: number }>(t.db, sql`select id from contacts where email = 'never@example.com'`)).length, 0)
    })

    test('valid custom field values of every kind', async () => {
      const res = await post({
        ...minimal('kinds@example.com'),
        custom_fields: [
          { field: 'Notes', value: 'Likes golf' },
          { field: 'Office phone', value: '+1 (555) 010-9999' },
          { field: 'Work email', value: 'ana@work.example' },
          { field: 'Birthday', value: '2024-02-29' },
          { field: 'Size', value: 'S' },
        ],
      })
      assert.equal(res.statusCode, 201, res.body)
      assert.deepEqual(res.json().custom_fields, [
        { field: 'Size', value: 'S' },
        { field: 'Birthday', value: '2024-02-29' },
        { field: 'Work email', value: 'ana@work.example' },
        { field: 'Office phone', value: '+1 (555) 010-9999' },
        { field: 'Notes', value: 'Likes golf' },
      ])
    })

    test('email is unique among live contacts, case-insensitively; other companies may reuse it', async () => {
      assert.equal((await post(minimal('taken@example.com'))).statusCode, 201)
      const dup = await post(minimal('TAKEN@Example.com'))
      assert.equal(dup.statusCode, 422)
      assert.deepEqual(dup.json().error.details, { email: ['has already been taken'] })
      assert.equal((await post(minimal('taken@example.com'), other)).statusCode, 201)
    })

    test('two concurrent creates with one email: exactly one wins, counters stay right', async () => {
      const results = await Promise.all([
        post({ ...minimal('race@example.com'), business: 'Race Inc' }),
        post({ ...minimal('RACE@example.com'), business: 'race inc' }),
        post({ ...minimal('Race@Example.com'), business: 'RACE INC' }),
      ])
      assert.deepEqual(results.map((r) => r.statusCode).sort(), [201, 422, 422])
      const rows = await liveContacts(acme.companyId)
      assert.equal(rows.filter((r) => r.email.toLowerCase() === 'race@example.com').length, 1)
      assert.equal(await counter(acme.companyId, 'contacts'), rows.length)
      const raceBusinesses = (await businessesOf(acme.companyId)).filter(
        (b) => b.name.toLowerCase() === 'race inc',
      )
      assert.equal(raceBusinesses.length, 1)
    })

    test('concurrent creates of one company add to the counter slots of their connections; the totals stay exact', async () => {
      const crowd = await tenant(t.db, { name: 'Crowd' })
      const created = await Promise.all(Array.from({ length: 30 }, (_, i) => post(minimal(`crowd${String(i)}@example.com`), crowd)))
      assert.ok(created.every((res) => res.statusCode === 201))
      const slots = await rawRows<{ list: string; slots: number; total: number }>(t.db, sql`
        select list, count(*)::int as slots, sum(value)::int as total from counters
         where company_id = ${crowd.companyId} and list in ('contacts', 'contacts_by_user') group by list order by list`)
      assert.deepEqual(slots.map((row) => [row.list, row.total]), [['contacts', 30], ['contacts_by_user', 30]])
      assert.ok(slots.every((row) => row.slots > 1), `spread over slots: ${JSON.stringify(slots)}`)
      const listed = await get('/api/v1/contacts?page=1&per_page=5', crowd)
      assert.equal(listed.json().meta.total_count, 30)
      for (const res of created.slice(0, 10)) assert.equal((await del(res.json().id as number, crowd)).statusCode, 204)
      assert.equal(await counter(crowd.companyId, 'contacts'), 20)
      assert.equal(await counter(crowd.companyId, 'contacts_by_user', crowd.userId), 20)
    })

    test('GET by id: the contact; 404 for a missing, foreign or deleted one; 422 for a bad id', async () => {
      const created = await addContact(t.db, acme, { first_name: 'Gil', tags: [hot.id], custom_fields: [{ field: 'Size', value: 'M' }] })
      const res = await get(`/api/v1/contacts/${created.id}`)
      assert.equal(res.statusCode, 200)
      assert.deepEqual(res.json(), JSON.parse(JSON.stringify(created)))
      const theirs = await addContact(t.db, other)
      for (const url of [`/api/v1/contacts/${theirs.id}`, '/api/v1/contacts/99999999']) {
        const missing = await get(url)
        assert.equal(missing.statusCode, 404)
        assert.equal(missing.json().error.message, 'Not found')
      }
      for (const id of ['abc', '0', '-1']) {
        const bad = await get(`/api/v1/contacts/${id}`)
        assert.equal(bad.statusCode, 422)
        assert.ok(bad.json().error.details.id)
      }
    })

    test('GET by id writes the JSON PostgreSQL built byte for byte as the serializer writes the same contact', async () => {
      // Quotes, backslashes, control characters, U+2028, DEL, astral characters, nulls,
      // tags and fields: the by-id body (row_to_json) against POST's answer and the
      // list page's item (both through the response schema's serializer).
      const awkward = 'q"b\\s/\b\f\n\r\t\u0001\u001f\u007f\u2028\u2029 é 😀 </script>'
      const tag = await addTag(t.db, acme, { name: `T ${awkward}`, color: '#0f0' })
      const created = await post({
        first_name: awkward, last_name: null, email: 'bytes@example.com', business: awkward, position: '',
        variable1: awkward, carousel: 'true', stage: 'sql', tags: [tag.id, hot.id],
        custom_fields: [{ field: 'Notes', value: awkward }, { field: 'Size', value: 'XL' }],
      })
      assert.equal(created.statusCode, 201, created.body)
      const { id } = created.json<{ id: number }>()
      const res = await get(`/api/v1/contacts/${id}`)
      assert.equal(res.statusCode, 200)
      assert.equal(res.headers['content-type'], 'application/json; charset=utf-8')
      assert.equal(res.body, created.body)
      assert.deepEqual(Object.keys(res.json<object>()), Object.keys(created.json<object>()))
      const page = await get('/api/v1/contacts?page=1&per_page=100')
      const item = page.json<{ data: { id: number }[] }>().data.find((c) => c.id === id)
      assert.equal(res.body, JSON.stringify(item))
      assert.ok(page.body.includes(res.body), 'the page holds the same bytes')
    })

    test('PUT requires first_name, email and business', async () => {
      const contact = await addContact(t.db, acme, { business: 'Keep' })
      const res = await put(contact.id, {})
      assert.equal(res.statusCode, 422)
      assert.deepEqual(res.json().error.details, {
        first_name: ["can't be blank"],
        email: ["can't be blank"],
        business: ["can't be blank"],
      })
      const noBusiness = await put(contact.id, { first_name: 'A', email: contact.email })
      assert.deepEqual(noBusiness.json().error.details, { business: ["can't be blank"] })
      const [row] = await contactRows(contact.id)
      assert.equal(row?.business, 'Keep')
    })

    test('PUT: omitted optional fields stay, null clears, changes recorded as events', async () => {
      tick()
      const contact = await addContact(t.db, acme, {
        first_name: 'Bia',
        last_name: 'Costa',
        email: 'bia@example.com',
        business: 'Initech',
        city: 'Rio',
        position: 'CTO',
        stage: 'lead',
        carousel: true,
        tags: [hot.id],
        custom_fields: [{ field: 'Size', value: 'M' }, { field: 'Notes', value: 'n1' }],
      }, now)
      const created = now
      tick()
      const res = await put(contact.id, {
        contact: {
          first_name: 'Beatriz',
          email: 'bia@example.com',
          business: 'Initech',
          city: null,
          stage: 'mql',
          carousel: 'false',
          tags: [vip.id],
          custom_fields: [{ field: 'Size', value: 'XL' }, { field: 'notes', value: '' }, { field: 'Birthday', value: '2000-01-01' }],
        },
      })
      assert.equal(res.statusCode, 200, res.body)
      const body = res.json()
      assert.equal(body.first_name, 'Beatriz')
      assert.equal(body.last_name, 'Costa', 'omitted: unchanged')
      assert.equal(body.position, 'CTO', 'omitted: unchanged')
      assert.equal(body.city, null, 'null clears')
      assert.equal(body.stage, 'mql')
      assert.equal(body.carousel, false)
      assert.deepEqual(body.tags, [{ id: vip.id, name: 'VIP', color: '#ffd700' }])
      assert.deepEqual(body.custom_fields, [{ field: 'Size', value: 'XL' }, { field: 'Birthday', value: '2000-01-01' }])
      assert.equal(body.created_at, created.toISOString())
      assert.equal(body.updated_at, now.toISOString())

      const [row] = await contactRows(contact.id)
      assert.equal(row?.first_name, 'Beatriz')
      assert.equal(row.city, null)
      assert.deepEqual((await tagsOf(contact.id)).map((r) => r.tag_id), [vip.id])

      const events = await eventsOf(contact.id)
      assert.deepEqual(events.map((e) => e.kind), ['contact_created', 'contact_updated', 'stage_changed', 'tag_added', 'tag_removed'])
      assert.deepEqual(events[1]?.data, {
        changes: {
          first_name: ['Bia', 'Beatriz'],
          city: ['Rio', null],
          carousel: [true, false],
          stage: ['lead', 'mql'],
          custom_fields: [
            [{ field: 'Size', value: 'M' }, { field: 'Notes', value: 'n1' }],
            [{ field: 'Size', value: 'XL' }, { field: 'Birthday', value: '2000-01-01' }],
          ],
        },
      })
      assert.deepEqual(events[2]?.data, { from: 'lead', to: 'mql' })
      assert.deepEqual(events[3]?.data, { tag_id: vip.id, name: 'VIP' })
      assert.deepEqual(events[4]?.data, { tag_id: hot.id, name: 'Hot' })
      assert.ok(events.slice(1).every((e) => e.user_id === acme.userId && e.occurred_at.toISOString() === now.toISOString()))
    })

    test('PUT with nothing different changes nothing and records nothing', async () => {
      const contact = await addContact(t.db, acme, { business: 'Same', stage: 'client', tags: [hot.id], custom_fields: [{ field: 'Size', value: 'S' }] })
      const events = (await eventsOf(contact.id)).length
      tick()
      const res = await put(contact.id, {
        first_name: contact.first_name,
        email: contact.email,
        business: 'Same',
        stage: 'client',
        tags: [hot.id],
        custom_fields: [{ field: 'Size', value: 'S' }],
      })
      assert.equal(res.statusCode, 200)
      assert.equal(res.json().updated_at, contact.updated_at)
      assert.equal((await eventsOf(contact.id)).length, events)
    })

    test('PUT: tags null or [] removes them all; omitted keeps them', async () => {
      const contact = await addContact(t.db, acme, { business: 'B', tags: [hot.id, vip.id] })
      const base = { first_name: contact.first_name, email: contact.email, business: 'B' }
      const kept = await put(contact.id, { ...base, city: 'X' })
      assert.equal(kept.json().tags.length, 2)
      const cleared = await put(contact.id, { ...base, tags: null })
      assert.deepEqual(cleared.json().tags, [])
      const kinds = (await eventsOf(contact.id)).map((e) => e.kind)
      assert.deepEqual(kinds.filter((k) => k === 'tag_removed').length, 2)
    })

    test('PUT: business changes point the contact at the (case-insensitive) business; null clears it', async () => {
      const contact = await addContact(t.db, acme, { business: 'Umbrella' })
      const base = { first_name: contact.first_name, email: contact.email }
      const [first] = await contactRows(contact.id)
      await put(contact.id, { ...base, business: 'UMBRELLA' })
      const [same] = await contactRows(contact.id)
      assert.equal(same?.business_id, first?.business_id)
      assert.equal(same?.business, 'UMBRELLA')
      await put(contact.id, { ...base, business: 'Hooli' })
      const [moved] = await contactRows(contact.id)
      assert.notEqual(moved?.business_id, first?.business_id)
      const cleared = await put(contact.id, { ...base, business: null })
      assert.equal(cleared.json().business, null)
      const [none] = await contactRows(contact.id)
      assert.equal(none?.business_id, null)
      assert.equal((await get(`/api/v1/contacts/${contact.id}/business`)).statusCode, 404)
    })

    test('PUT: user_id moves the owner (counters follow); a user of another company is 422', async () => {
      const member = await addUser(t.db, acme.companyId)
      const contact = await addContact(t.db, acme, { business: 'B' })
      const base = { first_name: contact.first_name, email: contact.email, business: 'B' }
      const mine = await counter(acme.companyId, 'contacts_by_user', acme.userId)
      const res = await put(contact.id, { ...base, user_id: String(member.id) })
      assert.equal(res.statusCode, 200)
      assert.equal(res.json().user_id, member.id)
      assert.equal(await counter(acme.companyId, 'contacts_by_user', acme.userId), mine - 1)
      assert.equal(await counter(acme.companyId, 'contacts_by_user', member.id), 1)
      const events = await eventsOf(contact.id)
      assert.deepEqual(events.at(-1)?.data, { changes: { user_id: [acme.userId, member.id] } })

      for (const userId of [other.userId, 99999999]) {
        const bad = await put(contact.id, { ...base, user_id: userId })
        assert.equal(bad.statusCode, 422)
        assert.deepEqual(bad.json().error.details, { user_id: ['does not exist'] })
      }
      const bad = await put(contact.id, { ...base, user_id: 'me' })
      assert.deepEqual(bad.json().error.details, { user_id: ['must be an integer'] })
      const [row] = await contactRows(contact.id)
      assert.equal(row?.user_id, member.id)
    })

    test('PUT: bad input is 422 and changes nothing; a taken email is 422; foreign or missing is 404', async () => {
      const contact = await addContact(t.db, acme, { business: 'B', stage: 'lead', tags: [hot.id] })
      await addContact(t.db, acme, { email: 'someone@example.com' })
      const base = { first_name: contact.first_name, email: contact.email, business: 'B' }
      const [before] = await contactRows(contact.id)
      const events = (await eventsOf(contact.id)).length
      const cases: [object, Record<string, string[]>][] = [
        [{ ...base, email: 'SOMEONE@example.com' }, { email: ['has already been taken'] }],
        [{ ...base, stage: 'won' }, { stage: ['is not included in the list'] }],
        [{ ...base, tags: [foreignTag.id] }, { tags: [`does not exist: ${foreignTag.id}`] }],
        [{ ...base, first_name: 'Changed', custom_fields: [{ field: 'Size', value: 'Huge' }] }, { custom_fields: ['Size is not included in the list'] }],
        [{ ...base, telephone: 'call me' }, { telephone: ['is invalid'] }],
      ]
      for (const [payload, details] of cases) {
        const res = await put(contact.id, payload)
        assert.equal(res.statusCode, 422, JSON.stringify(payload))
        assert.deepEqual(res.json().error.details, details)
      }
      const [after] = await contactRows(contact.id)
      assert.deepEqual(after, before)
      assert.equal((await eventsOf(contact.id)).length, events)

      const theirs = await addContact(t.db, other, { business: 'T' })
      const foreign = await put(theirs.id, { first_name: 'X', email: 'x@example.com', business: 'T' })
      assert.equal(foreign.statusCode, 404)
      const [untouched] = await contactRows(theirs.id)
      assert.equal(untouched?.first_name, theirs.first_name)
      assert.equal((await put(99999999, base)).statusCode, 404)
    })

    test('DELETE hides the contact, keeps its history, frees its email, adjusts counters', async () => {
      const contact = await addContact(t.db, acme, { email: 'leaving@example.com', business: 'Gone Inc', tags: [hot.id] })
      const total = await counter(acme.companyId, 'contacts')
      const mine = await counter(acme.companyId, 'contacts_by_user', acme.userId)
      assert.equal((await del(contact.id, other)).statusCode, 404)
      tick()
      const res = await del(contact.id)
      assert.equal(res.statusCode, 204)
      assert.equal(res.body, '')
      const [row] = await contactRows(contact.id)
      assert.equal(row?.deleted_at?.toISOString(), now.toISOString())
      assert.equal((await tagsOf(contact.id)).length, 1, 'history kept')
      assert.deepEqual((await eventsOf(contact.id)).map((e) => e.kind), ['contact_created', 'contact_deleted'])
      assert.equal(await counter(acme.companyId, 'contacts'), total - 1)
      assert.equal(await counter(acme.companyId, 'contacts_by_user', acme.userId), mine - 1)

      for (const url of [`/api/v1/contacts/${contact.id}`, `/api/v1/contacts/${contact.id}/events?page=1`, `/api/v1/contacts/${contact.id}/business`]) {
        assert.equal((await get(url)).statusCode, 404, url)
      }
      const put404 = await put(contact.id, { first_name: 'X', email: 'leaving@example.com', business: null })
      assert.equal(put404.statusCode, 404)
      assert.equal((await del(contact.id)).statusCode, 404)
      assert.equal(await counter(acme.companyId, 'contacts'), total - 1)

      const again = await post(minimal('LEAVING@example.com'))
      assert.equal(again.statusCode, 201, 'the email is free again')
    })

    test('two concurrent deletes: one 204, one 404, counted once', async () => {
      const contact = await addContact(t.db, acme)
      const total = await counter(acme.companyId, 'contacts')
      const results = await Promise.all([del(contact.id), del(contact.id)])
      assert.deepEqual(results.map((r) => r.statusCode).sort(), [204, 404])
      assert.equal(await counter(acme.companyId, 'contacts'), total - 1)
      assert.equal((await eventsOf(contact.id)).filter((e) => e.kind === 'contact_deleted').length, 1)
    })

    test('events: newest first, paged, with the contract fields; 404 for foreign contacts', async () => {
      const contact = await addContact(t.db, acme, { business: 'B', stage: 'lead' })
      const base = { first_name: contact.first_name, email: contact.email, business: 'B' }
      for (const stage of ['mql', 'sql', 'opportunity', 'client']) {
        tick()
        await put(contact.id, { ...base, stage })
      }
      const res = await get(`/api/v1/contacts/${contact.id}/events?page=1&per_page=3`)
      assert.equal(res.statusCode, 200)
      const body = res.json()
      assert.deepEqual(body.meta, { page: 1, per_page: 3, total_count: 9, total_pages: 3 })
      assert.deepEqual(Object.keys(body.data[0]).sort(), ['contact_id', 'created_at', 'data', 'id', 'kind', 'occurred_at', 'updated_at', 'user_id'])
      assert.deepEqual(body.data.map((e: { kind: string }) => e.kind), ['stage_changed', 'contact_updated', 'stage_changed'])
      assert.deepEqual(body.data[0].data, { from: 'opportunity', to: 'client' })
      assert.equal(body.data[0].contact_id, contact.id)
      assert.equal(body.data[0].user_id, acme.userId)
      assert.equal(body.data[0].occurred_at, now.toISOString())
      assert.equal(body.data[0].created_at, now.toISOString())
      assert.equal(body.data[0].updated_at, now.toISOString())
      const ids = body.data.map((e: { id: number }) => e.id)
      assert.deepEqual(ids, [...ids].sort((a: number, b: number) => b - a))
      assert.match(String(res.headers.link), /rel="next"/)
      const last = await get(`/api/v1/contacts/${contact.id}/events?page=3&per_page=3`)
      assert.deepEqual(last.json().data.map((e: { kind: string }) => e.kind).at(-1), 'contact_created')
      const past = await get(`/api/v1/contacts/${contact.id}/events?page=9`)
      assert.deepEqual(past.json().data, [])
      assert.equal((await get(`/api/v1/contacts/${contact.id}/events?page=1`, other)).statusCode, 404)
      const noPage = await get(`/api/v1/contacts/${contact.id}/events`)
      assert.equal(noPage.statusCode, 422)
      assert.ok(noPage.json().error.details.page)
    })

    test('business: one per case-insensitive name, contacts_count of live contacts; 404 without one', async () => {
      const a = await addContact(t.db, acme, { business: 'Wayne Enterprises' })
      const b = await addContact(t.db, acme, { business: 'WAYNE enterprises' })
      const c = await addContact(t.db, acme, { business: 'wayne enterprises' })
      await addContact(t.db, other, { business: 'Wayne Enterprises' })
      await del(c.id)
      const res = await get(`/api/v1/contacts/${b.id}/business`)
      assert.equal(res.statusCode, 200)
      const body = res.json()
      assert.deepEqual(Object.keys(body).sort(), [
        'colaborators_count', 'contacts_count', 'created_at', 'id', 'linkedin_url', 'name', 'sector', 'telephone', 'updated_at',
      ])
      assert.equal(body.name, 'Wayne Enterprises')
      assert.equal(body.contacts_count, 2)
      const [row] = await contactRows(a.id)
      assert.equal(row?.business_id, body.id)
      const rows = await businessesOf(acme.companyId)
      assert.equal(rows.filter((r) => r.name.toLowerCase() === 'wayne enterprises').length, 1)

      const none = await addContact(t.db, acme)
      const missing = await get(`/api/v1/contacts/${none.id}/business`)
      assert.equal(missing.statusCode, 404)
      const blank = await addContact(t.db, acme, { business: '  ' })
      assert.equal((await get(`/api/v1/contacts/${blank.id}/business`)).statusCode, 404)
      assert.equal((await get(`/api/v1/contacts/${a.id}/business`, other)).statusCode, 404)
    })

    test('leads with the same email link on create, follow an email change, unlink on delete', async () => {
      const lead = async (email: string) => {
        const [row] = await rawRows<{ id: number }>(t.db, sql`
          insert into leads (company_id, user_id, first_name, email, provider)
          values (${acme.companyId}, ${acme.userId}, 'L', ${email}, 'linkedin') returning id`)
        if (!row) throw new Error('no lead')
        return row.id
      }
      const leadOf = async (id: number) =>
        (await rawRows<{ contact_id: number | null }>(t.db, sql`select contact_id from leads where id = ${id}`))[0]?.contact_id
      const first = await lead('Lead.Person@example.com')
      const second = await lead('new.address@example.com')
      const contact = await addContact(t.db, acme, { email: 'lead.person@EXAMPLE.com', business: 'B' })
      assert.equal(await leadOf(first), contact.id)
      assert.equal(await leadOf(second), null)
      const res = await put(contact.id, { first_name: contact.first_name, email: 'New.Address@example.com', business: 'B' })
      assert.equal(res.statusCode, 200)
      assert.equal(await leadOf(first), null)
      assert.equal(await leadOf(second), contact.id)
      await del(contact.id)
      assert.equal(await leadOf(second), null)
    })
  })
}
