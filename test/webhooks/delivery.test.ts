// The delivery worker against real receivers on 127.0.0.1 (WEBHOOK_ALLOW_PRIVATE=true):
// signatures a Standard Webhooks verifier accepts (and the previous secret during its 24 h),
// retries by the schedule, timeouts, redirects and big bodies, private addresses refused
// without the flag, disabling after 3 days of failures, pruning after 30 days, two
// instances on one database sending each event once, and nothing for a rolled-back change.
import assert from 'node:assert/strict'
import { hostname } from 'node:os'
import { lookup } from 'node:dns/promises'
import { after, afterEach, before, describe, test } from 'node:test'
import pg from 'pg'
import { Webhook } from 'standardwebhooks'
import { buildApp, type App } from '../../src/app.js'
import type { DatabaseHandle } from '../../src/db/client.js'
import { defaultSchedule, SCHEDULE_MS, USER_AGENT } from '../../src/modules/webhooks/delivery.js'
import { isForbiddenAddress } from '../../src/modules/webhooks/destination.js'
import { EVENT_TYPES } from '../../src/modules/outbox/event-types.js'
import { recordApiEvents, type NewApiEvent } from '../../src/modules/outbox/outbox.js'
import { newSigningSecret } from '../../src/modules/webhooks/secrets.js'
import type { WorkerOptions } from '../../src/modules/webhooks-api/delivery-worker.js'
import { asCompanyId } from '../../src/tenancy.js'
import { backends, testConfig } from '../helpers/app.js'
import { tenant, type Tenant } from '../helpers/factories.js'
import type { ServerResponse } from 'node:http'
import { deliveries, ok, sleep, startReceiver, subscribe, until, type Receiver } from './delivery-helpers.js'
import { transaction } from '../../src/db/db.js'

const HOUR = 60 * 60 * 1000
const DAY = 24 * HOUR

/** Fast polls, a 1 s timeout, no jitter (random 0.5 is the middle of ±10 %). */
const settings: Partial<WorkerOptions> = {
  pollIntervalMs: 20,
  timeoutMs: 1000,
  stopGraceMs: 500,
  schedule: { ...defaultSchedule(), random: () => 0.5 },
}

interface Instance {
  app: App
  database: DatabaseHandle
  sql: pg.Pool
  url: string
  key: Buffer
  close(): Promise<void>
}

for (const backend of backends()) {
  describe(`webhook delivery (${backend.name})`, () => {
    let clock = new Date()
    let main: Instance
    let acme: Tenant
    const receivers: Receiver[] = []

    /** An app with its worker on a database of its own, or on `url`'s. */
    async function instance(options: { allowPrivate?: boolean; url?: string } = {}): Promise<Instance> {
      const { openDatabase } = await import('../../src/db/client.js')
      const opened = options.url ? { database: await openDatabase({ databaseUrl: options.url, migrate: false }), url: options.url, drop: undefined } : await backend.open()
      const app = await buildApp(testConfig({ webhookAllowPrivate: options.allowPrivate ?? true }), {
        database: opened.database,
        clock: () => clock,
        webhookWorker: settings,
      })
      await app.ready()
      const sql = new pg.Pool({ connectionString: opened.url, max: 2 })
      return {
        app,
        database: opened.database,
        sql,
        url: opened.url,
        key: app.keys.derive('webhook secrets'),
        async close() {
          await app.close()
          await sql.end()
          if (opened.drop) await opened.drop()
          else await opened.database.close()
        },
      }
    }

    async function receiver(...args: Parameters<typeof startReceiver>) {
      const started = await startReceiver(...args)
      receivers.push(started)
      return started
    }

    /** Records events in a transaction of their own, at the test clock. */
    const emit = (on: Instance, who: Tenant, events: NewApiEvent[]) =>
      transaction(on.app.db, (tx) => recordApiEvents(tx, asCompanyId(who.companyId), events, clock))

    /** Moves the clock to `at` and has the worker look at once. */
    const moveTo = (at: Date, on = main) => {
      clock = at
      on.app.webhookWorker?.wake()
    }

    const recorded = (row: { status: string; next_attempt_at: Date | null; last_attempt_at: Date | null }) =>
      row.status !== 'pending' || row.next_attempt_at?.getTime() !== (row.last_attempt_at?.getTime() ?? 0) + 60_000

    before(async () => {
      main = await instance()
      acme = await tenant(main.app.db, { name: 'Acme' })
    })
    afterEach(async () => {
      // Each test's subscriptions stop here, so moving the clock later does not retry them.
      await main.sql.query('delete from webhook_subscriptions')
      // And its events are published (fanned out to nobody) before the next test subscribes:
      // an event the worker had not reached yet would otherwise go to the next test's
      // subscription too (a 500-then-200 test once received an earlier test's event first).
      main.app.webhookWorker?.wake()
      await until('every event published', async () =>
        (await main.sql.query<{ n: number }>('select count(*)::int as n from api_event_outbox')).rows[0]?.n === 0)
    })
    after(async () => {
      await Promise.all(receivers.map((r) => r.close()))
      await main.close()
    })

    test('every event type arrives, signed so that a Standard Webhooks verifier accepts it', async () => {
      const hook = await receiver()
      // Every type by name: ["*"] leaves out audit_event.created (docs/webhook-events.md).
      const everything = await subscribe(main.sql, main.key, acme.companyId, hook.url, { events: [...EVENT_TYPES] })
      const tagsOnly = await receiver()
      const tagSubscription = await subscribe(main.sql, main.key, acme.companyId, tagsOnly.url, { events: ['tag.created'] })
      // Key order is the API's, not alphabetical: the data must arrive byte for byte.
      await emit(main, acme, EVENT_TYPES.map((type, i) => ({ type, data: { id: i + 1, zeta: 'first', alpha: [1, 2], nested: { b: null, a: 'é' } } })))

      await until('21 deliveries', () => hook.received.length === EVENT_TYPES.length)
      const verifier = new Webhook(everything.secret)
      const types = []
      const sequences = []
      for (const { headers, body } of hook.received) {
        const verified = verifier.verify(body, headers as Record<string, string>) as { id: number; type: string; created_at: string; sequence: number; data: unknown }
        assert.deepEqual(Object.keys(verified), ['id', 'type', 'created_at', 'sequence', 'data'])
        assert.equal(headers['webhook-id'], `evt_${String(verified.id)}`)
        assert.equal(headers['content-type'], 'application/json')
        assert.equal(headers['user-agent'], USER_AGENT)
        assert.match(USER_AGENT, /^engage-webhooks\/\d+\.\d+\.\d+/)
        assert.ok(Math.abs(Number(headers['webhook-timestamp']) - Date.now() / 1000) < 30)
        assert.match(String(headers['webhook-signature']), /^v1,[A-Za-z0-9+/]+=*$/)
        assert.equal(verified.created_at, clock.toISOString())
        assert.ok(body.endsWith(`"data":{"id":${String(verified.sequence)},"zeta":"first","alpha":[1,2],"nested":{"b":null,"a":"é"}}}`), body)
        types.push(verified.type)
        sequences.push(verified.sequence)
      }
      assert.deepEqual(types.toSorted(), [...EVENT_TYPES].sort())
      assert.deepEqual(sequences.toSorted((a, b) => a - b), EVENT_TYPES.map((_, i) => i + 1))
      // A wrong secret does not verify.
      assert.throws(() => new Webhook(newSigningSecret()).verify(hook.received[0]?.body ?? '', hook.received[0]?.headers as Record<string, string>))

      await until('the tag subscription', () => tagsOnly.received.length === 1)
      assert.equal((JSON.parse(tagsOnly.received[0]?.body ?? '{}') as { type: string }).type, 'tag.created')
      // A receiver has the request before the worker records its answer: wait for both records.
      const outcomes = async () => [...(await deliveries(main.sql, everything.id)), ...(await deliveries(main.sql, tagSubscription.id))]
      await until('outcomes recorded', async () => (await outcomes()).filter((d) => d.status === 'delivered').length === EVENT_TYPES.length + 1)
      const rows = await outcomes()
      assert.equal(rows.length, EVENT_TYPES.length + 1)
      for (const row of rows) {
        assert.equal(row.status, 'delivered')
        assert.equal(row.attempts, 1)
        assert.equal(row.last_response_status, 200)
        assert.equal(row.last_error, null)
        assert.equal(row.next_attempt_at, null)
        assert.deepEqual(row.delivered_at, clock)
        assert.deepEqual(row.first_attempt_at, clock)
      }
    })

    test('after a rotation the previous secret verifies for 24 h, then no more', async () => {
      const hook = await receiver()
      const old = newSigningSecret()
      const subscription = await subscribe(main.sql, main.key, acme.companyId, hook.url, {
        previousSecret: old,
        previousExpiresAt: new Date(clock.getTime() + DAY),
      })
      await emit(main, acme, [{ type: 'tag.created', data: { id: 1 } }])
      await until('the first delivery', () => hook.received.length === 1)
      const first = hook.received[0]
      assert.ok(first)
      assert.equal(String(first.headers['webhook-signature']).split(' ').length, 2)
      for (const secret of [subscription.secret, old]) assert.doesNotThrow(() => new Webhook(secret).verify(first.body, first.headers as Record<string, string>))
      // Its outcome recorded before the clock jumps a day: a delivery still leased then would
      // look abandoned (its 60 s lease long past) and be sent again, a third request.
      await until('the first delivery recorded', async () => (await deliveries(main.sql, subscription.id))[0]?.status === 'delivered')

      moveTo(new Date(clock.getTime() + DAY + 1000))
      await emit(main, acme, [{ type: 'tag.created', data: { id: 2 } }])
      await until('the second delivery', () => hook.received.length === 2)
      const second = hook.received[1]
      assert.ok(second)
      assert.equal(String(second.headers['webhook-signature']).split(' ').length, 1)
      assert.doesNotThrow(() => new Webhook(subscription.secret).verify(second.body, second.headers as Record<string, string>))
      assert.throws(() => new Webhook(old).verify(second.body, second.headers as Record<string, string>))
    })

    test('500 then 200: received twice with the same webhook-id, delivered at the second attempt', async () => {
      let calls = 0
      const hook = await receiver((_request, response) => {
        calls++
        response.statusCode = calls === 1 ? 500 : 200
        response.end(calls === 1 ? '{"error":"database on fire"}' : 'thanks')
      })
      const subscription = await subscribe(main.sql, main.key, acme.companyId, hook.url)
      const start = clock
      await emit(main, acme, [{ type: 'contact.created', data: { id: 7 } }])

      await until('the failed attempt recorded', async () => {
        const [row] = await deliveries(main.sql, subscription.id)
        return row !== undefined && row.attempts === 1 && recorded(row)
      })
      const [failed] = await deliveries(main.sql, subscription.id)
      assert.equal(failed?.status, 'pending')
      assert.equal(failed.last_response_status, 500)
      assert.equal(failed.last_error, 'HTTP 500: {"error":"database on fire"}')
      assert.deepEqual(failed.next_attempt_at, new Date(start.getTime() + (SCHEDULE_MS[0] ?? 0)))
      const [failing] = (await main.sql.query<{ failing_since: Date | null }>('select failing_since from webhook_subscriptions where id = $1', [subscription.id])).rows
      assert.deepEqual(failing?.failing_since, start)

      await sleep(100) // not due yet: nothing is sent
      assert.equal(hook.received.length, 1)
      moveTo(failed.next_attempt_at)
      await until('the second attempt recorded', async () => (await deliveries(main.sql, subscription.id))[0]?.status === 'delivered')
      assert.equal(hook.received.length, 2)
      assert.equal(hook.received[0]?.headers['webhook-id'], hook.received[1]?.headers['webhook-id'])
      assert.equal(hook.received[0]?.body, hook.received[1]?.body)
      const [delivered] = await deliveries(main.sql, subscription.id)
      assert.equal(delivered?.attempts, 2)
      assert.equal(delivered.last_response_status, 200)
      assert.equal(delivered.last_error, null)
      assert.deepEqual(delivered.delivered_at, clock)
      assert.deepEqual(delivered.first_attempt_at, start)
      const [cleared] = (await main.sql.query<{ failing_since: Date | null }>('select failing_since from webhook_subscriptions where id = $1', [subscription.id])).rows
      assert.equal(cleared?.failing_since, null)
    })

    test('a receiver that never answers is timed out and tried again', async () => {
      const cut: boolean[] = []
      const hook = await receiver((request, response) => {
        request.socket.once('close', () => cut.push(!response.writableEnded))
      })
      const subscription = await subscribe(main.sql, main.key, acme.companyId, hook.url)
      const started = Date.now()
      await emit(main, acme, [{ type: 'task.created', data: { id: 1 } }])
      await until('the timeout recorded', async () => {
        const [row] = await deliveries(main.sql, subscription.id)
        return row !== undefined && row.attempts === 1 && recorded(row)
      })
      const elapsed = Date.now() - started
      assert.ok(elapsed >= 1000 && elapsed < 3000, `${String(elapsed)} ms`)
      const [timedOut] = await deliveries(main.sql, subscription.id)
      assert.equal(timedOut?.status, 'pending')
      assert.equal(timedOut.last_response_status, null)
      assert.equal(timedOut.last_error, 'timed out after 1 s without a response')
      await until('the connection closed by the worker', () => cut.length === 1)
      assert.deepEqual(cut, [true])

      hook.handler = ok
      moveTo(timedOut.next_attempt_at ?? clock)
      await until('delivered at the retry', async () => (await deliveries(main.sql, subscription.id))[0]?.status === 'delivered')
      assert.equal(hook.received.length, 2)
    })

    test('a receiver that trickles its body is cut at the timeout (a 2xx status counts)', async () => {
      const hook = await receiver((_request, response) => {
        response.writeHead(200, { 'content-type': 'text/plain' })
        response.write('a')
        const timer = setInterval(() => {
          response.write('a')
        }, 100)
        response.on('close', () => {
          clearInterval(timer)
        })
      })
      const subscription = await subscribe(main.sql, main.key, acme.companyId, hook.url)
      const started = Date.now()
      await emit(main, acme, [{ type: 'task.created', data: { id: 2 } }])
      await until('recorded', async () => (await deliveries(main.sql, subscription.id))[0]?.status === 'delivered')
      assert.ok(Date.now() - started >= 1000)
      assert.equal((await deliveries(main.sql, subscription.id))[0]?.attempts, 1)
    })

    test('a redirect is not followed: the attempt fails with the 3xx', async () => {
      const target = await receiver()
      const hook = await receiver((_request, response) => {
        response.writeHead(307, { location: target.url })
        response.end()
      })
      const subscription = await subscribe(main.sql, main.key, acme.companyId, hook.url)
      await emit(main, acme, [{ type: 'lead.created', data: { id: 1 } }])
      await until('recorded', async () => {
        const [row] = await deliveries(main.sql, subscription.id)
        return row !== undefined && row.attempts === 1 && recorded(row)
      })
      const [row] = await deliveries(main.sql, subscription.id)
      assert.equal(row?.status, 'pending')
      assert.equal(row.last_response_status, 307)
      assert.equal(row.last_error, `HTTP 307: redirect to ${target.url} not followed`)
      assert.equal(target.received.length, 0)
    })

    test('a huge response body is cut after 4 KiB', async () => {
      // An endless body: only a worker that stops reading and closes the connection ends it.
      const closed: number[] = []
      const endless = (status: number) => (_request: unknown, response: ServerResponse) => {
        response.statusCode = status
        const chunk = 'x'.repeat(64 * 1024)
        let sent = 0
        const more = () => {
          while (!response.destroyed && response.write(chunk)) sent += chunk.length
        }
        response.on('drain', more)
        response.on('close', () => closed.push(sent))
        more()
      }
      const hook = await receiver(endless(500))
      const subscription = await subscribe(main.sql, main.key, acme.companyId, hook.url)
      await emit(main, acme, [{ type: 'lead.linked', data: { id: 1 } }])
      await until('recorded', async () => {
        const [row] = await deliveries(main.sql, subscription.id)
        return row !== undefined && row.attempts === 1 && recorded(row)
      })
      const [row] = await deliveries(main.sql, subscription.id)
      assert.equal(row?.last_response_status, 500)
      assert.equal(row.last_error, `HTTP 500: ${'x'.repeat(200)}…`)
      await until('the receiver sees the connection closed', () => closed.length === 1)

      // The same with a 200: delivered, and cut all the same.
      hook.handler = endless(200)
      moveTo(row.next_attempt_at ?? clock)
      await until('delivered', async () => (await deliveries(main.sql, subscription.id))[0]?.status === 'delivered')
      await until('closed again', () => closed.length === 2)
    })

    test('without WEBHOOK_ALLOW_PRIVATE, private destinations are refused at delivery time, without a connection', async () => {
      const strict = await instance({ allowPrivate: false })
      try {
        const hook = await receiver()
        const them = await tenant(strict.app.db, { name: 'Strict' })
        const name = hostname()
        const resolved = await lookup(name).then((a) => a.address, () => undefined)
        const cases: [string, string][] = [
          [hook.url, 'refused: the URL must be an https URL (WEBHOOK_ALLOW_PRIVATE=true on the server allows it, for development only)'],
          [`https://127.0.0.1:${String(hook.port)}/hook`, 'refused: the URL must not point to a private or reserved address (WEBHOOK_ALLOW_PRIVATE=true on the server allows it, for development only)'],
          [`https://[::ffff:127.0.0.1]:${String(hook.port)}/hook`, 'refused: the URL must not point to a private or reserved address (WEBHOOK_ALLOW_PRIVATE=true on the server allows it, for development only)'],
        ]
        // A name that resolves to a private address (DNS rebinding): refused by the lookup itself.
        if (resolved && isForbiddenAddress(resolved)) {
          cases.push([`https://${name}:${String(hook.port)}/hook`, `refused: ${name} resolves to ${resolved}, a private or reserved address`])
        }
        const subscriptions = []
        for (const [url] of cases) subscriptions.push(await subscribe(strict.sql, strict.key, them.companyId, url))
        await emit(strict, them, [{ type: 'tag.deleted', data: { id: 1, deleted_at: clock.toISOString() } }])
        for (const [i, [, error]] of cases.entries()) {
          const id = subscriptions[i]?.id ?? 0
          await until(`outcome ${String(i)}`, async () => {
            const [row] = await deliveries(strict.sql, id)
            return row !== undefined && row.attempts === 1 && recorded(row)
          })
          const [row] = await deliveries(strict.sql, id)
          assert.equal(row?.status, 'pending')
          assert.equal(row.last_error, error)
          assert.equal(row.last_response_status, null)
        }
        assert.equal(hook.connections, 0)
        assert.equal(hook.received.length, 0)
      } finally {
        await strict.close()
      }
    })

    test('a slow endpoint holds at most 2 posts and does not hold up the others', async () => {
      let open = 0
      let most = 0
      const slow = await receiver((_request, response) => {
        open++
        most = Math.max(most, open)
        response.on('close', () => open--)
      })
      const fast = await receiver()
      await subscribe(main.sql, main.key, acme.companyId, slow.url)
      const other = await tenant(main.app.db, { name: 'Fast' })
      await subscribe(main.sql, main.key, other.companyId, fast.url)
      await emit(main, acme, Array.from({ length: 10 }, (_, i) => ({ type: 'contact.tagged' as const, data: { id: i } })))
      await until('two slow posts open', () => open === 2)
      const sent = Date.now()
      await emit(main, other, [{ type: 'contact.untagged', data: { id: 1 } }])
      await until('the fast one delivered', () => fast.received.length === 1)
      assert.ok(Date.now() - sent < 500, 'not behind the slow endpoint')
      await until('the slow ones timed out', () => slow.received.length >= 4)
      assert.equal(most, 2)
    })

    test('closing the app lets a post in flight finish and records it', async () => {
      const own = await instance()
      let closed = false
      try {
        const hook = await receiver((_request, response) => {
          setTimeout(() => response.end('ok'), 300)
        })
        const them = await tenant(own.app.db)
        const subscription = await subscribe(own.sql, own.key, them.companyId, hook.url)
        await emit(own, them, [{ type: 'meet_transcription.created', data: { id: 1 } }])
        await until('the post under way', () => hook.received.length === 1)
        await own.app.close()
        closed = true
        const [row] = await deliveries(own.sql, subscription.id)
        assert.equal(row?.status, 'delivered')
        assert.equal(row.attempts, 1)
      } finally {
        if (closed) {
          await own.sql.end()
          await own.database.close()
        } else await own.close()
      }
    })

    test('two instances on one database deliver each event exactly once', async () => {
      const second = await instance({ url: main.url })
      try {
        const hook = await receiver((_request, response) => {
          setTimeout(() => response.end('ok'), 5)
        })
        await subscribe(main.sql, main.key, acme.companyId, hook.url)
        const n = 60
        for (let i = 0; i < n; i += 10) {
          await emit(main, acme, Array.from({ length: 10 }, (_, j) => ({ type: 'contact.updated' as const, data: { id: i + j } })))
        }
        await until('every event', () => hook.received.length >= n)
        await sleep(300)
        const ids = hook.received.map((r) => r.headers['webhook-id'])
        assert.equal(ids.length, n)
        assert.equal(new Set(ids).size, n)
        const outcomes = async () =>
          (await main.sql.query<{ status: string; attempts: number; count: number }>(
            `select status, attempts, count(*)::int as count from webhook_deliveries d
              join webhook_subscriptions s on s.company_id = d.company_id and s.id = d.subscription_id group by status, attempts`,
          )).rows
        // The last answers may still be on their way into the table (a slow machine).
        await until('every outcome recorded', async () => (await outcomes()).every((row) => row.status === 'delivered'))
        assert.deepEqual(await outcomes(), [{ status: 'delivered', attempts: 1, count: n }])
      } finally {
        await second.close()
      }
    })

    test('a rolled-back change emits nothing', async () => {
      const hook = await receiver()
      const subscription = await subscribe(main.sql, main.key, acme.companyId, hook.url)
      const { rows: before } = await main.sql.query<{ count: number }>('select count(*)::int as count from api_events')
      await assert.rejects(
        transaction(main.app.db, async (tx) => {
          await recordApiEvents(tx, asCompanyId(acme.companyId), [{ type: 'tag.created', data: { id: 1 } }], clock)
          throw new Error('changed my mind')
        }),
        /changed my mind/,
      )
      await sleep(200)
      const { rows: after } = await main.sql.query<{ count: number }>('select count(*)::int as count from api_events')
      assert.deepEqual(after, before)
      const { rows: staged } = await main.sql.query<{ count: number }>('select count(*)::int as count from api_event_outbox')
      assert.deepEqual(staged, [{ count: 0 }])
      assert.deepEqual(await deliveries(main.sql, subscription.id), [])
      assert.equal(hook.received.length, 0)
    })

    test('failing for 3 days: retried by the schedule, then failed, and the subscription disabled with the reason', async () => {
      const hook = await receiver((_request, response) => {
        response.statusCode = 503
        response.end('maintenance')
      })
      const subscription = await subscribe(main.sql, main.key, acme.companyId, hook.url)
      const start = clock
      await emit(main, acme, [{ type: 'custom_field.created', data: { id: 1 } }])
      const times: number[] = []
      for (;;) {
        await until('an outcome', async () => {
          const row = (await deliveries(main.sql, subscription.id))[0]
          return row !== undefined && row.attempts === times.length + 1 && recorded(row)
        })
        times.push(clock.getTime() - start.getTime())
        const [row] = await deliveries(main.sql, subscription.id)
        if (row?.status !== 'pending') break
        if (times.length === 5) await emit(main, acme, [{ type: 'custom_field.updated', data: { id: 1 } }]) // a second event, still pending when the subscription is disabled
        moveTo(row.next_attempt_at ?? clock)
      }
      const at = (h: number, m = 0, s = 0) => ((h * 60 + m) * 60 + s) * 1000
      assert.deepEqual(times, [
        0, at(0, 0, 5), at(0, 0, 35), at(0, 2, 35), at(0, 12, 35), at(0, 42, 35), at(1, 42, 35), at(3, 42, 35), at(7, 42, 35),
        at(15, 42, 35), at(27, 42, 35), at(39, 42, 35), at(51, 42, 35), at(63, 42, 35), 3 * DAY,
      ])
      const [gaveUp, pending] = await deliveries(main.sql, subscription.id)
      assert.equal(gaveUp?.status, 'failed')
      assert.equal(gaveUp.attempts, 15)
      assert.equal(gaveUp.next_attempt_at, null)
      assert.equal(gaveUp.last_error, 'HTTP 503: maintenance')
      const { rows: [disabled] } = await main.sql.query<{ enabled: boolean; disabled_at: Date | null; disabled_reason: string | null; updated_at: Date }>(
        'select enabled, disabled_at, disabled_reason, updated_at from webhook_subscriptions where id = $1',
        [subscription.id],
      )
      assert.equal(disabled?.enabled, false)
      assert.deepEqual(disabled.disabled_at, clock)
      assert.deepEqual(disabled.updated_at, clock)
      assert.equal(disabled.disabled_reason, `every delivery failed since ${start.toISOString().replace(/\.\d{3}Z$/, 'Z')}; last attempt: HTTP 503: maintenance`)
      // Recorded in the audit log with the outcomes, once, by the system.
      const { rows: records } = await main.sql.query<Record<string, unknown>>(
        `select actor_type, target_type, target_id, target_label, outcome, changes, occurred_at
           from audit_events where action = 'webhook.paused' and target_id = $1`,
        [subscription.id],
      )
      assert.deepEqual(records, [{
        actor_type: 'system', target_type: 'webhook', target_id: subscription.id, target_label: hook.url,
        outcome: 'success', changes: { enabled: [true, false] }, occurred_at: clock,
      }])

      // The other delivery is not attempted any more, and new events are not fanned out to it.
      assert.equal(pending?.status, 'pending')
      const sent = hook.received.length
      moveTo(new Date(clock.getTime() + DAY))
      await until('the pending one failed', async () => (await deliveries(main.sql, subscription.id))[1]?.status === 'failed')
      const [, stopped] = await deliveries(main.sql, subscription.id)
      assert.equal(stopped?.last_error, 'not attempted: the subscription is disabled')
      await emit(main, acme, [{ type: 'custom_field.deleted', data: { id: 1 } }])
      await sleep(100)
      assert.equal(hook.received.length, sent)
      assert.equal((await deliveries(main.sql, subscription.id)).length, 2)
    })

    test('an attempt made before the 3 days but recorded after them does not disable the subscription; the next failure does', async () => {
      // What stalled the test above in CI: the second delivery's attempt at 63 h, recorded with the
      // clock at 72 h, disabled the subscription before the first delivery's last attempt was made.
      let hold = true
      const held: (() => void)[] = []
      const hook = await receiver((_request, response) => {
        response.statusCode = 503
        if (hold) held.push(() => response.end('maintenance'))
        else response.end('maintenance')
      })
      const subscription = await subscribe(main.sql, main.key, acme.companyId, hook.url)
      // Failing for 3 days less 30 s (its earlier deliveries); 30 s: within the 60 s lease.
      const since = new Date(clock.getTime() - 3 * DAY + 30_000)
      await main.sql.query('update webhook_subscriptions set failing_since = $2 where id = $1', [subscription.id, since])
      const attemptedAt = clock
      await emit(main, acme, [{ type: 'custom_field.created', data: { id: 2 } }])
      await until('the attempt under way', () => held.length === 1)
      // Its answer comes once the 3 days are over.
      moveTo(new Date(since.getTime() + 3 * DAY + 1000))
      held.shift()?.()
      await until('its outcome', async () => {
        const [row] = await deliveries(main.sql, subscription.id)
        return row !== undefined && row.attempts === 1 && recorded(row)
      })
      const [first] = await deliveries(main.sql, subscription.id)
      assert.equal(first?.status, 'pending')
      assert.deepEqual(first.last_attempt_at, attemptedAt)
      const state = async () =>
        (await main.sql.query<{ enabled: boolean; failing_since: Date | null; disabled_at: Date | null }>(
          'select enabled, failing_since, disabled_at from webhook_subscriptions where id = $1',
          [subscription.id],
        )).rows[0]
      assert.deepEqual(await state(), { enabled: true, failing_since: since, disabled_at: null })

      // The next attempt is made after the 3 days: its failure disables the subscription.
      hold = false
      moveTo(first.next_attempt_at ?? clock)
      await until('the next outcome', async () => {
        const [row] = await deliveries(main.sql, subscription.id)
        return row !== undefined && row.attempts === 2 && recorded(row)
      })
      assert.equal(hook.received.length, 2)
      assert.deepEqual(await state(), { enabled: false, failing_since: since, disabled_at: clock })
      const { rows: [paused] } = await main.sql.query<{ count: number }>(
        `select count(*)::int as count from audit_events where action = 'webhook.paused' and target_id = $1`,
        [subscription.id],
      )
      assert.equal(paused?.count, 1)
    })

    test('events and their deliveries are pruned 30 days after they were recorded', async () => {
      moveTo(new Date(clock.getTime() + 31 * DAY))
      await main.app.webhookWorker?.prune() // what the other tests left
      const hook = await receiver()
      const subscription = await subscribe(main.sql, main.key, acme.companyId, hook.url)
      const other = await tenant(main.app.db, { name: 'Prune' })
      await emit(main, other, [{ type: 'tag.created', data: { id: 1 } }])
      await emit(main, acme, [{ type: 'tag.created', data: { id: 1 } }, { type: 'tag.updated', data: { id: 1 } }])
      // Both of acme's events fanned out (the worker does that on its own time) and delivered.
      await until('delivered', async () => {
        const rows = await deliveries(main.sql, subscription.id)
        return rows.length === 2 && rows.every((d) => d.status === 'delivered')
      })
      const old = clock
      moveTo(new Date(clock.getTime() + 29 * DAY))
      await emit(main, acme, [{ type: 'tag.deleted', data: { id: 1 } }])
      // Its delivery exists before the prune, or the check below would race the worker.
      main.app.webhookWorker?.wake()
      await until('the recent event fanned out', async () => (await deliveries(main.sql, subscription.id)).length === 3)
      const count = async (query: string) => (await main.sql.query<{ count: number }>(query, [old])).rows[0]?.count
      const olderEvents = 'select count(*)::int as count from api_events where created_at <= $1'
      assert.ok(((await count(olderEvents)) ?? 0) >= 3)
      assert.equal(await main.app.webhookWorker?.prune(), 0, 'nothing is 30 days old yet')

      moveTo(new Date(old.getTime() + 30 * DAY + 1))
      const pruned = await main.app.webhookWorker?.prune()
      assert.ok((pruned ?? 0) >= 3)
      assert.equal(await count(olderEvents), 0)
      assert.equal(await count('select count(*)::int as count from webhook_deliveries where created_at <= $1'), 0)
      const left = await deliveries(main.sql, subscription.id)
      assert.equal(left.length, 1, 'the recent event keeps its delivery')
      assert.equal(await count('select count(*)::int as count from api_events where created_at > $1'), 1)
    })
  })
}
