// The delivery worker under a database too busy for its moves (delivery-worker.ts, publish()):
// a publishing move that passes the statement timeout is followed by smaller ones, so the
// events are published on instead of the worker pausing as if the database were gone.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import type { FastifyBaseLogger } from 'fastify'
import { recordApiEvents } from '../../src/modules/outbox/outbox.js'
import { DeliveryWorker } from '../../src/modules/webhooks-api/index.js'
import { openDatabase, type DatabaseHandle } from '../../src/db/client.js'
import { backends } from '../helpers/app.js'
import { tenant, type Tenant } from '../helpers/factories.js'
import { execute, rawRows, sql } from '../helpers/sql.js'
import { until } from './delivery-helpers.js'

const EVENTS = 300
// Each event a move inserts into api_events sleeps 5 ms (the trigger below), so that under this
// timeout a move of 200 events or more passes it.
const STATEMENT_TIMEOUT_MS = 1000

interface Logged {
  level: 'warn' | 'error' | 'info'
  fields: Record<string, unknown>
  msg: string
}

/** The worker's log, kept: the few methods it calls, each recording what it was given. */
function keptLog(lines: Logged[]): FastifyBaseLogger {
  const at = (level: Logged['level']) => (fields: Record<string, unknown>, msg: string) => {
    lines.push({ level, fields, msg })
  }
  const log = { warn: at('warn'), error: at('error'), info: at('info'), debug: () => undefined, trace: () => undefined, fatal: at('error'), level: 'info', child: () => log }
  return log as unknown as FastifyBaseLogger
}

for (const backend of backends()) {
  describe(`publishing under a statement timeout (${backend.name})`, () => {
    let database: DatabaseHandle
    let drop: () => Promise<void>
    /** The worker's own pool on the database (direct, also behind a pooler), under a short statement timeout. */
    let busy: DatabaseHandle
    let acme: Tenant

    before(async () => {
      const opened = await backend.open()
      database = opened.database
      drop = opened.drop
      busy = await openDatabase({ databaseUrl: opened.url, migrate: false, statementTimeoutMs: STATEMENT_TIMEOUT_MS })
      acme = await tenant(database.db, { name: 'Acme' })
      // A move's time grows with its events, as on a database whose CPU the writers keep busy.
      await execute(database.db, sql`create function test_slow_publish() returns trigger language plpgsql as $$
                                       begin perform pg_sleep(0.005); return new; end $$`)
      await execute(database.db, sql`create trigger test_slow_publish before insert on api_events for each row execute function test_slow_publish()`)
    })
    after(async () => {
      await busy.close()
      await drop()
    })

    test('a move that passes the timeout is followed by smaller ones, and every event is published in order', async () => {
      await recordApiEvents(database.db, acme.companyId, Array.from({ length: EVENTS }, (_, n) => ({ type: 'tag.created' as const, data: { id: n } })), new Date())
      const lines: Logged[] = []
      const worker = new DeliveryWorker(
        { db: busy.db, clock: () => new Date(), secretKey: Buffer.alloc(32, 7), allowPrivate: false, log: keptLog(lines) },
        { pollIntervalMs: 20 },
      )
      worker.start()
      try {
        await until('every event published', async () => {
          const [row] = await rawRows<{ n: number }>(database.db, sql`select count(*)::int as n from api_events where company_id = ${acme.companyId}`)
          return row?.n === EVENTS
        }, 60_000)
      } finally {
        await worker.stop()
      }
      // The first move (all 300 events) passed the timeout, and the next took half of 500.
      const smaller = lines.filter((line) => line.msg.includes('passed the statement timeout'))
      assert.deepEqual(smaller[0]?.fields, { events: 500, next: 250 }, JSON.stringify(lines))
      assert.equal(lines.filter((line) => line.level === 'warn' && !line.msg.includes('passed the statement timeout')).length, 0, JSON.stringify(lines))
      const published = await rawRows<{ sequence: number; n: number }>(database.db, sql`
        select sequence::int, (data->>'id')::int as n from api_events where company_id = ${acme.companyId} order by id`)
      assert.deepEqual(published, Array.from({ length: EVENTS }, (_, n) => ({ sequence: n + 1, n })))
      const [outbox] = await rawRows<{ n: number }>(database.db, sql`select count(*)::int as n from api_event_outbox`)
      assert.equal(outbox?.n, 0)
    })
  })
}
