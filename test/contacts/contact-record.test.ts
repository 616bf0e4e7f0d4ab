// A contact reaches the wire one way: SQL writes it (contactJson) for GET, for the answers of
// POST and PUT, for every page of the list (searches and updated_since walks included) and for
// every contact webhook payload, a PUT's and a batch's included. Each is held here to the bytes
// GET answers for the contact as it is (or was) at that moment.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { Value } from 'typebox/value'
import { Contact } from '../../src/modules/contacts/contacts.schemas.js'
import { backends, startApp, type TestApp } from '../helpers/app.js'
import { addCustomField, addTag } from '../helpers/contacts-factories.js'
import { tenant, type Tenant } from '../helpers/factories.js'
import { rawRows, sql } from '../helpers/sql.js'

// Text that JSON escapes: quotes, a backslash, controls, a line separator, and characters
// beyond the basic plane.
const AWKWARD = 'Zoë "Q" \\ \t\u0001\u2028 𝄞 😀'

for (const backend of backends()) {
  describe(`a contact's JSON, one writer (${backend.name})`, () => {
    let t: TestApp
    let acme: Tenant
    let now = new Date('2026-05-01T09:30:00.123Z')
    const tick = () => (now = new Date(now.getTime() + 1_001))
    let vip: { id: number }
    let hot: { id: number }

    before(async () => {
      t = await startApp(backend, { deps: { clock: () => now } })
      acme = await tenant(t.db, { name: 'Acme' })
      vip = await addTag(t.db, acme, { name: `VIP ${AWKWARD}`, color: '#ffd700' })
      hot = await addTag(t.db, acme, { name: 'Hot', color: '#f00' })
      await addCustomField(t.db, acme, { field: 'Size', kind: 'dropdown', options: [{ name: 'S' }, { name: AWKWARD }] })
      await addCustomField(t.db, acme, { field: `Notes ${AWKWARD}`, kind: 'textarea' })
    })
    after(() => t.close())

    const request = (method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, payload?: object) =>
      t.app.inject({ method, url: `/api/v1${url}`, headers: acme.auth, ...(payload === undefined ? {} : { payload }) })
    const getText = async (id: number) => {
      const res = await request('GET', `/contacts/${id}`)
      assert.equal(res.statusCode, 200)
      return res.body
    }
    /** The contact webhook payloads of one contact, in the order they were recorded, as stored (json keeps the text). */
    const payloadsOf = (id: number) =>
      rawRows<{ type: string; data: string }>(t.db, sql`
        select type, data::text as data
          from (select e.id, e.type, e.data, 1 as published from api_events e where e.company_id = ${acme.companyId}
                union all
                select o.id, o.type, o.data, 0 from api_event_outbox o where o.company_id = ${acme.companyId}) x
         where x.type like 'contact.%' and (x.data->>'id')::bigint = ${id}
         order by x.published desc, x.id`)

    const full = {
      first_name: AWKWARD, last_name: 'Lovelace', email: 'ada@example.com', business: `Engines ${AWKWARD}`, position: 'CTO',
      telephone: '+1 555 0100', cellphone: '+1 555 0101', address: `1 ${AWKWARD} street`, city: 'London', state: 'LDN',
      country: 'UK', url: 'https://ada.example', linkedin: 'ada', variable1: 'v1', variable2: '', variable3: null,
      carousel: true, stage: 'lead', contact_group_id: 12,
    }

    test('POST answers the bytes GET answers, and its contact.created payload is the same', async () => {
      tick()
      const res = await request('POST', '/contacts', {
        ...full,
        tags: [hot.id, vip.id],
        custom_fields: [{ field: `notes ${AWKWARD}`, value: AWKWARD }, { field: 'Size', value: AWKWARD }],
      })
      assert.equal(res.statusCode, 201, res.body)
      const id = (res.json<{ id: number }>()).id
      assert.equal(res.headers.location, `/api/v1/contacts/${id}`)
      assert.equal(res.headers['content-type'], 'application/json; charset=utf-8')
      const got = await getText(id)
      assert.equal(res.body, got)
      const written = JSON.parse(got) as Record<string, unknown>
      assert.deepEqual(Object.keys(written), Object.keys(Contact.properties))
      assert.ok(Value.Check(Contact, written), JSON.stringify([...Value.Errors(Contact, written)]))
      assert.equal(written.first_name, AWKWARD)
      assert.equal(written.created_at, now.toISOString())
      assert.deepEqual((written.tags as { id: number }[]).map((tag) => tag.id), [vip.id, hot.id].sort((a, b) => a - b))
      assert.deepEqual((await payloadsOf(id)).map((p) => [p.type, p.data]), [['contact.created', got]])
    })

    test('PUT answers the bytes GET then answers; its contact.updated, .tagged and .untagged payloads are those bytes', async () => {
      tick()
      const created = await request('POST', '/contacts', { ...full, email: 'put@example.com', tags: [vip.id] })
      const id = created.json<{ id: number }>().id
      tick()
      const res = await request('PUT', `/contacts/${id}`, {
        first_name: 'Changed', email: 'put@example.com', business: null, tags: [hot.id],
        custom_fields: [{ field: 'Size', value: 'S' }],
      })
      assert.equal(res.statusCode, 200, res.body)
      assert.equal(res.headers['content-type'], 'application/json; charset=utf-8')
      const got = await getText(id)
      assert.equal(res.body, got)
      assert.equal(res.json<{ updated_at: string }>().updated_at, now.toISOString())
      const payloads = await payloadsOf(id)
      assert.deepEqual(payloads.map((p) => p.type), ['contact.created', 'contact.updated', 'contact.tagged', 'contact.untagged'])
      for (const p of payloads.slice(1)) assert.equal(p.data, got)
      assert.equal(payloads[0]?.data, created.body)
    })

    test('a PUT that changes nothing answers the bytes GET answers and records no payload', async () => {
      tick()
      const created = await request('POST', '/contacts', { first_name: 'Still', email: 'still@example.com', tags: [hot.id] })
      const id = created.json<{ id: number }>().id
      tick()
      const res = await request('PUT', `/contacts/${id}`, { first_name: 'Still', email: 'still@example.com', business: null, tags: [hot.id] })
      assert.equal(res.statusCode, 200, res.body)
      assert.equal(res.body, await getText(id))
      assert.equal(res.body, created.body)
      assert.equal((await payloadsOf(id)).length, 1)
    })

    test('a batch writes each payload as the contact was at its item: created, then changed by a later item', async () => {
      tick()
      const res = await request('POST', '/contacts/batch', {
        contacts: [
          { ...full, email: 'twice@example.com', tags: [vip.id], custom_fields: [{ field: 'Size', value: 'S' }] },
          { first_name: 'Once', email: 'once@example.com' },
          { first_name: `Second ${AWKWARD}`, email: 'TWICE@example.com', tags: [hot.id], custom_fields: [{ field: 'Size', value: null }] },
        ],
      })
      assert.equal(res.statusCode, 200, res.body)
      const [twice, once, again] = res.json<{ results: { status: number; id: number }[] }>().results
      assert.deepEqual([twice?.status, once?.status, again?.status], [201, 201, 200])
      const id = twice?.id ?? 0
      const got = await getText(id)
      const payloads = await payloadsOf(id)
      assert.deepEqual(payloads.map((p) => p.type), ['contact.created', 'contact.updated', 'contact.tagged', 'contact.untagged'])
      for (const p of payloads.slice(1)) assert.equal(p.data, got)
      const asCreated = JSON.parse(payloads[0]?.data ?? '{}') as Record<string, unknown>
      assert.deepEqual(Object.keys(asCreated), Object.keys(Contact.properties))
      assert.ok(Value.Check(Contact, asCreated))
      assert.equal(asCreated.first_name, AWKWARD)
      assert.deepEqual(asCreated.tags, [{ id: vip.id, name: `VIP ${AWKWARD}`, color: '#ffd700' }])
      assert.deepEqual(asCreated.custom_fields, [{ field: 'Size', value: 'S' }])
      // Apart from what the second item changed, the payload as created is GET's contact.
      const now = JSON.parse(got) as Record<string, unknown>
      assert.deepEqual({ ...asCreated, first_name: now.first_name, email: now.email, tags: now.tags, custom_fields: now.custom_fields }, now)
      assert.deepEqual((await payloadsOf(once?.id ?? 0)).map((p) => [p.type, p.data]), [['contact.created', await getText(once?.id ?? 0)]])
    })

    test('a batch\'s update of a known contact writes GET\'s bytes in its payloads', async () => {
      tick()
      const created = await request('POST', '/contacts', { first_name: 'Known', email: 'known@example.com', tags: [hot.id] })
      const id = created.json<{ id: number }>().id
      tick()
      const res = await request('POST', '/contacts/batch', {
        contacts: [{ first_name: 'Known', email: 'known@example.com', city: AWKWARD, tags: [] }],
      })
      assert.equal(res.statusCode, 200, res.body)
      const got = await getText(id)
      const payloads = await payloadsOf(id)
      assert.deepEqual(payloads.map((p) => p.type), ['contact.created', 'contact.updated', 'contact.untagged'])
      for (const p of payloads.slice(1)) assert.equal(p.data, got)
    })

    test('every page of the list writes GET\'s bytes: a page, each kind of search, an updated_since walk and its tombstones', async () => {
      tick()
      const made = []
      for (const [i, stage] of (['lead', 'client', 'lead'] as const).entries()) {
        const res = await request('POST', '/contacts', {
          ...full, email: `list${i}@pages.example`, last_name: `Pagewise ${i}`, stage, tags: i === 0 ? [] : [vip.id],
          custom_fields: [{ field: 'Size', value: AWKWARD }],
        })
        assert.equal(res.statusCode, 201, res.body)
        made.push(res.json<{ id: number }>().id)
      }
      const gets = await Promise.all(made.map(getText))
      const items = (indexes: number[]) => indexes.map((i) => gets[i]).join(',')
      /** The body's records, as bytes: the page's `data` array is GET's texts joined, in id order. */
      const assertRecords = async (url: string, indexes: number[]) => {
        const res = await request('GET', url)
        assert.equal(res.statusCode, 200, `${url}: ${res.body}`)
        assert.equal(res.headers['content-type'], 'application/json; charset=utf-8')
        assert.ok(res.body.startsWith(`{"data":[${items(indexes)}],"meta":{`), `${url}: ${res.body.slice(0, 300)}`)
        return res
      }
      await assertRecords('/contacts?page=1&stage=client', [1])
      await assertRecords(`/contacts?page=1&tag_id=${vip.id}&stage=client`, [1])
      // A term with a trigram; one or two characters (the gram counters), with an owner or a
      // stage; one with none of three letters in a row; one with U+001F.
      await assertRecords('/contacts?page=1&search_term=pagewise', [0, 1, 2])
      await assertRecords('/contacts?page=1&search_term=pagewise&stage=lead', [0, 2])
      await assertRecords(`/contacts?page=1&search_term=pagewise&tag_id=${vip.id}`, [1, 2])
      await assertRecords('/contacts?page=1&search_term=t1', [1])
      await assertRecords(`/contacts?page=1&search_term=t1&user_id=${acme.userId}`, [1])
      await assertRecords('/contacts?page=1&search_term=t1&stage=client', [1])
      await assertRecords('/contacts?page=1&search_term=e%201', [1])
      await assertRecords(`/contacts?page=1&search_term=e%201&user_id=${acme.userId}`, [1])
      await assertRecords('/contacts?page=1&search_term=s.ex&stage=client', [1])
      await assertRecords(`/contacts?page=1&search_term=${encodeURIComponent('lovelace\u001f')}&stage=client`, [])
      const past = await assertRecords('/contacts?page=9&search_term=pagewise', [])
      assert.equal(past.json<{ meta: { total_count: number } }>().meta.total_count, 3)

      tick()
      const deleted = await request('DELETE', `/contacts/${made[1]}`)
      assert.equal(deleted.statusCode, 204)
      const deletedAt = now.toISOString()
      // The walk holds back what changed in the last few seconds (src/http/sync.ts).
      now = new Date(now.getTime() + 60_000)
      const since = new Date(now.getTime() - 10 * 60_000).toISOString()
      const walk = await request('GET', `/contacts?updated_since=${encodeURIComponent(since)}&per_page=100`)
      assert.equal(walk.statusCode, 200, walk.body)
      assert.equal(walk.headers['content-type'], 'application/json; charset=utf-8')
      const records = walk.body.slice('{"data":['.length, walk.body.indexOf('],"meta":{'))
      assert.ok(records.endsWith(`${gets[0]},${gets[2]},{"id":${made[1]},"deleted":true,"deleted_at":"${deletedAt}"}`), records)
      assert.deepEqual(Object.keys(walk.json<{ meta: object }>().meta), ['per_page', 'has_more', 'next_cursor'])
    })
  })
}
