// Streaming the audit log elsewhere (issue 28 item 4): the webhook event type
// `audit_event.created`. Only who may read the audit log subscribes to it and sees it in the
// event log; each record reaches the outbox in the statement that writes it (so only with the
// change), and is delivered like every event to the subscriptions that name it (not `*`),
// its data the record exactly as GET /api/v1/audit_events lists it.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { transaction } from '../../src/db/db.js'
import { SYSTEM_CONTEXT, systemActing } from '../../src/acting.js'
import { recordAudit } from '../../src/modules/audit/audit.service.js'
import { createToken } from '../../src/modules/auth/tokens.service.js'
import { backends, startApp, type TestApp } from '../helpers/app.js'
import { addSubscription, addUser, tenant, type Tenant } from '../helpers/factories.js'
import { sql, rawRows } from '../helpers/sql.js'
import { startReceiver, until, type Receiver } from '../webhooks/delivery-helpers.js'

const [backend] = backends()
if (!backend) throw new Error('no backend')

describe('the audit_event.created webhook event', () => {
  let t: TestApp
  let acme: Tenant
  let other: Tenant
  let memberAuth: { authorization: string }
  let receiver: Receiver
  before(async () => {
    t = await startApp(backend, { config: { webhookAllowPrivate: true }, deps: { webhookWorker: { pollIntervalMs: 20 } } })
    acme = await tenant(t.db, { name: 'Acme' })
    other = await tenant(t.db, { name: 'Other' })
    const member = await addUser(t.db, acme.companyId, { role: 'member' })
    memberAuth = { authorization: `Bearer ${(await createToken(t.db, systemActing(), member.id)).token}` }
    receiver = await startReceiver()
  })
  after(async () => {
    await receiver.close()
    await t.close()
  })

  /** Events (recorded or already published: the worker runs) whose data mention `label`. */
  const eventsMentioning = async (label: string) =>
    (await rawRows<{ n: number }>(t.db, sql`select (select count(*) from api_event_outbox where data::text like ${`%${label}%`})
                                                  + (select count(*) from api_events where data::text like ${`%${label}%`}) as n`))[0]?.n
  const subscriptionsNamed = async () =>
    (await rawRows<{ n: number }>(t.db, sql`select count(*)::int as n from webhook_subscriptions where 'audit_event.created' = any (events)`))[0]?.n
  const create = (headers: Record<string, string>, events: string[]) =>
    t.app.inject({ method: 'POST', url: '/api/v1/webhooks', headers, payload: { url: receiver.url, events } })

  test('without a subscription naming it, recording writes nothing to the outbox', async () => {
    await addSubscription(t.db, acme.companyId, ['*'])
    await transaction(t.db, (tx) => recordAudit(tx, acme.companyId, SYSTEM_CONTEXT, { action: 'company.created', target: { id: acme.companyId, label: 'unstreamed record' } }))
    assert.equal(Number(await eventsMentioning('unstreamed record')), 0)
  })

  test('who may subscribe: a member 403 forbidden_role, an admin token without audit:read 403 insufficient_scope, also by a change', async () => {
    const byMember = await create(memberAuth, ['audit_event.created'])
    assert.equal(byMember.statusCode, 403)
    assert.equal(byMember.json().error.code, 'forbidden_role')

    const scoped = await createToken(t.db, systemActing(), acme.userId, { scopes: ['webhooks:write'] })
    const scopedAuth = { authorization: `Bearer ${scoped.token}` }
    const byScoped = await create(scopedAuth, ['contact.created', 'audit_event.created'])
    assert.equal(byScoped.statusCode, 403)
    assert.equal(byScoped.json().error.code, 'insufficient_scope')
    assert.deepEqual(byScoped.json().error.details, { scope: ['audit:read'] })
    assert.equal(await subscriptionsNamed(), 0)

    const plain = await create(scopedAuth, ['contact.created'])
    assert.equal(plain.statusCode, 201, plain.body)
    const id = plain.json<{ id: number }>().id
    const change = await t.app.inject({ method: 'PUT', url: `/api/v1/webhooks/${String(id)}`, headers: scopedAuth, payload: { events: ['audit_event.created'] } })
    assert.equal(change.statusCode, 403)
    assert.deepEqual(change.json().error.details, { scope: ['audit:read'] })
    assert.equal(await subscriptionsNamed(), 0)
    assert.equal((await t.app.inject({ method: 'DELETE', url: `/api/v1/webhooks/${String(id)}`, headers: acme.auth })).statusCode, 204)

    const withScope = await createToken(t.db, systemActing(), acme.userId, { scopes: ['webhooks:write', 'audit:read'] })
    const allowed = await create({ authorization: `Bearer ${withScope.token}` }, ['audit_event.created'])
    assert.equal(allowed.statusCode, 201, allowed.body)
    assert.equal((await t.app.inject({ method: 'DELETE', url: `/api/v1/webhooks/${String(allowed.json<{ id: number }>().id)}`, headers: acme.auth })).statusCode, 204)
  })

  test('an admin subscribes; each record is delivered as the API lists it, to that subscription only; a rolled-back change sends none', async () => {
    const res = await create(acme.auth, ['audit_event.created'])
    assert.equal(res.statusCode, 201, res.body)
    const star = await addSubscription(t.db, acme.companyId, ['*'])
    await addSubscription(t.db, other.companyId, ['audit_event.created'])
    receiver.received.length = 0

    // A change that fails after its record: neither the record nor its event.
    await assert.rejects(transaction(t.db, async (tx) => {
      await recordAudit(tx, acme.companyId, SYSTEM_CONTEXT, { action: 'company.created', target: { id: acme.companyId, label: 'rolled back' } })
      throw new Error('the change failed')
    }))
    assert.equal(Number(await eventsMentioning('rolled back')), 0)

    // A recorded action through the API.
    receiver.received.length = 0
    const action = await t.app.inject({
      method: 'POST',
      url: '/api/v1/webhooks',
      headers: { ...acme.auth, 'x-request-id': 'req-stream', 'user-agent': 'Stream/1.0' },
      payload: { url: 'http://127.0.0.1:9/other', events: ['contact.created'] },
    })
    assert.equal(action.statusCode, 201, action.body)
    await until('the delivery', () => receiver.received.some((r) => r.body.includes('"req-stream"')))
    const delivered = receiver.received.map((r) => JSON.parse(r.body) as { type: string; data: { request_id: string | null; id: number } })
    const streamed = delivered.find((body) => body.data.request_id === 'req-stream')
    assert.ok(streamed)
    assert.equal(streamed.type, 'audit_event.created')
    assert.equal(delivered.filter((body) => body.data.request_id === 'req-stream').length, 1, 'once')

    const list = await t.app.inject({ url: '/api/v1/audit_events?action=webhook.created', headers: acme.auth })
    assert.equal(list.statusCode, 200)
    const listed = list.json<{ data: { id: number }[] }>().data.find((record) => record.id === streamed.data.id)
    assert.deepEqual(streamed.data, listed, 'the record as the API lists it')

    const deliveriesOf = async (id: number) =>
      (await rawRows<{ type: string }>(t.db, sql`select e.type from webhook_deliveries d join api_events e on e.company_id = d.company_id and e.id = d.event_id
                                                   where d.subscription_id = ${id}`)).map((row) => row.type)
    assert.ok(!(await deliveriesOf(star)).includes('audit_event.created'), 'not to a * subscription')
    const otherEvents = await rawRows<{ n: number }>(t.db, sql`select count(*)::int as n from api_events where company_id = ${other.companyId}`)
    assert.equal(otherEvents[0]?.n, 0, 'nothing to another company')
  })

  test('the event log shows audit records to who may read the audit log only', async () => {
    const types = async (headers: Record<string, string>, query = '') => {
      const res = await t.app.inject({ url: `/api/v1/events?page=1&per_page=100${query}`, headers })
      assert.equal(res.statusCode, 200, res.body)
      return res.json<{ data: { id: number; type: string }[] }>().data
    }
    const ofAdmin = await types(acme.auth)
    const audit = ofAdmin.find((event) => event.type === 'audit_event.created')
    assert.ok(audit, 'an admin with full access sees them')
    assert.ok(!(await types(memberAuth)).some((event) => event.type === 'audit_event.created'), 'a member does not')
    assert.deepEqual(await types(memberAuth, '&type=audit_event.created'), [])
    const memberOne = await t.app.inject({ url: `/api/v1/events/${String(audit.id)}`, headers: memberAuth })
    assert.equal(memberOne.statusCode, 404)
    const webhooksOnly = await createToken(t.db, systemActing(), acme.userId, { scopes: ['webhooks:read'] })
    const scoped = { authorization: `Bearer ${webhooksOnly.token}` }
    assert.deepEqual(await types(scoped, '&type=audit_event.created'), [], 'an admin token without audit:read does not')
    assert.equal((await t.app.inject({ url: `/api/v1/events/${String(audit.id)}`, headers: acme.auth })).statusCode, 200)
  })
})
