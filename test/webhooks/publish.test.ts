// Events are numbered when they are published, after their change commits (publish.ts):
// a write does not wait for another write of its company to commit, and the event log still
// never shows an event behind one a poller has already read.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { sql, rawRows } from '../helpers/sql.js'
import { recordApiEvent, recordApiEvents } from '../../src/modules/outbox/outbox.js'
import { publishCompanyEvents, publishEvents } from '../../src/modules/webhooks/publish.js'
import { backends, startApp, type TestApp } from '../helpers/app.js'
import { addSubscription, tenant, type Tenant } from '../helpers/factories.js'
import { transaction } from '../../src/db/db.js'

interface LoggedEvent {
  id: number
  type: string
  sequence: number
  data: { id: number; name?: string }
}

for (const backend of backends()) {
  describe(`events published after commit (${backend.name})`, () => {
    let t: TestApp
    let acme: Tenant
    let other: Tenant

    before(async () => {
      t = await startApp(backend)
      acme = await tenant(t.db, { name: 'Acme' })
      other = await tenant(t.db, { name: 'Other' })
    })
    after(() => t.close())

    const poll = async (who: Tenant, afterId: number): Promise<LoggedEvent[]> => {
      const res = await t.app.inject({ method: 'GET', url: `/api/v1/events?page=1&per_page=100&after_id=${String(afterId)}`, headers: who.auth })
      assert.equal(res.statusCode, 200, res.body)
      return res.json<{ data: LoggedEvent[] }>().data
    }

    test('a write that commits while an earlier one is still open is neither held up nor overtaken in the log', async () => {
      const start = (await poll(acme, 0)).at(-1)?.id ?? 0
      // A transaction records its event first and stays open...
      let commit!: () => void
      let recorded!: () => void
      const gate = new Promise<void>((resolve) => (commit = resolve))
      const held = new Promise<void>((resolve) => (recorded = resolve))
      const slow = transaction(t.db, async (tx) => {
        await recordApiEvent(tx, acme.companyId, 'tag.created', { id: -1, name: 'Slow' }, new Date())
        recorded()
        await gate
      })
      await held
      // ...while a tag is created through the API: it answers without waiting for the open one.
      let timer: NodeJS.Timeout | undefined
      const fast = await Promise.race([
        t.app.inject({ method: 'POST', url: '/api/v1/tags', headers: acme.auth, payload: { name: 'Fast', color: '#123456' } }),
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => {
            reject(new Error('the write waited for the open transaction'))
          }, 5000)
        }),
      ]).finally(() => {
        clearTimeout(timer)
      })
      assert.equal(fast.statusCode, 201, fast.body)

      const first = await poll(acme, start)
      assert.deepEqual(first.map((e) => [e.type, e.data.name]), [['tag.created', 'Fast']], 'the open transaction\'s event is not in the log')
      const read = first[0]
      assert.ok(read)

      commit()
      await slow
      const next = await poll(acme, read.id)
      assert.deepEqual(next.map((e) => [e.type, e.data.name]), [['tag.created', 'Slow']], 'a poll after the last id read finds the late commit')
      const late = next[0]
      assert.ok(late)
      assert.ok(late.id > read.id)
      assert.equal(late.sequence, read.sequence + 1)
    })

    test('the worker and the event log publishing at once move every event once, numbered without gaps', async () => {
      const subscription = await addSubscription(t.db, other.companyId)
      const sequences = async (who: Tenant) =>
        (await rawRows<{ sequence: number }>(t.db, sql`select sequence from api_events where company_id = ${who.companyId} and type <> 'ping' order by id`)).map((r) => r.sequence)
      const before = { acme: (await sequences(acme)).length, other: (await sequences(other)).length }

      const writes = Array.from({ length: 40 }, (_, i) =>
        recordApiEvents(t.db, i % 2 === 0 ? acme.companyId : other.companyId, Array.from({ length: 5 }, (_, j) => ({ type: 'tag.updated' as const, data: { id: i * 5 + j } })), new Date()))
      const publishers = Array.from({ length: 12 }, (_, i) =>
        i % 3 === 0 ? publishEvents(t.db, 7) : publishCompanyEvents(t.db, i % 3 === 1 ? acme.companyId : other.companyId))
      await Promise.all([...writes, ...publishers])
      await publishEvents(t.db, 1000)

      const [left] = await rawRows<{ n: number }>(t.db, sql`select count(*)::int as n from api_event_outbox`)
      assert.equal(left?.n, 0)
      for (const [who, had] of [[acme, before.acme], [other, before.other]] as const) {
        const numbers = await sequences(who)
        assert.equal(numbers.length, had + 100)
        assert.deepEqual(numbers, numbers.map((_, i) => i + 1), 'sequences 1, 2, 3… in id order')
      }
      const [deliveries] = await rawRows<{ n: number; distinct_events: number }>(t.db, sql`
        select count(*)::int as n, count(distinct event_id)::int as distinct_events
          from webhook_deliveries where subscription_id = ${subscription}`)
      assert.deepEqual(deliveries, { n: 100, distinct_events: 100 }, 'one delivery per event')
    })

    test('the event log publishes all of its company\'s committed events before reading, in moves of 1,000', async () => {
      const busy = await tenant(t.db, { name: 'Busy' })
      await recordApiEvents(t.db, busy.companyId, Array.from({ length: 2500 }, (_, i) => ({ type: 'tag.updated' as const, data: { id: i } })), new Date())
      const res = await t.app.inject({ method: 'GET', url: '/api/v1/events?page=25&per_page=100', headers: busy.auth })
      assert.equal(res.statusCode, 200, res.body)
      const page = res.json<{ data: LoggedEvent[]; meta: { total_count: number } }>()
      assert.equal(page.meta.total_count, 2500)
      assert.deepEqual(page.data.map((e) => [e.sequence, e.data.id]).at(-1), [2500, 2499])
    })

    test('a rolled back write publishes nothing', async () => {
      const start = (await poll(other, 0)).at(-1)?.id ?? 0
      await assert.rejects(transaction(t.db, async (tx) => {
        await recordApiEvent(tx, other.companyId, 'tag.deleted', { id: 5 }, new Date())
        throw new Error('boom')
      }), /boom/)
      assert.deepEqual(await poll(other, start), [])
      const [left] = await rawRows<{ n: number }>(t.db, sql`select count(*)::int as n from api_event_outbox`)
      assert.equal(left?.n, 0)
    })
  })
}
