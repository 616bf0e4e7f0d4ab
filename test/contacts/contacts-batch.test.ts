// POST /api/v1/contacts/batch: each item matched by email, created or updated in order,
// one result per item; the batch leaves exactly what the same items sent as single POST
// /contacts and PUT /contacts/:id requests leave (records, contact events, lead links,
// counters, webhook events), which a property test checks on random batches
// (BATCH_PROPERTY_RUNS=300 BATCH_PROPERTY_SEED=n for more than the default 15).
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import { fileURLToPath } from 'node:url'
import fc from 'fast-check'
import { execute, rawRows, sql } from '../helpers/sql.js'
import { publishEvents } from '../../src/modules/webhooks/publish.js'
import { backends, startApp, type TestApp } from '../helpers/app.js'
import { addCustomField, addTag } from '../helpers/contacts-factories.js'
import { counterValue } from '../helpers/counters.js'
import { addUser, tenant, type Tenant } from '../helpers/factories.js'
import { transaction } from '../../src/db/db.js'

interface Company {
  who: Tenant
  memberId: number
  tags: { hot: number; vip: number; cold: number }
}

type Item = Record<string, unknown>
interface Result {
  status: number
  id?: number
  error?: { status: number; code: string; details?: Record<string, string[]>; detail_codes?: Record<string, string[]>; request_id: string }
}

for (const backend of backends()) {
  describe(`POST /api/v1/contacts/batch (${backend.name})`, () => {
    let t: TestApp
    const now = new Date('2026-05-04T10:00:00.000Z')

    before(async () => {
      t = await startApp(backend, { deps: { clock: () => now } })
    })
    after(() => t.close())

    /** A company with an admin (the token's user), a member, three tags and four custom fields. */
    async function company(name: string): Promise<Company> {
      const who = await tenant(t.db, { name })
      const member = await addUser(t.db, who.companyId)
      const hot = await addTag(t.db, who, { name: 'Hot', color: '#f00' })
      const vip = await addTag(t.db, who, { name: 'VIP', color: '#ffd700' })
      const cold = await addTag(t.db, who, { name: 'Cold', color: '#00f' })
      await addCustomField(t.db, who, { field: 'Size', kind: 'dropdown', options: [{ name: 'S' }, { name: 'M' }] })
      await addCustomField(t.db, who, { field: 'Birthday', kind: 'date' })
      await addCustomField(t.db, who, { field: 'Notes', kind: 'textarea' })
      await addCustomField(t.db, who, { field: 'Work email', kind: 'email' })
      return { who, memberId: member.id, tags: { hot: hot.id, vip: vip.id, cold: cold.id } }
    }

    const batch = (who: Tenant, payload: unknown, headers: Record<string, string> = {}) =>
      t.app.inject({ method: 'POST', url: '/api/v1/contacts/batch', headers: { ...who.auth, ...headers }, payload: payload as object })
    const post = (who: Tenant, payload: object) => t.app.inject({ method: 'POST', url: '/api/v1/contacts', headers: who.auth, payload })
    const put = (who: Tenant, id: number, payload: object) =>
      t.app.inject({ method: 'PUT', url: `/api/v1/contacts/${String(id)}`, headers: who.auth, payload })
    const get = (who: Tenant, url: string) => t.app.inject({ url, headers: who.auth })

    const liveByEmail = async (companyId: number, email: string) =>
      (await rawRows<{ id: number; business: string | null }>(t.db, sql`
        select id, business from contacts where company_id = ${companyId} and lower(email) = lower(${email}) and deleted_at is null`))[0]

    /** The items as single requests, one by one: POST for a new email, PUT (business kept when omitted) for a known one. */
    async function oneByOne(who: Tenant, items: Item[]): Promise<Result[]> {
      const results: Result[] = []
      for (const item of items) {
        const found = typeof item.email === 'string' ? await liveByEmail(who.companyId, item.email) : undefined
        const res = found
          ? await put(who, found.id, 'business' in item ? item : { ...item, business: found.business })
          : await post(who, item)
        const body = res.json<{ id?: number; error?: Result['error'] }>()
        results.push(res.statusCode === 422 ? { status: 422, error: body.error } : { status: res.statusCode, id: body.id })
      }
      return results
    }

    /**
     * What a company holds, in terms that do not depend on its ids: live contacts as the API
     * shows them, contact events and webhook events in order, leads, businesses, counters.
     */
    async function state(c: Company) {
      const companyId = c.who.companyId
      const users = new Map([[c.who.userId, 'admin'], [c.memberId, 'member']])
      const user = (id: unknown) => users.get(Number(id)) ?? `user ${String(id)}`
      const emails = new Map(
        (await rawRows<{ id: string; email: string }>(t.db, sql`select id, lower(email) as email from contacts where company_id = ${companyId}`))
          .map((r) => [Number(r.id), r.email]),
      )
      const contact = (id: string | number | null) => (id === null ? null : emails.get(Number(id)) ?? `contact ${String(id)}`)
      const record = (r: Record<string, unknown>) => {
        const { id, user_id, tags, created_at: _c, updated_at: _u, ...rest } = r
        return { id: contact(id as number), user_id: user(user_id), ...rest, tags: (tags as { name: string }[]).map((tag) => tag.name) }
      }
      const contacts: unknown[] = []
      for (let page = 1; ; page++) {
        const res = await get(c.who, `/api/v1/contacts?page=${String(page)}&per_page=100`)
        const body = res.json<{ data: Record<string, unknown>[]; meta: { total_pages: number } }>()
        contacts.push(...body.data.map(record))
        if (page >= body.meta.total_pages) break
      }
      contacts.sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)))
      const events = (await rawRows<{ contact_id: number; kind: string; user_id: number; data: Record<string, unknown> }>(t.db, sql`
        select contact_id, kind, user_id, data from contact_events where company_id = ${companyId} order by id`)).map((e) => {
        const data = { ...e.data }
        if ('tag_id' in data) delete data.tag_id
        const changes = data.changes as Record<string, unknown[]> | undefined
        if (changes?.user_id) data.changes = { ...changes, user_id: changes.user_id.map(user) }
        return { contact: contact(e.contact_id), kind: e.kind, user: user(e.user_id), data }
      })
      await publishEvents(t.db, 10_000)
      const apiEvents = (await rawRows<{ type: string; data: string }>(t.db, sql`
        select type, data::text as data from api_events where company_id = ${companyId} and type like 'contact.%' or
               company_id = ${companyId} and type = 'lead.linked' order by sequence`)).map((e) => {
        const data = JSON.parse(e.data) as Record<string, unknown>
        if (e.type !== 'lead.linked') return { type: e.type, data: record(data) }
        const { id: _i, user_id, contact_id, created_at: _c, updated_at: _u, ...rest } = data
        return { type: e.type, data: { user_id: user(user_id), contact_id: contact(contact_id as number | null), ...rest } }
      })
      const leads = (await rawRows<{ email: string; contact_id: number | null }>(t.db, sql`
        select email, contact_id from leads where company_id = ${companyId} order by id`)).map((l) => ({ email: l.email, contact: contact(l.contact_id) }))
      const businesses = (await rawRows<{ name: string }>(t.db, sql`select name from businesses where company_id = ${companyId} order by lower(name)`))
        .map((b) => b.name)
      const counters = (await rawRows<{ list: string; key: string; value: string }>(t.db, sql`
        select list, key, sum(value) as value from counters where company_id = ${companyId} and list in ('contacts', 'contacts_by_user', 'leads_linked')
         group by list, key order by list, key`)).filter((r) => Number(r.value) !== 0).map((r) => [r.list, r.list === 'contacts' ? 0 : user(r.key), Number(r.value)])
      const rows = await rawRows<{ contact_tags: number; custom_values: number }>(t.db, sql`
        select (select count(*) from contact_tags where company_id = ${companyId})::int as contact_tags,
               (select count(*) from contact_custom_values where company_id = ${companyId})::int as custom_values`)
      return { contacts, events, apiEvents, leads, businesses, counters, rows: rows[0] }
    }

    /** Every counter of contacts and linked leads equals the count of the rows it counts. */
    async function countersExact(companyId: number) {
      const rows = await rawRows<{ list: string; key: number; counted: number; counter: number }>(t.db, sql`
        with counted as (
          select 'contacts' as list, 0::bigint as key, count(*) as n from contacts where company_id = ${companyId} and deleted_at is null
          union all select 'contacts_by_user', user_id, count(*) from contacts where company_id = ${companyId} and deleted_at is null group by user_id
          union all select 'leads_linked', user_id, count(*) from leads where company_id = ${companyId} and contact_id is not null group by user_id
        )
        select coalesce(c.list, k.list) as list, coalesce(c.key, k.key) as key, coalesce(c.n, 0)::int as counted, coalesce(k.value, 0)::int as counter
          from counted c full join (select list, key, sum(value) as value from counters where company_id = ${companyId}
                                     and list in ('contacts', 'contacts_by_user', 'leads_linked') group by list, key) k
            on k.list = c.list and k.key = c.key`)
      for (const row of rows) assert.equal(row.counter, row.counted, `counter ${row.list} ${String(row.key)}`)
      await publishEvents(t.db, 10_000)
      const [events] = await rawRows<{ counter: number; rows: number }>(t.db, sql`
        select coalesce((select value from counters where company_id = ${companyId} and list = 'events' and key = 0), 0)::int as counter,
               (select count(*) from api_events where company_id = ${companyId})::int as rows`)
      assert.equal(events?.counter, events?.rows, 'the events counter')
    }

    const addLead = async (who: Tenant, email: string) => {
      const res = await t.app.inject({
        method: 'POST', url: '/api/v1/leads', headers: who.auth, payload: { first_name: 'Lead', email, provider: 'linkedin' },
      })
      assert.equal(res.statusCode, 201, res.body)
      return res.json<{ id: number }>().id
    }

    /** The same starting point in a company: two known contacts (one tagged and valued) and a lead. */
    async function seed(c: Company) {
      assert.equal((await post(c.who, { first_name: 'Known', email: 'known@example.com', business: 'Initech', tags: [c.tags.hot],
        custom_fields: [{ field: 'Size', value: 'S' }, { field: 'Notes', value: 'old' }] })).statusCode, 201)
      assert.equal((await post(c.who, { first_name: 'Other', email: 'other@example.com' })).statusCode, 201)
      await addLead(c.who, 'New.Lead@example.com')
    }

    const MIXED = (c: Company): unknown[] => [
      { first_name: 'Ana', email: 'ana@example.com', business: 'Globex', stage: 'lead', tags: [c.tags.vip, c.tags.hot],
        custom_fields: [{ field: 'size', value: 'M' }] },
      { first_name: 'Known', email: 'KNOWN@example.com', stage: 'mql', tags: [c.tags.vip], custom_fields: [{ field: 'Notes', value: null }],
        user_id: c.memberId },
      { first_name: '', email: 'blank@example.com' },
      { first_name: 'Bad tag', email: 'badtag@example.com', tags: [c.tags.hot, 999_999_999] },
      { first_name: 'Linked', email: 'new.lead@EXAMPLE.com', carousel: 'true' },
      { first_name: 'Other', email: 'other@example.com' },
      'not an object',
      { first_name: 'Ana Again', email: 'ANA@example.com', business: null, tags: [] },
    ]

    test('mixed new, known and invalid items: per-item results in order, and what the single requests would leave', async () => {
      const a = await company('Batch A')
      const b = await company('Singles B')
      await seed(a)
      await seed(b)
      const res = await batch(a.who, { contacts: MIXED(a) }, { 'x-request-id': 'batch-req-1' })
      assert.equal(res.statusCode, 200, res.body)
      assert.equal(res.headers['x-request-id'], 'batch-req-1')
      const { results } = res.json<{ results: Result[] }>()
      assert.deepEqual(results.map((r) => r.status), [201, 200, 422, 422, 201, 200, 422, 200])
      const ana = results[0]?.id
      assert.ok(ana)
      assert.equal(results[7]?.id, ana, 'the second item of an email updates what the first created')
      assert.equal(results[1]?.id, (await liveByEmail(a.who.companyId, 'known@example.com'))?.id)
      assert.deepEqual(results[2], {
        status: 422,
        error: {
          status: 422, message: 'Could not save the entity', code: 'validation_failed',
          details: { first_name: ["can't be blank"] }, detail_codes: { first_name: ['blank'] }, request_id: 'batch-req-1',
        },
      })
      assert.deepEqual(results[3]?.error?.details, { tags: ['does not exist: 999999999'] })
      assert.deepEqual(results[6]?.error?.details, { base: ['must be an object'] })
      assert.equal(await liveByEmail(a.who.companyId, 'badtag@example.com'), undefined, 'a refused item writes nothing')

      const singles = await oneByOne(b.who, MIXED(b).filter((item): item is Item => typeof item === 'object'))
      assert.deepEqual(singles.map((r) => r.status), [201, 200, 422, 422, 201, 200, 200])
      assert.deepEqual(singles[3]?.error?.details, results[3].error.details)
      assert.deepEqual(await state(a), await state(b))
      await countersExact(a.who.companyId)

      const got = await get(a.who, `/api/v1/contacts/${String(ana)}`)
      assert.deepEqual(got.json(), {
        ...got.json<object>(),
        first_name: 'Ana Again', email: 'ANA@example.com', business: null, stage: 'lead', tags: [], custom_fields: [{ field: 'Size', value: 'M' }],
        created_at: now.toISOString(), updated_at: now.toISOString(),
      })
      const [lead] = await rawRows<{ contact_id: number }>(t.db, sql`select contact_id from leads where company_id = ${a.who.companyId}`)
      assert.equal(Number(lead?.contact_id), results[4]?.id, 'the lead with the new email is linked')
      await publishEvents(t.db, 10_000)
      const events = await rawRows<{ type: string }>(t.db, sql`select type from api_events where company_id = ${a.who.companyId} order by sequence`)
      assert.deepEqual(events.map((e) => e.type).slice(-8), [
        'contact.created', 'contact.updated', 'contact.tagged', 'contact.untagged', 'contact.created', 'lead.linked', 'contact.updated',
        'contact.untagged',
      ])
    })

    test("a created contact's contact.created payload: byte for byte the contact as GET shows it; as created when a later item changes it", async () => {
      const c = await company('Payloads')
      const fancy = { first_name: 'Zoë "Z" \\ Ünal', last_name: 'Line\nBreak \u2028 😀', email: 'zoe@example.com', business: 'Ünal & Co',
        city: 'Tab\there', carousel: true, tags: [c.tags.vip, c.tags.hot], custom_fields: [{ field: 'Notes', value: 'quote " and </script>' }, { field: 'Size', value: 'S' }] }
      const res = await batch(c.who, { contacts: [fancy, { first_name: 'Twice', email: 'twice@example.com', tags: [c.tags.cold] },
        { first_name: 'Twice Changed', email: 'TWICE@example.com', tags: [c.tags.hot] }] })
      assert.equal(res.statusCode, 200, res.body)
      const [first, second] = res.json<{ results: Result[] }>().results
      await publishEvents(t.db, 10_000)
      const payloads = await rawRows<{ id: string; data: string }>(t.db, sql`
        select data->>'id' as id, data::text as data from api_events where company_id = ${c.who.companyId} and type = 'contact.created' order by sequence`)
      const shown = await get(c.who, `/api/v1/contacts/${String(first?.id)}`)
      assert.deepEqual(payloads.map((p) => Number(p.id)), [first?.id, second?.id])
      assert.equal(payloads[0]?.data, shown.body)
      // The second item's contact, changed by the third: created with its own name and tag.
      const asCreated = JSON.parse(payloads[1]?.data ?? '{}') as { first_name: string; tags: { id: number }[] }
      assert.deepEqual([asCreated.first_name, asCreated.tags.map((tag) => tag.id)], ['Twice', [c.tags.cold]])
    })

    test('the envelope: 0 or 101 items, no list, no contacts: 422 for the whole request and nothing written', async () => {
      const c = await company('Envelope')
      const many = Array.from({ length: 101 }, (_, i) => ({ first_name: 'Many', email: `many${String(i)}@example.com` }))
      const cases: [unknown, Record<string, string[]>][] = [
        [{ contacts: many }, { contacts: ['must have at most 100 items'] }],
        [{ contacts: [] }, { contacts: ['must have at least 1 item'] }],
        [{ contacts: { first_name: 'A', email: 'a@example.com' } }, { contacts: ['must be a list'] }],
        [{ contact: [{ first_name: 'A', email: 'a@example.com' }] }, { contacts: ["can't be blank"] }],
      ]
      for (const [payload, details] of cases) {
        const res = await batch(c.who, payload)
        assert.equal(res.statusCode, 422, res.body)
        assert.deepEqual(res.json<{ error: { details: unknown } }>().error.details, details)
      }
      const [row] = await rawRows<{ n: number }>(t.db, sql`select count(*)::int as n from contacts where company_id = ${c.who.companyId}`)
      assert.equal(row?.n, 0)
      const hundred = await batch(c.who, { contacts: many.slice(0, 100) })
      assert.equal(hundred.statusCode, 200)
      assert.ok(hundred.json<{ results: Result[] }>().results.every((r) => r.status === 201))
      await countersExact(c.who.companyId)
    })

    test('update: only the given fields change; business kept when omitted, cleared by null; custom fields set, tags replaced', async () => {
      const c = await company('Partial')
      const created = await post(c.who, {
        first_name: 'Bia', last_name: 'Lima', email: 'bia@example.com', business: 'Umbrella', city: 'Recife', stage: 'lead',
        tags: [c.tags.hot, c.tags.vip], custom_fields: [{ field: 'Size', value: 'S' }, { field: 'Notes', value: 'keep' }],
      })
      const id = created.json<{ id: number }>().id
      const res = await batch(c.who, { contacts: [{ first_name: 'Bia', email: 'BIA@example.com', city: null, tags: [c.tags.cold, c.tags.vip],
        custom_fields: [{ field: 'Size', value: 'M' }, { field: 'Birthday', value: '1990-01-31' }] }] })
      assert.deepEqual(res.json(), { results: [{ status: 200, id }] })
      const body = (await get(c.who, `/api/v1/contacts/${String(id)}`)).json<Record<string, unknown>>()
      assert.equal(body.email, 'BIA@example.com', 'the email takes the new case')
      assert.equal(body.last_name, 'Lima')
      assert.equal(body.business, 'Umbrella')
      assert.equal(body.city, null)
      assert.equal(body.stage, 'lead')
      assert.deepEqual((body.tags as { name: string }[]).map((tag) => tag.name), ['VIP', 'Cold'])
      assert.deepEqual(body.custom_fields, [{ field: 'Size', value: 'M' }, { field: 'Birthday', value: '1990-01-31' }, { field: 'Notes', value: 'keep' }])
      const events = await rawRows<{ kind: string; data: Record<string, unknown> }>(t.db, sql`
        select kind, data from contact_events where contact_id = ${id} order by id`)
      assert.deepEqual(events.map((e) => e.kind), ['contact_created', 'contact_updated', 'tag_added', 'tag_removed'])
      assert.deepEqual(Object.keys(events[1]?.data.changes ?? {}).sort(), ['city', 'custom_fields', 'email'])

      const same = await batch(c.who, { contacts: [{ first_name: 'Bia', email: 'BIA@example.com' }] })
      assert.deepEqual(same.json(), { results: [{ status: 200, id }] })
      const unchanged = await rawRows<{ n: number }>(t.db, sql`select count(*)::int as n from contact_events where contact_id = ${id}`)
      assert.equal(unchanged[0]?.n, 4, 'an item that changes nothing writes nothing')

      const cleared = await batch(c.who, { contacts: [{ first_name: 'Bia', email: 'BIA@example.com', business: null, tags: null }] })
      assert.equal(cleared.json<{ results: Result[] }>().results[0]?.status, 200)
      const after = (await get(c.who, `/api/v1/contacts/${String(id)}`)).json<Record<string, unknown>>()
      assert.equal(after.business, null)
      assert.deepEqual(after.tags, [])
      const [row] = await rawRows<{ business_id: number | null }>(t.db, sql`select business_id from contacts where id = ${id}`)
      assert.equal(row?.business_id, null)
    })

    test('an owner change moves the per-owner counters; an unknown user_id refuses that item only', async () => {
      const c = await company('Owners')
      await post(c.who, { first_name: 'Cai', email: 'cai@example.com' })
      const res = await batch(c.who, { contacts: [
        { first_name: 'Cai', email: 'cai@example.com', user_id: c.memberId },
        { first_name: 'Dani', email: 'dani@example.com', user_id: c.memberId },
        { first_name: 'Dani', email: 'dani@example.com', user_id: 999_999_999 },
      ] })
      const { results } = res.json<{ results: Result[] }>()
      assert.deepEqual(results.map((r) => r.status), [200, 201, 422])
      assert.deepEqual(results[2]?.error?.details, { user_id: ['does not exist'] })
      const dani = (await get(c.who, `/api/v1/contacts/${String(results[1]?.id)}`)).json<{ user_id: number }>()
      assert.equal(dani.user_id, c.who.userId, 'user_id is ignored when the item creates')
      await countersExact(c.who.companyId)
      assert.equal(await counterValue(t.db, c.who.companyId, 'contacts_by_user', c.memberId), 1)
    })

    test('a form body, and one request of the rate limit whatever the number of items', async () => {
      const c = await company('Forms')
      const first = await batch(c.who, { contacts: [{ first_name: 'Eva', email: 'eva@example.com' }] })
      const remaining = Number(first.headers['x-ratelimit-remaining'])
      const form = await t.app.inject({
        method: 'POST', url: '/api/v1/contacts/batch', headers: { ...c.who.auth, 'content-type': 'application/x-www-form-urlencoded' },
        payload: `contacts[][first_name]=Fay&contacts[][email]=fay%40example.com&contacts[][tags][]=${String(c.tags.hot)}` +
          '&contacts[][first_name]=Gil&contacts[][email]=gil%40example.com&contacts[][carousel]=true',
      })
      assert.equal(form.statusCode, 200, form.body)
      assert.deepEqual(form.json<{ results: Result[] }>().results.map((r) => r.status), [201, 201])
      assert.equal(Number(form.headers['x-ratelimit-remaining']), remaining - 1)
      const gil = (await get(c.who, `/api/v1/contacts/${String(form.json<{ results: Result[] }>().results[1]?.id)}`)).json<{ carousel: boolean }>()
      assert.equal(gil.carousel, true)
    })

    test('another company: its tags are unknown, its contacts with the same email are not matched', async () => {
      const c = await company('Mine')
      const other = await company('Theirs')
      await post(other.who, { first_name: 'Shared', email: 'shared@example.com' })
      const res = await batch(c.who, { contacts: [
        { first_name: 'Shared', email: 'shared@example.com' },
        { first_name: 'Tagged', email: 'tagged@example.com', tags: [other.tags.hot] },
      ] })
      const { results } = res.json<{ results: Result[] }>()
      assert.deepEqual(results.map((r) => r.status), [201, 422])
      assert.deepEqual(results[1]?.error?.details, { tags: [`does not exist: ${String(other.tags.hot)}`] })
      const [theirs] = await rawRows<{ first_name: string }>(t.db, sql`
        select first_name from contacts where company_id = ${other.who.companyId} and email = 'shared@example.com'`)
      assert.equal(theirs?.first_name, 'Shared')
    })

    test('two batches with overlapping emails at once: no duplicate contact, no 500, exact counters', async () => {
      const c = await company('Race')
      const emails = Array.from({ length: 40 }, (_, i) => `race${String(i)}@example.com`)
      const items = (names: string, order: string[]) => order.map((email) => ({ first_name: names, email, tags: [c.tags.hot] }))
      const answers = await Promise.all([
        batch(c.who, { contacts: items('Left', emails) }),
        batch(c.who, { contacts: items('Right', [...emails].reverse()) }),
        batch(c.who, { contacts: items('Middle', emails.slice(10, 30).map((e) => e.toUpperCase())) }),
      ])
      for (const res of answers) {
        assert.equal(res.statusCode, 200, res.body)
        assert.ok(res.json<{ results: Result[] }>().results.every((r) => r.status === 201 || r.status === 200))
      }
      const [row] = await rawRows<{ n: number; distinct: number }>(t.db, sql`
        select count(*)::int as n, count(distinct lower(email))::int as distinct from contacts where company_id = ${c.who.companyId}`)
      assert.deepEqual(row, { n: 40, distinct: 40 })
      const created = answers.flatMap((res) => res.json<{ results: Result[] }>().results).filter((r) => r.status === 201)
      assert.equal(created.length, 40, 'each email created exactly once')
      await countersExact(c.who.companyId)
    })

    test('batches and single creates naming one new business at once, in any case: one business, every contact on it', async () => {
      const c = await company('Business race')
      const spellings = ['Globex', 'GLOBEX', 'globex', 'GloBex']
      const answers = await Promise.all([
        ...spellings.map((business, b) =>
          batch(c.who, { contacts: Array.from({ length: 10 }, (_, i) => ({ first_name: 'B', email: `b${String(b)}.${String(i)}@globex.example`, business })) })),
        ...spellings.map((business, s) => post(c.who, { first_name: 'S', email: `s${String(s)}@globex.example`, business })),
      ])
      for (const res of answers) assert.ok(res.statusCode === 200 || res.statusCode === 201, res.body)
      const found = await rawRows<{ id: number; name: string }>(t.db, sql`
        select id, name from businesses where company_id = ${c.who.companyId}`)
      assert.equal(found.length, 1, JSON.stringify(found))
      const [linked] = await rawRows<{ n: number; on_it: number }>(t.db, sql`
        select count(*)::int as n, count(*) filter (where business_id = ${found[0]?.id})::int as on_it
          from contacts where company_id = ${c.who.companyId}`)
      assert.deepEqual(linked, { n: 44, on_it: 44 })
      // A business that exists is found, not rewritten: its row keeps its version.
      const before = await rawRows<{ xmin: string }>(t.db, sql`select xmin::text from businesses where company_id = ${c.who.companyId}`)
      assert.equal((await batch(c.who, { contacts: [{ first_name: 'Again', email: 'again@globex.example', business: 'globex' }] })).statusCode, 200)
      assert.equal((await post(c.who, { first_name: 'Again', email: 'again2@globex.example', business: 'GLOBEX' })).statusCode, 201)
      const afterwards = await rawRows<{ xmin: string }>(t.db, sql`select xmin::text from businesses where company_id = ${c.who.companyId}`)
      assert.deepEqual(afterwards, before)
    })

    test('a contact created between the read and the write by a writer without the email lock: the batch runs item by item', async () => {
      const c = await company('Fallback')
      let pending: ReturnType<typeof batch> | undefined
      await transaction(t.db, async (tx) => {
        await execute(tx, sql`
          insert into contacts (company_id, user_id, first_name, email) values (${c.who.companyId}, ${c.who.userId}, 'Raced', 'raced@example.com')`)
        pending = batch(c.who, { contacts: [
          { first_name: 'Before', email: 'before@example.com' },
          { first_name: 'Raced', email: 'RACED@example.com', stage: 'lead' },
          { first_name: '', email: 'bad@example.com' },
        ] })
        // The batch's insert waits on this uncommitted row's unique index entry; then this commits.
        for (let i = 0; i < 400; i++) {
          const [waiting] = await rawRows<{ n: number }>(t.db, sql`
            select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'`)
          if (waiting?.n) break
          await new Promise((resolve) => setTimeout(resolve, 25))
        }
      })
      const res = await pending
      assert.ok(res)
      assert.equal(res.statusCode, 200, res.body)
      const { results } = res.json<{ results: Result[] }>()
      assert.deepEqual(results.map((r) => r.status), [201, 200, 422])
      const raced = (await get(c.who, `/api/v1/contacts/${String(results[1]?.id)}`)).json<{ stage: string; email: string }>()
      assert.deepEqual([raced.stage, raced.email], ['lead', 'RACED@example.com'])
      const [row] = await rawRows<{ n: number }>(t.db, sql`select count(*)::int as n from contacts where company_id = ${c.who.companyId}`)
      assert.equal(row?.n, 2)
    })

    test('property: a random batch leaves what the same items sent one by one leave', async () => {
      const emails = ['p1@example.com', 'p2@example.com', 'p3@example.com', 'known@example.com', 'other@example.com', 'new.lead@example.com']
      const casing = fc.constantFrom<(e: string) => string>((e) => e, (e) => e.toUpperCase(), (e) => e.charAt(0).toUpperCase() + e.slice(1))
      const maybe = <T>(arb: fc.Arbitrary<T>) => fc.option(arb, { nil: undefined })
      const item = fc.record({
        email: fc.oneof({ weight: 12, arbitrary: fc.tuple(fc.constantFrom(...emails), casing).map(([e, f]) => f(e)) },
          { weight: 1, arbitrary: fc.constant('not-an-email') }),
        first_name: fc.constantFrom('Ana', 'Bo', ' ', 'Ana'),
        last_name: maybe(fc.constantFrom('Silva', null, '')),
        business: maybe(fc.constantFrom('Globex', 'globex', 'Initech', null, '  ')),
        stage: maybe(fc.constantFrom('lead', 'mql', null, 'nope')),
        carousel: maybe(fc.constantFrom(true, 'false', null)),
        tags: maybe(fc.oneof(fc.constant(null), fc.subarray(['hot', 'vip', 'cold', 'missing']))),
        custom_fields: maybe(fc.subarray([
          { field: 'Size', value: 'M' }, { field: 'size', value: 'S' }, { field: 'Birthday', value: '2026-02-30' },
          { field: 'Notes', value: null }, { field: 'Notes', value: 'hello' }, { field: 'Nope', value: 'x' }, { field: 'Work email', value: '' },
        ])),
        user_id: maybe(fc.constantFrom('member', 'admin', 'missing', 'abc')),
      }, { requiredKeys: ['email', 'first_name'] })
      let run = 0
      await fc.assert(
        fc.asyncProperty(fc.array(item, { minLength: 1, maxLength: 12 }), async (generated) => {
          run++
          const a = await company(`Property batch ${String(run)}`)
          const b = await company(`Property singles ${String(run)}`)
          await seed(a)
          await seed(b)
          const concrete = (c: Company) => generated.map((g) => {
            const out: Item = Object.fromEntries(Object.entries(g as Record<string, unknown>).filter(([, value]) => value !== undefined))
            if (Array.isArray(g.tags)) out.tags = g.tags.map((name) => (name === 'missing' ? 999_999_999 : c.tags[name as keyof Company['tags']]))
            if (g.user_id !== undefined) {
              out.user_id = { member: c.memberId, admin: c.who.userId, missing: 999_999_999, abc: 'abc' }[g.user_id]
            }
            return out
          })
          const res = await batch(a.who, { contacts: concrete(a) })
          assert.equal(res.statusCode, 200, res.body)
          const results = res.json<{ results: Result[] }>().results
          const singles = await oneByOne(b.who, concrete(b))
          assert.deepEqual(results.map((r) => r.status), singles.map((r) => r.status))
          assert.deepEqual(results.map((r) => r.error?.details), singles.map((r) => r.error?.details))
          assert.deepEqual(await state(a), await state(b))
          await countersExact(a.who.companyId)
        }),
        { numRuns: Number(process.env.BATCH_PROPERTY_RUNS ?? 15), seed: Number(process.env.BATCH_PROPERTY_SEED ?? 1305) },
      )
    })
  })
}

/** Runs the import example as a user would, over HTTP; resolves with its exit code and output. */
function runImport(csv: string, url: string, token: string): Promise<{ code: number; stdout: string; stderr: string }> {
  const script = fileURLToPath(new URL('../../examples/import-contacts.mjs', import.meta.url))
  return new Promise((resolve) => {
    execFile(process.execPath, [script, csv], { env: { ...process.env, ENGAGE_URL: url, ENGAGE_TOKEN: token } }, (err, stdout, stderr) => {
      resolve({ code: err ? Number(err.code ?? 1) : 0, stdout, stderr })
    })
  })
}

for (const backend of backends()) {
  describe(`examples/import-contacts.mjs against the service over HTTP (${backend.name})`, () => {
    let t: TestApp
    let url: string
    let dir: string

    before(async () => {
      // One request in 1.5 s: every batch after the first of a run is answered 429 first and waits for Retry-After.
      t = await startApp(backend, { config: { rateLimit: { max: 1, windowMs: 1_500, keyPrefix: `engage:test:import:${String(Date.now())}:` } } })
      const address = await t.app.listen({ port: 0, host: '127.0.0.1' })
      url = address
      dir = await mkdtemp(join(tmpdir(), 'engage-import-'))
    })
    after(async () => {
      await t.close()
      await rm(dir, { recursive: true, force: true })
    })

    const contactsOf = (companyId: number) => rawRows<{ first_name: string; last_name: string | null; email: string; business: string | null; position: string | null; stage: string | null }>(
      t.db, sql`select first_name, last_name, email, business, position, stage from contacts where company_id = ${companyId} order by id`)

    test('the sample CSV: every row created, then updated on a second run; quoted cells kept exactly', async () => {
      const who = await tenant(t.db, { name: 'Importer' })
      await addCustomField(t.db, who, { field: 'T-shirt size', kind: 'dropdown', options: [{ name: 'S' }, { name: 'M' }, { name: 'L' }] })
      const sample = fileURLToPath(new URL('../../examples/contacts.csv', import.meta.url))
      const first = await runImport(sample, url, who.token)
      assert.equal(first.code, 0, first.stdout + first.stderr)
      assert.match(first.stdout, /^5 rows: 5 created, 0 updated, 0 refused$/m)
      const rows = await contactsOf(who.companyId)
      assert.equal(rows.length, 5)
      assert.deepEqual(rows[0], { first_name: 'Ana', last_name: 'Souza', email: 'ana.souza@globex.example', business: 'Globex, Inc.', position: 'Head of Sales', stage: 'lead' })
      assert.equal(rows[2]?.last_name, "D'Ávila")
      assert.equal(rows[2].position, 'Buyer, EMEA')
      assert.equal(rows[4]?.position, 'VP "Growth"')
      const [size] = await rawRows<{ n: number }>(t.db, sql`select count(*)::int as n from contact_custom_values where company_id = ${who.companyId}`)
      assert.equal(size?.n, 2)

      const again = await runImport(sample, url, who.token)
      assert.equal(again.code, 0, again.stdout + again.stderr)
      assert.match(again.stdout, /^5 rows: 0 created, 5 updated, 0 refused$/m)
      assert.equal((await contactsOf(who.companyId)).length, 5)
    })

    test('250 rows in three batches through the rate limit (429, Retry-After), refused rows printed with the reason', async () => {
      const who = await tenant(t.db, { name: 'Big importer' })
      const tag = await addTag(t.db, who, { name: 'Imported' })
      const lines = ['first_name,email,tags,stage']
      for (let i = 1; i <= 250; i++) lines.push(`Person ${String(i)},person${String(i)}@example.com,${String(tag.id)},lead`)
      lines[10] = 'Broken,not-an-email,,lead'
      lines[200] = 'Staged,staged@example.com,,nope'
      const csv = join(dir, 'big.csv')
      await writeFile(csv, lines.join('\r\n') + '\r\n')
      const started = Date.now()
      const res = await runImport(csv, url, who.token)
      assert.ok(Date.now() - started >= 2_000, 'two batches waited for their Retry-After')
      assert.equal(res.code, 1, res.stdout + res.stderr)
      assert.match(res.stdout, /^row 11 \(not-an-email\): email is invalid$/m)
      assert.match(res.stdout, /^row 201 \(staged@example\.com\): stage is not included in the list$/m)
      assert.match(res.stdout, /^250 rows: 248 created, 0 updated, 2 refused$/m)
      const [row] = await rawRows<{ n: number; tagged: number }>(t.db, sql`
        select count(*)::int as n, (select count(*) from contact_tags where company_id = ${who.companyId})::int as tagged
          from contacts where company_id = ${who.companyId}`)
      assert.deepEqual(row, { n: 248, tagged: 248 })
    })
  })
}
