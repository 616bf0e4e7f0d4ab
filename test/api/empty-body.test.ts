// An empty body is no parameters, whatever its content type (many HTTP clients send
// `Content-Type: application/json` with nothing after it): the action endpoints that take no
// parameters (webhook rotate_secret and test, delivery retry, which is also the replay of a
// delivered one) do their work, and the others answer as for no body. A body that is not
// empty and does not parse stays 400 `bad_request`, with `details.body` saying why, and
// changes nothing.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { decryptSecret } from '../../src/modules/webhooks/secrets.js'
import { backends, startApp, type TestApp } from '../helpers/app.js'
import { tenant, type Tenant } from '../helpers/factories.js'
import { execute, rawRows, sql, type Sql } from '../helpers/sql.js'

const [backend] = backends()
if (!backend) throw new Error('no backend')

const PUBLIC_URL = 'https://93.184.215.14/engage' // a public address literal: no DNS needed
const JSON_TYPES = ['application/json', 'application/json; charset=utf-8']
const FORM = 'application/x-www-form-urlencoded'
/** Each content type with the empty bodies clients send: nothing, or only whitespace. */
const EMPTY_BODIES: [string, string][] = [
  ...JSON_TYPES.map((type): [string, string] => [type, '']),
  ['application/json', ' \r\n\t'],
  [FORM, ''],
]

describe('empty bodies', () => {
  let t: TestApp
  let acme: Tenant
  let webhookId: number

  before(async () => {
    t = await startApp(backend)
    acme = await tenant(t.db)
    const created = await t.app.inject({ method: 'POST', url: '/api/v1/webhooks', headers: acme.auth, payload: { url: PUBLIC_URL, events: ['*'] } })
    assert.equal(created.statusCode, 201, created.body)
    webhookId = created.json<{ id: number }>().id
  })
  after(() => t.close())

  const send = (method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, type: string, payload: string) =>
    t.app.inject({ method, url: `/api/v1${url}`, headers: { ...acme.auth, 'content-type': type }, payload })

  /** The subscription's whole row. */
  const subscription = async () => {
    const [row] = await rawRows<{ secret: string; previousSecret: string | null } & Record<string, unknown>>(t.db, sql`
      select company_id, id, url, events, description, secret, previous_secret as "previousSecret",
        previous_secret_expires_at, enabled, disabled_reason, disabled_at, failing_since, created_at, updated_at
      from webhook_subscriptions where id = ${webhookId}`)
    assert.ok(row)
    return row
  }
  const deliveries = () =>
    rawRows<{ id: number; status: string; attempts: number; deliveredAt: Date | null }>(t.db, sql`
      select id, status, attempts, delivered_at as "deliveredAt" from webhook_deliveries where subscription_id = ${webhookId}`)
  const count = async (query: Sql) => {
    const [row] = await rawRows<{ count: number }>(t.db, query)
    return row?.count
  }
  const key = () => t.app.keys.derive('webhook secrets')

  test('rotate_secret: rotates', async () => {
    for (const [type, payload] of EMPTY_BODIES) {
      const before = decryptSecret(key(), (await subscription()).secret)
      const res = await send('POST', `/webhooks/${String(webhookId)}/rotate_secret`, type, payload)
      assert.equal(res.statusCode, 200, `${type} ${JSON.stringify(payload)}: ${res.body}`)
      const secret = res.json<{ secret: string }>().secret
      assert.notEqual(secret, before)
      const row = await subscription()
      assert.equal(decryptSecret(key(), row.secret), secret)
      assert.equal(decryptSecret(key(), row.previousSecret ?? ''), before)
    }
  })

  test('test: queues a ping', async () => {
    for (const [type, payload] of EMPTY_BODIES) {
      const count = (await deliveries()).length
      const res = await send('POST', `/webhooks/${String(webhookId)}/test`, type, payload)
      assert.equal(res.statusCode, 202, `${type} ${JSON.stringify(payload)}: ${res.body}`)
      const delivery = res.json<{ id: number; event_type: string; status: string }>()
      assert.equal(delivery.event_type, 'ping')
      assert.equal(delivery.status, 'pending')
      const rows = await deliveries()
      assert.equal(rows.length, count + 1)
      assert.ok(rows.some((row) => row.id === delivery.id && row.status === 'pending'))
    }
  })

  test('retry (and replay of a delivered one): sends again from the start', async () => {
    const ping = await send('POST', `/webhooks/${String(webhookId)}/test`, 'application/json', '')
    const deliveryId = ping.json<{ id: number }>().id
    for (const [type, payload] of EMPTY_BODIES) {
      // As if delivered after two attempts: the retry is a replay.
      await execute(t.db, sql`
        update webhook_deliveries set status = 'delivered', attempts = 2, delivered_at = ${new Date()}, next_attempt_at = null
        where id = ${deliveryId}`)
      const res = await send('POST', `/webhooks/${String(webhookId)}/deliveries/${String(deliveryId)}/retry`, type, payload)
      assert.equal(res.statusCode, 202, `${type} ${JSON.stringify(payload)}: ${res.body}`)
      assert.deepEqual(
        (({ id, status, attempts }) => ({ id, status, attempts }))(res.json<{ id: number; status: string; attempts: number }>()),
        { id: deliveryId, status: 'pending', attempts: 0 },
      )
      const [row] = (await deliveries()).filter((d) => d.id === deliveryId)
      assert.equal(row?.status, 'pending')
      assert.equal(row.attempts, 0)
      assert.equal(row.deliveredAt, null)
    }
  })

  test('every other operation: as with no body at all', async () => {
    const bare = await t.app.inject({ method: 'POST', url: '/api/v1/contacts', headers: acme.auth })
    assert.equal(bare.statusCode, 422)
    const bareDetails = bare.json<{ error: { details: object } }>().error.details
    assert.ok('first_name' in bareDetails)
    for (const [type, payload] of EMPTY_BODIES) {
      const list = await send('GET', '/webhooks?page=1', type, payload)
      assert.equal(list.statusCode, 200, list.body)
      assert.equal(list.json<{ meta: { page: number } }>().meta.page, 1)
      // Create with no parameters: the validation's 422, not a 400.
      const create = await send('POST', '/contacts', type, payload)
      assert.equal(create.statusCode, 422, create.body)
      assert.deepEqual(create.json<{ error: { details: object } }>().error.details, bareDetails)
      assert.equal(await count(sql`select count(*) from contacts where company_id = ${acme.companyId}`), 0)
    }
    const spare = await t.app.inject({ method: 'POST', url: '/api/v1/webhooks', headers: acme.auth, payload: { url: PUBLIC_URL, events: ['*'] } })
    const spareId = spare.json<{ id: number }>().id
    const removed = await send('DELETE', `/webhooks/${String(spareId)}`, 'application/json', '')
    assert.equal(removed.statusCode, 204, removed.body)
    assert.equal(await count(sql`select count(*) from webhook_subscriptions where id = ${spareId}`), 0)
  })

  test('a body that is not empty and does not parse: 400 bad_request saying why, and nothing changes', async () => {
    const cases: [string, string, string][] = [
      ['application/json', '{"a":', 'is not valid JSON: it ends before the value is complete'],
      ['application/json', '[1, 2]', 'is not a JSON object'],
      ['application/json', '"text"', 'is not a JSON object'],
      ['application/json', '{"__proto__": {"admin": true}}', 'is not valid JSON: it has a "__proto__" or "constructor.prototype" key'],
      [FORM, 'a=%E0%A4%A', 'is not a valid form: malformed percent-encoding'],
    ]
    const row = await subscription()
    const count = (await deliveries()).length
    for (const [type, payload, problem] of cases) {
      for (const url of [`/webhooks/${String(webhookId)}/rotate_secret`, `/webhooks/${String(webhookId)}/test`]) {
        const res = await send('POST', url, type, payload)
        assert.equal(res.statusCode, 400, `${payload}: ${res.body}`)
        const id = res.headers['x-request-id']
        assert.deepEqual(res.json(), {
          error: {
            status: 400,
            message: 'Bad request',
            code: 'bad_request',
            details: { body: [problem] },
            detail_codes: { body: [problem === 'is not a JSON object' ? 'wrong_type' : 'invalid'] },
            request_id: id,
          },
        })
      }
    }
    // Text that is no JSON at all: where it broke when the engine says (Node 20), never the body quoted.
    const res = await send('POST', `/webhooks/${String(webhookId)}/test`, 'application/json', 'secret-looking-text')
    assert.equal(res.statusCode, 400)
    const [problem] = res.json<{ error: { details: { body: string[] } } }>().error.details.body
    assert.match(problem ?? '', /^is not valid JSON(: unexpected character at position 0)?$/)
    assert.deepEqual(await subscription(), row)
    assert.equal((await deliveries()).length, count)
  })
})
