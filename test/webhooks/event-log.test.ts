// GET /api/v1/events: the company's event log, oldest first, each item exactly a webhook
// payload; filters by type (one or a comma list), since and after_id; pages with totals;
// pings and other companies' events never listed.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { payload } from '../../src/modules/webhooks/delivery.js'
import { recordApiEvents, type NewApiEvent } from '../../src/modules/outbox/outbox.js'
import { backends, startApp, type TestApp } from '../helpers/app.js'
import { tenant, type Tenant } from '../helpers/factories.js'
import { transaction } from '../../src/db/db.js'

const [backend] = backends()
if (!backend) throw new Error('no backend')

const T0 = new Date('2026-11-22T10:00:00.000Z')
const at = (minutes: number) => new Date(T0.getTime() + minutes * 60_000)

interface ApiEvent {
  id: number
  type: string
  created_at: string
  sequence: number
  data: Record<string, unknown>
}
interface Page {
  data: ApiEvent[]
  meta: { page: number; per_page: number; total_count: number; total_pages: number }
}

describe('the event log', () => {
  let t: TestApp
  let acme: Tenant
  let other: Tenant

  const record = (who: Tenant, events: NewApiEvent[], now: Date) => transaction(t.db, (tx) => recordApiEvents(tx, who.companyId, events, now))
  const get = (url: string, who: Tenant = acme) => t.app.inject({ url: `/api/v1${url}`, headers: who.auth })
  const page = async (url: string, who: Tenant = acme) => {
    const res = await get(url, who)
    assert.equal(res.statusCode, 200, res.body)
    return res.json<Page>()
  }

  before(async () => {
    t = await startApp(backend)
    acme = await tenant(t.db, { name: 'Acme' })
    other = await tenant(t.db, { name: 'Other' })
    // 6 events over 5 minutes, in three transactions; the other company's in between.
    await record(acme, [
      { type: 'tag.created', data: { id: 1, name: 'Hot', color: '#f00' } },
      { type: 'contact.created', data: { id: 10, first_name: 'Ana', tags: [] } },
    ], at(0))
    await record(other, [{ type: 'tag.created', data: { id: 99 } }], at(1))
    await record(acme, [{ type: 'contact.updated', data: { id: 10, first_name: 'Ana María' } }], at(2))
    await record(acme, [
      { type: 'tag.deleted', data: { id: 1, deleted_at: at(5).toISOString() } },
      { type: 'contact.created', data: { id: 11, first_name: 'Bo' } },
      { type: 'lead.created', data: { id: 5, email: 'x@y.example' } },
    ], at(5))
    // A ping (as POST /webhooks/:id/test writes it): never in the log.
    const subscription = await t.app.inject({
      method: 'POST',
      url: '/api/v1/webhooks',
      headers: acme.auth,
      payload: { url: 'https://93.184.215.14/hook', events: ['*'] },
    })
    assert.equal(subscription.statusCode, 201, subscription.body)
    const ping = await t.app.inject({ method: 'POST', url: `/api/v1/webhooks/${String(subscription.json<{ id: number }>().id)}/test`, headers: acme.auth })
    assert.equal(ping.statusCode, 202)
  })
  after(() => t.close())

  test('oldest first, numbered 1..n per company, each item exactly the webhook payload', async () => {
    const res = await get('/events?page=1')
    assert.equal(res.statusCode, 200)
    const body = res.json<Page>()
    assert.deepEqual(body.meta, { page: 1, per_page: 25, total_count: 6, total_pages: 1 })
    assert.deepEqual(body.data.map((e) => [e.sequence, e.type]), [
      [1, 'tag.created'], [2, 'contact.created'], [3, 'contact.updated'], [4, 'tag.deleted'], [5, 'contact.created'], [6, 'lead.created'],
    ])
    const ids = body.data.map((e) => e.id)
    assert.deepEqual(ids, ids.toSorted((a, b) => a - b))
    const first = body.data[0]
    assert.ok(first)
    assert.deepEqual(Object.keys(first), ['id', 'type', 'created_at', 'sequence', 'data'])
    assert.equal(first.created_at, T0.toISOString())
    // Byte for byte what a delivery of the same event posts.
    for (const event of body.data) {
      const delivered = payload({ event_id: event.id, type: event.type, event_created_at: new Date(event.created_at), sequence: event.sequence, data: JSON.stringify(event.data) })
      assert.equal(JSON.stringify(event), delivered)
    }
    assert.deepEqual(body.data[2]?.data, { id: 10, first_name: 'Ana María' })
    assert.ok(!body.data.some((e) => e.type === 'ping'))
  })

  test('paging: per_page, the Link header keeps the filters, past the end is empty', async () => {
    const res = await get('/events?page=2&per_page=4&type=contact.created,tag.created,tag.deleted,contact.updated')
    const body = res.json<Page>()
    assert.deepEqual(body.meta, { page: 2, per_page: 4, total_count: 5, total_pages: 2 })
    assert.deepEqual(body.data.map((e) => e.sequence), [5])
    assert.equal(
      res.headers.link,
      '</api/v1/events?page=1&per_page=4&type=contact.created,tag.created,tag.deleted,contact.updated>; rel="first", ' +
        '</api/v1/events?page=1&per_page=4&type=contact.created,tag.created,tag.deleted,contact.updated>; rel="prev", ' +
        '</api/v1/events?page=2&per_page=4&type=contact.created,tag.created,tag.deleted,contact.updated>; rel="last"',
    )
    assert.deepEqual((await page('/events?page=3&per_page=4')).data, [])
  })

  test('type: one type, or a comma list (spaces allowed)', async () => {
    assert.deepEqual((await page('/events?page=1&type=contact.created')).data.map((e) => e.sequence), [2, 5])
    assert.deepEqual((await page('/events?page=1&type=tag.deleted,%20lead.created')).data.map((e) => e.sequence), [4, 6])
    assert.equal((await page('/events?page=1&type=')).meta.total_count, 6, 'empty: no filter')
    assert.equal((await page('/events?page=1&type=task.completed')).meta.total_count, 0)
  })

  test('since: events created at or after the instant, any offset', async () => {
    assert.deepEqual((await page(`/events?page=1&since=${at(2).toISOString()}`)).data.map((e) => e.sequence), [3, 4, 5, 6])
    assert.deepEqual((await page('/events?page=1&since=2026-11-22T07:03:00-03:00')).data.map((e) => e.sequence), [4, 5, 6])
    assert.deepEqual((await page('/events?page=1&since=2026-11-22T10:05:00.001Z')).data, [])
  })

  test('after_id: for polling, only events after the last one seen; combined with type', async () => {
    const all = (await page('/events?page=1')).data
    const third = all[2]
    assert.ok(third)
    assert.deepEqual((await page(`/events?page=1&after_id=${String(third.id)}`)).data.map((e) => e.sequence), [4, 5, 6])
    assert.deepEqual((await page(`/events?page=1&after_id=${String(third.id)}&type=contact.created`)).data.map((e) => e.sequence), [5])
    assert.deepEqual((await page(`/events?page=1&after_id=${String(all.at(-1)?.id)}`)).data, [])
    // A new event appears after the cursor.
    await record(acme, [{ type: 'task.created', data: { id: 3 } }], at(6))
    const next = (await page(`/events?page=1&after_id=${String(all.at(-1)?.id)}`)).data
    assert.deepEqual(next.map((e) => [e.sequence, e.type]), [[7, 'task.created']])
  })

  test('GET /events/:id: one event; a ping, another company’s or a missing one: 404', async () => {
    const [first] = (await page('/events?page=1')).data
    assert.ok(first)
    const res = await get(`/events/${String(first.id)}`)
    assert.equal(res.statusCode, 200)
    assert.deepEqual(res.json(), first)
    const theirs = (await page('/events?page=1', other)).data
    assert.deepEqual(theirs.map((e) => e.type), ['tag.created'])
    assert.equal((await get(`/events/${String(theirs[0]?.id)}`)).statusCode, 404)
    assert.equal((await get('/events/999999999')).statusCode, 404)
  })

  test('bad parameters: 422 naming the parameter', async () => {
    const cases: [string, string, string][] = [
      ['/events?page=1&type=contact.created,contact.exploded', 'type', '"contact.exploded" is not included in the list'],
      ['/events?page=1&type=ping', 'type', '"ping" is not included in the list'],
      ['/events?page=1&since=yesterday', 'since', ''],
      ['/events?page=1&since=2026-11-22T10:00:00', 'since', ''],
      ['/events?page=1&since=2026-02-30T10:00:00Z', 'since', ''],
      ['/events?page=1&after_id=-1', 'after_id', ''],
      ['/events?page=1&after_id=abc', 'after_id', ''],
      ['/events?page=0', 'page', ''],
      ['/events', 'page', ''],
      ['/events?page=1&per_page=101', 'per_page', ''],
      ['/events/abc', 'id', ''],
    ]
    for (const [url, parameter, message] of cases) {
      const res = await get(url)
      assert.equal(res.statusCode, 422, `${url}: ${res.body}`)
      const details = res.json<{ error: { details: Record<string, string[]> } }>().error.details
      assert.ok(details[parameter], `${url}: ${res.body}`)
      if (message) assert.deepEqual(details[parameter], [message])
    }
  })
})
