// Inputs that used to answer 500 (issue 10, item 4): text PostgreSQL cannot store (NUL,
// lone UTF-16 surrogates), lists beyond the statement parameter limit, dates outside what
// PostgreSQL and JavaScript keep exactly. Each is a 422 naming the parameter, and the
// database is left exactly as it was.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import type { Response as Reply } from 'light-my-request'
import { sql, rawRows } from '../helpers/sql.js'
import { backends, startApp, type TestApp } from '../helpers/app.js'
import { addContact, addCustomField, addTag } from '../helpers/contacts-factories.js'
import { tableSnapshot } from '../helpers/snapshot.js'
import { tenant, type Tenant } from '../helpers/factories.js'
import { addTask } from '../helpers/flows-factories.js'

const UNSTORABLE = 'contains a character that cannot be stored (NUL or a lone surrogate)'
const DAY_RANGE = 'is out of range (years 0001 to 9999)'
const INSTANT_RANGE = 'is out of range (0001-01-01T00:00:00Z to 9999-12-31T23:59:59.999Z, offsets up to ±15:59)'
const TABLES = [
  'contacts', 'contact_tags', 'contact_custom_values', 'contact_events', 'tags', 'custom_fields', 'businesses',
  'leads', 'meet_transcriptions', 'tasks', 'counters',
]

for (const backend of backends()) {
  describe(`hostile input (${backend.name})`, () => {
    let t: TestApp
    let acme: Tenant
    let tokyo: Tenant
    let contact: { id: number; email: string; first_name: string }
    let tag: { id: number }
    let field: { id: number }

    before(async () => {
      t = await startApp(backend)
      acme = await tenant(t.db, { timezone: 'America/Sao_Paulo' })
      tokyo = await tenant(t.db, { timezone: 'Asia/Tokyo' })
      tag = await addTag(t.db, acme, { name: 'Hot' })
      field = await addCustomField(t.db, acme, { field: 'Size', kind: 'dropdown', options: [{ name: 'S' }, { name: 'M' }] })
      await addCustomField(t.db, acme, { field: 'Notes', kind: 'textarea' })
      contact = await addContact(t.db, acme, { first_name: 'Ana', email: 'ana@acme.example', tags: [tag.id] })
      await addTask(t.db, acme.companyId, contact.id, { due: '2026-11-22' })
    })
    after(() => t.close())

    const snapshot = () => tableSnapshot(t.db, TABLES)

    // A string payload is sent as written: raw JSON (lone surrogates) or a form.
    const send = (method: 'GET' | 'POST' | 'PUT', url: string, payload?: object | string, contentType = 'application/json', who = acme) =>
      t.app.inject({
        method,
        url: `/api/v1${url}`,
        headers: { ...who.auth, ...(payload === undefined ? {} : { 'content-type': contentType }) },
        ...(payload === undefined ? {} : { payload }),
      })

    /** A 422 with exactly these details, and not one row changed. */
    async function refused(request: () => Promise<Reply>, details: Record<string, string[]>) {
      const before = await snapshot()
      const res = await request()
      assert.equal(res.statusCode, 422, res.body)
      assert.deepEqual(res.json().error.details, details)
      assert.ok(res.headers['x-request-id'])
      assert.deepEqual(await snapshot(), before)
    }

    const contactBody = (extra: object) => ({ first_name: 'Bia', email: 'bia@acme.example', ...extra })
    const updateBody = (extra: object) => ({ first_name: contact.first_name, email: contact.email, business: null, ...extra })

    test('NUL in any stored text or search term: 422 on that parameter, nothing stored', async () => {
      const nul = 'a\u0000b'
      const textFields = ['first_name', 'last_name', 'business', 'position', 'address', 'city', 'state', 'country', 'url', 'linkedin', 'variable1', 'variable2', 'variable3']
      for (const name of textFields) {
        await refused(() => send('POST', '/contacts', contactBody({ [name]: nul })), { [name]: [UNSTORABLE] })
        await refused(() => send('PUT', `/contacts/${contact.id}`, updateBody({ [name]: nul })), { [name]: [UNSTORABLE] })
      }
      // Nested: custom field names and values, option names.
      await refused(() => send('POST', '/contacts', contactBody({ custom_fields: [{ field: 'Notes', value: nul }] })), { custom_fields: [UNSTORABLE] })
      await refused(() => send('POST', '/contacts', contactBody({ custom_fields: [{ field: nul, value: 'x' }] })), { custom_fields: [UNSTORABLE] })
      await refused(() => send('PUT', `/contacts/${contact.id}`, updateBody({ custom_fields: [{ field: 'Notes', value: nul }] })), { custom_fields: [UNSTORABLE] })
      await refused(() => send('POST', '/custom_fields', { field: nul, kind: 'input' }), { field: [UNSTORABLE] })
      await refused(() => send('POST', '/custom_fields', { field: 'Color', kind: 'dropdown', options: [{ name: 'Red' }, { name: nul }] }), { options: [UNSTORABLE] })
      await refused(() => send('PUT', `/custom_fields/${field.id}`, { field: 'Size', kind: 'dropdown', options: [{ name: nul }] }), { options: [UNSTORABLE] })
      await refused(() => send('POST', '/tags', { name: nul, color: '#fff' }), { name: [UNSTORABLE] })
      await refused(() => send('PUT', `/tags/${tag.id}`, { name: nul, color: '#fff' }), { name: [UNSTORABLE] })
      await refused(() => send('POST', '/leads', { first_name: 'L', email: 'l@x.example', provider: 'linkedin', business_sector: nul }), { business_sector: [UNSTORABLE] })
      await refused(() => send('POST', '/leads', { first_name: 'L', email: 'l@x.example', provider: nul }), { provider: [UNSTORABLE] })
      await refused(
        () => send('POST', '/meet_transcriptions', { user_id: acme.userId, company_id: acme.companyId, meet_id: nul }),
        { meet_id: [UNSTORABLE] },
      )
      // Forms and query strings decode %00 to NUL.
      await refused(() => send('POST', '/contacts', 'first_name=Bia&email=bia%40acme.example&city=S%00P', 'application/x-www-form-urlencoded'), { city: [UNSTORABLE] })
      for (const url of ['/contacts?page=1&search_term=a%00', '/flows?page=1&search_term=a%00']) {
        await refused(() => send('GET', url), { search_term: [UNSTORABLE] })
      }
    })

    test('a transcript with a NUL (a long one, near the end): 422, the transcription unchanged', async () => {
      const created = await send('POST', '/meet_transcriptions', { user_id: acme.userId, company_id: acme.companyId, meet_id: 'nul-transcript' })
      const { id } = created.json<{ id: number }>()
      assert.equal((await send('PUT', `/meet_transcriptions/${id}/stop`, { stopped_at: '2026-11-22T10:00:00Z' })).statusCode, 200)
      const long = 'word '.repeat(1_000_000)
      await refused(() => send('PUT', `/meet_transcriptions/${id}/transcript`, { transcript: `${long}\u0000` }), { transcript: [UNSTORABLE] })
      await refused(() => send('PUT', `/meet_transcriptions/${id}/transcript`, `{"transcript":"${long}\\ud83d"}`), { transcript: [UNSTORABLE] })
      const ok = await send('PUT', `/meet_transcriptions/${id}/transcript`, { transcript: `${long}😀` })
      assert.equal(ok.statusCode, 200)
      assert.equal(ok.json().transcript, `${long}😀`)
    })

    test('lone UTF-16 surrogates: 422 on create and update (no U+FFFD stored), well-formed astral text kept exactly', async () => {
      for (const escaped of ['\\ud800', '\\udfff', 'a\\udc00b', '\\ud83d\\ud83d']) {
        await refused(() => send('POST', '/contacts', `{"first_name":"Bia${escaped}","email":"bia@acme.example"}`), { first_name: [UNSTORABLE] })
        await refused(
          () => send('PUT', `/contacts/${contact.id}`, `{"first_name":"Ana${escaped}","email":"${contact.email}","business":null}`),
          { first_name: [UNSTORABLE] },
        )
        await refused(() => send('POST', '/custom_fields', `{"field":"Color","kind":"dropdown","options":[{"name":"${escaped}"}]}`), { options: [UNSTORABLE] })
        await refused(
          () => send('PUT', `/contacts/${contact.id}`, `{"first_name":"Ana","email":"${contact.email}","business":null,"custom_fields":[{"field":"Notes","value":"${escaped}"}]}`),
          { custom_fields: [UNSTORABLE] },
        )
      }
      const res = await send('POST', '/contacts', '{"first_name":"Bia \\ud83d\\ude00 𝒜","email":"bia.astral@acme.example"}')
      assert.equal(res.statusCode, 201, res.body)
      assert.equal(res.json().first_name, 'Bia 😀 𝒜')
      const [row] = await rawRows<{ first_name: string }>(t.db, sql`select first_name from contacts where id = ${res.json<{ id: number }>().id}`)
      assert.equal(row?.first_name, 'Bia 😀 𝒜')
    })

    test('tags: at most 100 ids (70,000 used to hit the parameter limit); custom_fields at most 100; options at most 1,000', async () => {
      const ids = (n: number) => Array.from({ length: n }, (_, i) => i + 1)
      const tooMany = { tags: ['must have at most 100 items'] }
      await refused(() => send('POST', '/contacts', contactBody({ tags: ids(101) })), tooMany)
      await refused(() => send('POST', '/contacts', contactBody({ tags: ids(70_000) })), tooMany)
      await refused(() => send('PUT', `/contacts/${contact.id}`, updateBody({ tags: ids(70_000) })), tooMany)
      const form = ids(101).map((id) => `tags[]=${String(id)}`).join('&')
      await refused(() => send('POST', '/contacts', `first_name=Bia&email=bia%40acme.example&${form}`, 'application/x-www-form-urlencoded'), tooMany)
      const values = Array.from({ length: 101 }, () => ({ field: 'Notes', value: 'x' }))
      await refused(() => send('POST', '/contacts', contactBody({ custom_fields: values })), { custom_fields: ['must have at most 100 items'] })
      const options = Array.from({ length: 1001 }, (_, i) => ({ name: `O${String(i)}` }))
      await refused(() => send('POST', '/custom_fields', { field: 'Many', kind: 'dropdown', options }), { options: ['must have at most 1000 items'] })

      // 100 tags (of the company, repeated ids count once) and 1,000 options are fine.
      const hundred = []
      for (let i = 0; i < 99; i++) hundred.push((await addTag(t.db, acme)).id)
      const res = await send('POST', '/contacts', contactBody({ email: 'many.tags@acme.example', tags: [tag.id, ...hundred] }))
      assert.equal(res.statusCode, 201, res.body)
      assert.equal(res.json().tags.length, 100)
      const dropdown = await send('POST', '/custom_fields', { field: 'Many', kind: 'dropdown', options: options.slice(0, 1000) })
      assert.equal(dropdown.statusCode, 201, dropdown.body)
      assert.equal(dropdown.json().options.length, 1000)
    })

    test('task date filters: year 0000 is out of range (422), 0001 and 9999 answer 200', async () => {
      for (const name of ['start_due_date', 'end_due_date', 'start_done_date', 'end_done_date']) {
        await refused(() => send('GET', `/tasks?page=1&${name}=0000-01-01`), { [name]: [DAY_RANGE] })
        await refused(() => send('GET', `/tasks?page=1&${name}=0000-02-29`), { [name]: [DAY_RANGE] })
        await refused(() => send('GET', `/tasks?page=1&${name}=10000-01-01`), { [name]: ['must be a date (yyyy-mm-dd)'] })
        for (const day of ['0001-01-01', '9999-12-31']) {
          const res = await send('GET', `/tasks?page=1&${name}=${day}`)
          assert.equal(res.statusCode, 200, res.body)
        }
      }
      const wide = await send('GET', '/tasks?page=1&start_due_date=0001-01-01&end_due_date=9999-12-31')
      assert.equal(wide.json().meta.total_count, 1)
    })

    async function recording(who = acme) {
      const res = await send('POST', '/meet_transcriptions', { user_id: who.userId, company_id: who.companyId, meet_id: 'm' }, 'application/json', who)
      assert.equal(res.statusCode, 201)
      return res.json<{ id: number }>().id
    }
    const storedStop = async (id: number) =>
      (await rawRows<{ at: string | null }>(
        t.db,
        sql`select to_char(stopped_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as at from meet_transcriptions where id = ${id}`,
      ))[0]?.at

    test('stopped_at: year 0000, offsets past ±15:59 and instants outside 0001-9999 UTC are 422, the transcription still recording', async () => {
      const id = await recording()
      const stop = (stoppedAt: string) => () => send('PUT', `/meet_transcriptions/${id}/stop`, { stopped_at: stoppedAt })
      for (const value of [
        '0000-06-01T00:00:00Z', '0000-01-01', '2026-06-01T00:00:00+16:00', '2026-06-01T00:00:00-23:59',
        '9999-12-31T23:00:00-05:00', '0001-01-01T00:00:00+01:00', '9999-12-31T23:59:59.9995Z',
      ]) {
        await refused(stop(value), { stopped_at: [INSTANT_RANGE].map((m) => (value === '0000-01-01' ? DAY_RANGE : m)) })
      }
      for (const value of ['2026-06-01T00:00:00+24:00', '2026-06-01T00:00:00+05:60', '2026-06-01T00:00:00.1234567890Z', '2026-06-01\u00a000:00:00Z']) {
        await refused(stop(value), { stopped_at: ['must be a date (yyyy-mm-dd)', 'must be a date-time (ISO 8601 with offset)'] })
      }
      // A bare date is midnight in the company's zone: 0001-01-01 in Tokyo starts in year 0.
      const tokyoId = await recording(tokyo)
      await refused(() => send('PUT', `/meet_transcriptions/${tokyoId}/stop`, { stopped_at: '0001-01-01' }, 'application/json', tokyo), { stopped_at: [INSTANT_RANGE] })
      assert.equal(await storedStop(id), null)
    })

    test('stopped_at reads back exactly what was stored, at both ends of the range and at the offset limits', async () => {
      const cases: [string, string][] = [
        ['0001-01-01T00:00:00Z', '0001-01-01T00:00:00.000Z'],
        ['0049-06-15T12:30:00Z', '0049-06-15T12:30:00.000Z'],
        ['0099-12-31T23:59:59.999Z', '0099-12-31T23:59:59.999Z'],
        ['9999-12-31T23:59:59.999Z', '9999-12-31T23:59:59.999Z'],
        ['2026-06-01T00:00:00+15:59', '2026-05-31T08:01:00.000Z'],
        ['2026-06-01T00:00:00-1559', '2026-06-01T15:59:00.000Z'],
        ['2026-06-01 10:00:00.0004Z', '2026-06-01T10:00:00.000Z'],
        ['2026-06-01t10:00:00.0005z', '2026-06-01T10:00:00.001Z'],
        ['2026-06-30T23:59:60Z', '2026-07-01T00:00:00.000Z'],
        ['0001-01-01', '0001-01-01T03:06:28.000Z'], // São Paulo's local mean time, as PostgreSQL's zone data has it
        ['9999-12-31', '9999-12-31T03:00:00.000Z'],
      ]
      for (const [given, expected] of cases) {
        const id = await recording()
        const res = await send('PUT', `/meet_transcriptions/${id}/stop`, { stopped_at: given })
        assert.equal(res.statusCode, 200, `${given}: ${res.body}`)
        assert.equal(res.json().stopped_at, expected, given)
        assert.equal(await storedStop(id), expected, given)
        assert.equal((await send('GET', `/meet_transcriptions/${id}`)).json().stopped_at, expected, given)
        const list = await send('GET', `/meet_transcriptions?page=1&per_page=100&user_id=${String(acme.userId)}&company_id=${String(acme.companyId)}`)
        assert.equal(list.json<{ data: { id: number; stopped_at: string }[] }>().data.find((item) => item.id === id)?.stopped_at, expected, given)
      }
    })

    test('leap seconds in since/until (events, audit log, export) and updated_since: 200 with the next instant, as one rule', async () => {
      const leaps = ['2026-06-30T23:59:60Z', '2026-11-22T20:59:60-03:00']
      for (const leap of leaps) {
        const q = encodeURIComponent(leap)
        for (const url of [
          `/events?page=1&since=${q}`,
          `/audit_events?since=${q}`,
          `/audit_events?until=${q}`,
          `/audit_events?since=${q}&until=${encodeURIComponent('2027-01-01T00:00:00Z')}`,
          `/contacts?updated_since=${q}`,
        ]) {
          const res = await send('GET', url)
          assert.equal(res.statusCode, 200, `${url}: ${res.body}`)
        }
        const exported = await send('GET', `/audit_events/export?since=${q}&until=${encodeURIComponent('2027-01-01T00:00:00Z')}`)
        assert.equal(exported.statusCode, 200, exported.body)
        // The leap second is the instant after 23:59:59 UTC: an export ending there is refused as empty, not a 500.
        const backwards = await send('GET', `/audit_events/export?since=${encodeURIComponent('2027-01-01T00:00:00Z')}&until=${q}`)
        assert.equal(backwards.statusCode, 422, backwards.body)
        assert.deepEqual(backwards.json().error.details, { until: ['must be after since'] })
      }
      // The audit record of a change at 2026-07-01T00:00:00Z is at or after the leap second 2026-06-30T23:59:60Z.
      const recorded = await send('GET', `/audit_events?since=${encodeURIComponent('2026-06-30T23:59:60Z')}&per_page=100`)
      const all = await send('GET', '/audit_events?per_page=100')
      assert.deepEqual(recorded.json().data, all.json().data.filter((r: { occurred_at: string }) => r.occurred_at >= '2026-07-01T00:00:00.000Z'))
    })

    test('integers past 2^53-1 (ids, pages, numbers as strings) are 422, never 500', async () => {
      const tooBig = '9007199254740992'
      await refused(() => send('GET', `/contacts/${tooBig}`), { id: ['must be an integer'] })
      await refused(() => send('GET', `/contacts?page=${tooBig}`), { page: ['must be an integer'] })
      await refused(() => send('POST', '/contacts', `{"first_name":"B","email":"b@x.example","tags":[${tooBig}]}`), { tags: ['must be less than or equal to 9007199254740991'] })
      await refused(() => send('POST', '/contacts', '{"first_name":"B","email":"b@x.example","contact_group_id":1e400}'), {
        contact_group_id: ['must be less than or equal to 9007199254740991'],
      })
      for (const url of ['/contacts?', '/tasks?', '/flows?', `/leads?user_id=${String(acme.userId)}&`, `/whatsapp_messages/chats?contact_id=${String(contact.id)}&`]) {
        const res = await send('GET', `${url}page=9007199254740991&per_page=100`)
        assert.equal(res.statusCode, 200, `${url}: ${res.body}`)
        assert.deepEqual(res.json().data, [])
      }
    })
  })
}
