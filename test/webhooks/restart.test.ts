// The outbox survives a crash: the real service process (`node dist/server.js`; `npm run
// build` first) commits a change while its receiver refuses connections, is killed with
// SIGKILL before it could deliver, and once started again (receiver up) delivers the event,
// once, signed.
import assert from 'node:assert/strict'
import type { ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { after, before, describe, test } from 'node:test'
import pg from 'pg'
import { Webhook } from 'standardwebhooks'
import type { DatabaseHandle } from '../../src/db/client.js'
import { secretKeys } from '../../src/secret-key.js'
import { backends, TEST_SECRET_KEY } from '../helpers/app.js'
import { tenant } from '../helpers/factories.js'
import { startServerProcess } from '../helpers/server-process.js'
import { freePort } from '../rate-limit/helpers.js'
import { deliveries, startReceiver, subscribe, until, type Receiver } from './delivery-helpers.js'


for (const backend of backends()) {
  describe(`webhook delivery across a crash (${backend.name})`, () => {
    let database: DatabaseHandle
    let url: string
    let drop: () => Promise<void>
    let sql: pg.Pool
    const children: ChildProcess[] = []
    let hook: Receiver | undefined

    before(async () => {
      ;({ database, url, drop } = await backend.open())
      sql = new pg.Pool({ connectionString: url, max: 2 })
    })
    after(async () => {
      for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
      await hook?.close()
      await sql.end()
      await drop()
    })

    const service = async (port: number) =>
      (await startServerProcess({ url, port, children, env: { WEBHOOK_ALLOW_PRIVATE: 'true' } })).child

    test('a change committed just before SIGKILL is delivered after the restart', async () => {
      const acme = await tenant(database.db, { name: 'Acme' })
      const receiverPort = await freePort() // nothing listens there yet: connections are refused
      const key = secretKeys(Buffer.from(TEST_SECRET_KEY, 'hex')).derive('webhook secrets')
      const subscription = await subscribe(sql, key, acme.companyId, `http://127.0.0.1:${String(receiverPort)}/hook`)

      const port = await freePort()
      const first = await service(port)
      const res = await fetch(`http://127.0.0.1:${String(port)}/api/v1/contacts`, {
        method: 'POST',
        headers: { ...acme.auth, 'content-type': 'application/json' },
        body: JSON.stringify({ first_name: 'Ana', email: 'ana@crash.example' }),
      })
      assert.equal(res.status, 201, await res.clone().text())
      const contact = (await res.json()) as { id: number }
      const killed = once(first, 'exit')
      first.kill('SIGKILL')
      await killed

      const { rows: events } = await sql.query<{ type: string }>(
        'select type from api_events where company_id = $1 union all select type from api_event_outbox where company_id = $1',
        [acme.companyId],
      )
      assert.deepEqual(events.map((e) => e.type), ['contact.created'], 'the change and its event committed together')
      // Not delivered: either not published yet (the worker had no time) or pending.
      const [pending] = await deliveries(sql, subscription.id)
      assert.ok(pending === undefined || pending.status === 'pending', pending?.status)

      hook = await startReceiver(undefined, receiverPort)
      const second = await service(port)
      // Due at once, 5 s after an attempt that failed, or at the end of a lease cut by the kill.
      await until('the delivery after the restart', () => hook !== undefined && hook.received.length > 0, 75_000)
      await until('its outcome recorded', async () => (await deliveries(sql, subscription.id))[0]?.status === 'delivered', 10_000)
      const [received] = hook.received
      assert.ok(received)
      const body = new Webhook(subscription.secret).verify(received.body, received.headers as Record<string, string>) as { type: string; data: { id: number } }
      assert.equal(body.type, 'contact.created')
      assert.equal(body.data.id, contact.id)
      const { rows: published } = await sql.query<{ id: number }>('select id from api_events where company_id = $1', [acme.companyId])
      assert.equal(received.headers['webhook-id'], `evt_${String(published[0]?.id)}`)
      assert.equal(hook.received.length, 1)

      const stopped = once(second, 'exit')
      second.kill('SIGTERM')
      const [code] = (await stopped) as [number | null]
      assert.equal(code, 0)
    })
  })
}
