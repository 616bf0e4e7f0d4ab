// The webhooks API: subscriptions (create, list, show, update, delete), destinations checked
// when saved (with and without WEBHOOK_ALLOW_PRIVATE), secrets shown only on create and
// rotate and stored encrypted, pings, deliveries and their retry, and other companies' ids
// answering 404 on every route.
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { after, before, beforeEach, describe, test } from 'node:test'
import { recordApiEvents } from '../../src/modules/outbox/outbox.js'
import { publishEvents } from '../../src/modules/webhooks/publish.js'
import { decryptSecret, signatureHeader } from '../../src/modules/webhooks/secrets.js'
import { MAX_SUBSCRIPTIONS } from '../../src/modules/webhooks/webhooks.schemas.js'
import { Webhook } from 'standardwebhooks'
import { backends, startApp, type TestApp } from '../helpers/app.js'
import { tenant, type Tenant } from '../helpers/factories.js'
import { startReceiver, until } from './delivery-helpers.js'
import { rawRows, sql, execute, type Sql } from '../helpers/sql.js'
import { transaction } from '../../src/db/db.js'

const [backend] = backends()
if (!backend) throw new Error('no backend')

const PUBLIC_URL = 'https://93.184.215.14/engage' // a public address literal: no DNS needed
const NOW = new Date('2026-11-22T10:00:00.000Z')
const SECRET_FORMAT = /^whsec_[A-Za-z0-9+/]{43}=$/

interface Subscription {
  id: number
  url: string
  events: string[]
  description: string | null
  enabled: boolean
  disabled_reason: string | null
  disabled_at: string | null
  created_at: string
  updated_at: string
  secret?: string
  previous_secret_expires_at?: string | null
}

/** The record as show and list answer it. */
function withoutSecret(s: Subscription): Omit<Subscription, 'secret' | 'previous_secret_expires_at'> {
  const { secret: _s, previous_secret_expires_at: _p, ...rest } = s
  return rest
}

interface Delivery {
  id: number
  event_id: number
  event_type: string
  status: string
  attempts: number
  next_attempt_at: string | null
  delivered_at: string | null
}

interface ErrorBody {
  error: { status: number; code: string; details?: Record<string, string[]>; detail_codes?: Record<string, string[]> }
}

describe('webhook subscriptions API', () => {
  let t: TestApp
  let open: TestApp // WEBHOOK_ALLOW_PRIVATE=true
  let acme: Tenant
  let other: Tenant
  let clock = NOW

  before(async () => {
    ;[t, open] = await Promise.all([
      startApp(backend, { deps: { clock: () => clock } }),
      startApp(backend, { config: { webhookAllowPrivate: true }, deps: { clock: () => clock } }),
    ])
    acme = await tenant(t.db, { name: 'Acme' })
    other = await tenant(t.db, { name: 'Other' })
  })
  after(() => Promise.all([t.close(), open.close()]))
  beforeEach(() => {
    clock = NOW
  })

  const call = (method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, payload?: object, who: Tenant = acme, on: TestApp = t) =>
    on.app.inject({ method, url: `/api/v1${url}`, headers: who.auth, ...(payload ? { payload } : {}) })

  async function create(body: object, who: Tenant = acme): Promise<Subscription> {
    const res = await call('POST', '/webhooks', body, who)
    assert.equal(res.statusCode, 201, res.body)
    return res.json<Subscription>()
  }

  const rowOf = async (id: number) => {
    const [row] = await rawRows<{
      companyId: number
      url: string
      events: string[]
      description: string | null
      secret: string
      previousSecret: string | null
      previousSecretExpiresAt: Date | null
      enabled: boolean
      failingSince: Date | null
    }>(t.db, sql`
      select company_id as "companyId", url, events, description, secret, previous_secret as "previousSecret",
             previous_secret_expires_at as "previousSecretExpiresAt", enabled, failing_since as "failingSince"
        from webhook_subscriptions where id = ${id}`)
    assert.ok(row)
    return row
  }
  /** How many rows `from` (a table and its where clause) holds. */
  const count = async (from: Sql) => (await rawRows<{ n: number }>(t.db, sql`select count(*)::int as n from ${from}`))[0]?.n
  const key = () => t.app.keys.derive('webhook secrets')

  test('create: 201 with Location and the secret; the row holds it encrypted only', async () => {
    const res = await call('POST', '/webhooks', { url: PUBLIC_URL, events: ['contact.created', 'tag.created'], description: 'CRM sync' })
    assert.equal(res.statusCode, 201, res.body)
    const body = res.json<Subscription>()
    assert.equal(res.headers.location, `/api/v1/webhooks/${String(body.id)}`)
    assert.deepEqual(Object.keys(body), [
      'id', 'url', 'events', 'description', 'enabled', 'disabled_reason', 'disabled_at', 'created_at', 'updated_at', 'secret', 'previous_secret_expires_at',
    ])
    assert.deepEqual({ ...body, id: 0, secret: '' }, {
      id: 0,
      url: PUBLIC_URL,
      events: ['contact.created', 'tag.created'],
      description: 'CRM sync',
      enabled: true,
      disabled_reason: null,
      disabled_at: null,
      created_at: NOW.toISOString(),
      updated_at: NOW.toISOString(),
      secret: '',
      previous_secret_expires_at: null,
    })
    assert.match(body.secret ?? '', SECRET_FORMAT)
    const row = await rowOf(body.id)
    assert.equal(row.companyId, acme.companyId)
    assert.ok(!row.secret.includes(body.secret ?? '-') && !row.secret.includes((body.secret ?? '-').slice(6)), 'not in the clear')
    assert.equal(decryptSecret(key(), row.secret), body.secret)
    assert.equal(row.previousSecret, null)

    // Never again: show, list, update.
    const shown = await call('GET', `/webhooks/${String(body.id)}`)
    assert.equal(shown.statusCode, 200)
    assert.deepEqual(shown.json(), withoutSecret(body))
    assert.ok(!shown.body.includes('secret'))
    const listed = await call('GET', '/webhooks?page=1')
    assert.ok(!listed.body.includes(body.secret ?? '-') && !listed.body.includes('"secret"'))
    const updated = await call('PUT', `/webhooks/${String(body.id)}`, { description: 'renamed' })
    assert.ok(!updated.body.includes('"secret"'))
  })

  test('create in a root key, with ["*"], duplicates kept once, form-encoded', async () => {
    const wrapped = await create({ webhook: { url: PUBLIC_URL, events: ['*'] } })
    assert.deepEqual(wrapped.events, ['*'])
    assert.equal(wrapped.description, null)
    const twice = await create({ url: PUBLIC_URL, events: ['tag.created', 'tag.created', 'tag.deleted'] })
    assert.deepEqual(twice.events, ['tag.created', 'tag.deleted'])
    const form = await t.app.inject({
      method: 'POST',
      url: '/api/v1/webhooks',
      headers: { ...acme.auth, 'content-type': 'application/x-www-form-urlencoded' },
      payload: `url=${encodeURIComponent(PUBLIC_URL)}&events[]=lead.created&description=form`,
    })
    assert.equal(form.statusCode, 201, form.body)
    assert.deepEqual(form.json<Subscription>().events, ['lead.created'])
  })

  test('bad input: a clear 422 on the parameter, and nothing is saved', async () => {
    const before = await count(sql`webhook_subscriptions`)
    const cases: [object, string, string][] = [
      [{ url: 'not a url', events: ['*'] }, 'url', 'must be an absolute URL'],
      [{ url: 'http://93.184.215.14/x', events: ['*'] }, 'url', 'must be an https URL (WEBHOOK_ALLOW_PRIVATE=true on the server allows it, for development only)'],
      [{ url: 'https://127.0.0.1/x', events: ['*'] }, 'url', 'must not point to a private or reserved address (WEBHOOK_ALLOW_PRIVATE=true on the server allows it, for development only)'],
      [{ url: 'https://10.1.2.3/x', events: ['*'] }, 'url', 'must not point to a private or reserved address (WEBHOOK_ALLOW_PRIVATE=true on the server allows it, for development only)'],
      [{ url: 'https://169.254.169.254/latest', events: ['*'] }, 'url', 'must not point to a private or reserved address (WEBHOOK_ALLOW_PRIVATE=true on the server allows it, for development only)'],
      [{ url: 'https://[::1]/x', events: ['*'] }, 'url', 'must not point to a private or reserved address (WEBHOOK_ALLOW_PRIVATE=true on the server allows it, for development only)'],
      [{ url: 'https://localhost/x', events: ['*'] }, 'url', 'must not point to a private or reserved address (WEBHOOK_ALLOW_PRIVATE=true on the server allows it, for development only)'],
      [{ url: 'https://api.localhost/x', events: ['*'] }, 'url', 'must not point to a private or reserved address (WEBHOOK_ALLOW_PRIVATE=true on the server allows it, for development only)'],
      [{ url: 'https://user:pw@93.184.215.14/x', events: ['*'] }, 'url', 'must not contain a user name or password'],
      [{ url: PUBLIC_URL, events: ['contact.created', 'contact.exploded'] }, 'events', '"contact.exploded" is not included in the list'],
      [{ url: PUBLIC_URL, events: ['ping'] }, 'events', '"ping" is not included in the list'],
      [{ url: PUBLIC_URL, events: ['*', 'tag.created'] }, 'events', 'must be ["*"] alone or a list of event types'],
      [{ url: PUBLIC_URL, events: [] }, 'events', ''],
      [{ url: PUBLIC_URL }, 'events', ''],
      [{ events: ['*'] }, 'url', ''],
      [{ url: PUBLIC_URL, events: ['*'], description: 'x'.repeat(256) }, 'description', 'is too long (maximum is 255 characters)'],
    ]
    for (const [body, parameter, message] of cases) {
      const res = await call('POST', '/webhooks', body)
      assert.equal(res.statusCode, 422, `${JSON.stringify(body)}: ${res.body}`)
      const error = res.json<ErrorBody>().error
      assert.equal(error.code, 'validation_failed')
      assert.ok(error.details?.[parameter], `${JSON.stringify(body)}: ${res.body}`)
      if (message) assert.ok(error.details[parameter].some((m) => m.startsWith(message)), `${JSON.stringify(body)}: ${res.body}`)
    }
    const inclusion = await call('POST', '/webhooks', { url: PUBLIC_URL, events: ['nope'] })
    assert.deepEqual(inclusion.json<ErrorBody>().error.detail_codes, { events: ['inclusion'] })
    assert.equal(await count(sql`webhook_subscriptions`), before)
  })

  test('a host name that does not resolve is refused (the DNS check on save)', async () => {
    const res = await call('POST', '/webhooks', { url: 'https://no-such-host.invalid/hook', events: ['*'] })
    assert.equal(res.statusCode, 422)
    assert.match(res.json<ErrorBody>().error.details?.url?.[0] ?? '', /^has a host name that could not be resolved/)
  })

  test('WEBHOOK_ALLOW_PRIVATE=true: http, loopback, private and localhost are allowed', async () => {
    const who = await tenant(open.db)
    for (const url of ['http://127.0.0.1:9/hook', 'https://10.1.2.3/x', 'http://localhost:8080/x', 'https://[::1]/x']) {
      const res = await call('POST', '/webhooks', { url, events: ['*'] }, who, open)
      assert.equal(res.statusCode, 201, `${url}: ${res.body}`)
      assert.equal(res.json<Subscription>().url, url)
    }
    // Still an absolute URL, and no credentials.
    const bad = await call('POST', '/webhooks', { url: 'ftp://127.0.0.1/x', events: ['*'] }, who, open)
    assert.equal(bad.statusCode, 422)
  })

  test(`a company has at most ${String(MAX_SUBSCRIPTIONS)} subscriptions (state_refused); deleting one frees a place`, async () => {
    const who = await tenant(t.db)
    const made = await Promise.all(Array.from({ length: MAX_SUBSCRIPTIONS + 3 }, () => call('POST', '/webhooks', { url: PUBLIC_URL, events: ['*'] }, who)))
    assert.deepEqual(made.map((r) => r.statusCode).sort(), [...Array<number>(MAX_SUBSCRIPTIONS).fill(201), 422, 422, 422])
    const refused = made.find((r) => r.statusCode === 422)
    assert.ok(refused)
    const error = refused.json<ErrorBody>().error
    assert.equal(error.code, 'state_refused')
    assert.deepEqual(error.details, { base: [`your company has ${String(MAX_SUBSCRIPTIONS)} webhook subscriptions, the most it may have: delete one first`] })
    assert.equal(await count(sql`webhook_subscriptions where company_id = ${who.companyId}`), MAX_SUBSCRIPTIONS)
    const first = made.find((r) => r.statusCode === 201)?.json<Subscription>()
    assert.equal((await call('DELETE', `/webhooks/${String(first?.id)}`, undefined, who)).statusCode, 204)
    assert.equal((await call('POST', '/webhooks', { url: PUBLIC_URL, events: ['*'] }, who)).statusCode, 201)
  })

  test('list: the contract page shape, id ascending, Link header; only the caller company', async () => {
    const who = await tenant(t.db)
    const ids: number[] = []
    for (let i = 0; i < 3; i++) ids.push((await create({ url: PUBLIC_URL, events: ['*'], description: `n${String(i)}` }, who)).id)
    await create({ url: PUBLIC_URL, events: ['*'] }, other)
    const res = await call('GET', '/webhooks?page=2&per_page=2', undefined, who)
    assert.equal(res.statusCode, 200)
    const body = res.json<{ data: Subscription[]; meta: object }>()
    assert.deepEqual(body.meta, { page: 2, per_page: 2, total_count: 3, total_pages: 2 })
    assert.deepEqual(body.data.map((s) => s.id), [ids[2]])
    assert.equal(res.headers.link, '</api/v1/webhooks?page=1&per_page=2>; rel="first", </api/v1/webhooks?page=1&per_page=2>; rel="prev", </api/v1/webhooks?page=2&per_page=2>; rel="last"')
    const first = (await call('GET', '/webhooks?page=1', undefined, who)).json<{ data: Subscription[] }>()
    assert.deepEqual(first.data.map((s) => s.id), ids)
    const past = (await call('GET', '/webhooks?page=9', undefined, who)).json<{ data: Subscription[]; meta: { total_count: number } }>()
    assert.deepEqual(past, { data: [], meta: { page: 9, per_page: 25, total_count: 3, total_pages: 1 } })
    assert.equal((await call('GET', '/webhooks', undefined, who)).statusCode, 422, 'page is required, as on every list')
  })

  test('update: only the fields given; null clears the description; the URL is checked again', async () => {
    const s = await create({ url: PUBLIC_URL, events: ['tag.created'], description: 'before' })
    clock = new Date(NOW.getTime() + 60_000)
    const res = await call('PUT', `/webhooks/${String(s.id)}`, { events: ['*'] })
    assert.equal(res.statusCode, 200, res.body)
    assert.deepEqual(res.json(), { ...withoutSecret(s), events: ['*'], updated_at: clock.toISOString() })
    const cleared = await call('PUT', `/webhooks/${String(s.id)}`, { webhook: { description: null, url: 'https://93.184.215.15/new' } })
    assert.equal(cleared.json<Subscription>().description, null)
    assert.equal(cleared.json<Subscription>().url, 'https://93.184.215.15/new')
    const bad = await call('PUT', `/webhooks/${String(s.id)}`, { url: 'https://192.168.0.10/x', events: ['nope'] })
    assert.equal(bad.statusCode, 422)
    const row = await rowOf(s.id)
    assert.equal(row.url, 'https://93.184.215.15/new')
    assert.deepEqual(row.events, ['*'])
    clock = NOW
  })

  test('disable by hand, and enabled=true re-enables a disabled one, clearing the reason and the failing streak', async () => {
    const s = await create({ url: PUBLIC_URL, events: ['*'] })
    const off = (await call('PUT', `/webhooks/${String(s.id)}`, { enabled: false })).json<Subscription>()
    assert.equal(off.enabled, false)
    assert.equal(off.disabled_reason, 'disabled through the API')
    assert.equal(off.disabled_at, NOW.toISOString())
    // As the worker leaves one after 3 days of failures:
    await execute(t.db, sql`
      update webhook_subscriptions
         set disabled_reason = 'every delivery failed since …', failing_since = ${new Date(NOW.getTime() - 4 * 86_400_000)}
       where id = ${s.id}`)
    const shown = (await call('GET', `/webhooks/${String(s.id)}`)).json<Subscription>()
    assert.equal(shown.disabled_reason, 'every delivery failed since …')
    const on = await call('PUT', `/webhooks/${String(s.id)}`, { enabled: 'true' })
    assert.equal(on.statusCode, 200, on.body)
    assert.deepEqual(
      (({ enabled, disabled_reason, disabled_at }) => ({ enabled, disabled_reason, disabled_at }))(on.json<Subscription>()),
      { enabled: true, disabled_reason: null, disabled_at: null },
    )
    assert.equal((await rowOf(s.id)).failingSince, null)
  })

  test('delete: 204, then 404; its deliveries go with it, the events stay', async () => {
    const s = await create({ url: PUBLIC_URL, events: ['*'] })
    await transaction(t.db, (tx) => recordApiEvents(tx, acme.companyId, [{ type: 'tag.created', data: { id: 1 } }], NOW))
    await publishEvents(t.db, 1000) // what the delivery worker does next
    assert.ok((await count(sql`webhook_deliveries where subscription_id = ${s.id}`)) === 1)
    const events = await count(sql`api_events where company_id = ${acme.companyId}`)
    const res = await call('DELETE', `/webhooks/${String(s.id)}`)
    assert.equal(res.statusCode, 204)
    assert.equal(res.body, '')
    assert.equal((await call('DELETE', `/webhooks/${String(s.id)}`)).statusCode, 404)
    assert.equal((await call('GET', `/webhooks/${String(s.id)}`)).statusCode, 404)
    assert.equal(await count(sql`webhook_deliveries where subscription_id = ${s.id}`), 0)
    assert.equal(await count(sql`api_events where company_id = ${acme.companyId}`), events)
  })

  test('rotate_secret: a new secret shown once; the old one kept as previous for 24 hours', async () => {
    const s = await create({ url: PUBLIC_URL, events: ['*'] })
    clock = new Date(NOW.getTime() + 3_600_000)
    const res = await call('POST', `/webhooks/${String(s.id)}/rotate_secret`)
    assert.equal(res.statusCode, 200, res.body)
    const rotated = res.json<Subscription>()
    assert.match(rotated.secret ?? '', SECRET_FORMAT)
    assert.notEqual(rotated.secret, s.secret)
    assert.equal(rotated.previous_secret_expires_at, new Date(clock.getTime() + 86_400_000).toISOString())
    assert.equal(rotated.updated_at, clock.toISOString())
    const row = await rowOf(s.id)
    assert.equal(decryptSecret(key(), row.secret), rotated.secret)
    assert.equal(decryptSecret(key(), row.previousSecret ?? ''), s.secret)
    assert.equal(row.previousSecretExpiresAt?.toISOString(), rotated.previous_secret_expires_at)
    // Rotating again drops the oldest.
    const again = (await call('POST', `/webhooks/${String(s.id)}/rotate_secret`)).json<Subscription>()
    assert.equal(decryptSecret(key(), (await rowOf(s.id)).previousSecret ?? ''), rotated.secret)
    assert.notEqual(again.secret, rotated.secret)
    clock = NOW
  })

  test('test: a ping queued for this subscription only (202, the delivery); not in the event log; refused when disabled', async () => {
    const s = await create({ url: PUBLIC_URL, events: ['*'] })
    const bystander = await create({ url: PUBLIC_URL, events: ['*'] })
    const res = await call('POST', `/webhooks/${String(s.id)}/test`)
    assert.equal(res.statusCode, 202, res.body)
    const d = res.json<Delivery>()
    assert.equal(res.headers.location, `/api/v1/webhooks/${String(s.id)}/deliveries/${String(d.id)}`)
    assert.deepEqual({ ...d, id: 0, event_id: 0 }, {
      id: 0,
      event_id: 0,
      event_type: 'ping',
      status: 'pending',
      attempts: 0,
      last_response_status: null,
      last_attempt_at: null,
      next_attempt_at: NOW.toISOString(),
      last_error: null,
      delivered_at: null,
      created_at: NOW.toISOString(),
    })
    const [event] = await rawRows<{ type: string; sequence: number; data: Record<string, unknown> }>(
      t.db,
      sql`select type, sequence, data from api_events where company_id = ${acme.companyId} and id = ${d.event_id}`,
    )
    assert.deepEqual({ type: event?.type, sequence: event?.sequence, data: event?.data }, { type: 'ping', sequence: 0, data: { webhook_id: s.id } })
    assert.equal(await count(sql`webhook_deliveries where event_id = ${d.event_id}`), 1)
    assert.equal(await count(sql`webhook_deliveries where subscription_id = ${bystander.id}`), 0)
    assert.deepEqual((await call('GET', `/webhooks/${String(s.id)}/deliveries/${String(d.id)}`)).json(), d)
    assert.equal((await call('GET', `/events/${String(d.event_id)}`)).statusCode, 404, 'pings are not events of the log')

    await call('PUT', `/webhooks/${String(s.id)}`, { enabled: false })
    const refused = await call('POST', `/webhooks/${String(s.id)}/test`)
    assert.equal(refused.statusCode, 422)
    assert.equal(refused.json<ErrorBody>().error.code, 'state_refused')
    assert.equal(await count(sql`webhook_deliveries where subscription_id = ${s.id}`), 1)
  })

  test('end to end with the worker: a ping and a retried delivery reach a receiver, signed with the secret create returned', async () => {
    const receiver = await startReceiver()
    const live = await startApp(backend, { config: { webhookAllowPrivate: true }, deps: { webhookWorker: { pollIntervalMs: 20 } } })
    try {
      const who = await tenant(live.db)
      const res = await call('POST', '/webhooks', { url: receiver.url, events: ['tag.created'] }, who, live)
      assert.equal(res.statusCode, 201, res.body)
      const s = res.json<Subscription>()
      const ping = (await call('POST', `/webhooks/${String(s.id)}/test`, undefined, who, live)).json<Delivery>()
      const shown = async (id: number) => (await call('GET', `/webhooks/${String(s.id)}/deliveries/${String(id)}`, undefined, who, live)).json<Delivery>()
      await until('the ping is delivered', async () => (await shown(ping.id)).status === 'delivered')
      assert.equal(receiver.received.length, 1)
      const [received] = receiver.received
      assert.ok(received)
      const verified = new Webhook(s.secret ?? '').verify(received.body, received.headers as Record<string, string>) as { type: string; sequence: number; data: unknown }
      assert.deepEqual({ type: verified.type, sequence: verified.sequence, data: verified.data }, { type: 'ping', sequence: 0, data: { webhook_id: s.id } })
      assert.equal(received.headers['webhook-id'], `evt_${String(ping.event_id)}`)
      // The body, byte for byte, is the one docs/webhooks.md shows (its values replaced).
      const documented = /`(\{"id":\d+,"type":"ping".*?\})`/.exec(readFileSync(new URL('../../docs/webhooks.md', import.meta.url), 'utf8'))?.[1]
      assert.ok(documented, 'docs/webhooks.md shows a ping body')
      const parsed = JSON.parse(received.body) as { id: number; created_at: string }
      assert.equal(received.body, documented.replace(/"id":\d+/, `"id":${String(parsed.id)}`).replace(/"created_at":"[^"]+"/, `"created_at":"${parsed.created_at}"`).replace(/"webhook_id":\d+/, `"webhook_id":${String(s.id)}`))
      const delivered = await shown(ping.id)
      assert.deepEqual([delivered.attempts, delivered.delivered_at !== null], [1, true])

      // A replay of the delivered ping: sent again, same webhook-id.
      const retried = await call('POST', `/webhooks/${String(s.id)}/deliveries/${String(ping.id)}/retry`, undefined, who, live)
      assert.equal(retried.statusCode, 202)
      await until('the replay arrives', () => receiver.received.length === 2)
      await until('the replay is recorded', async () => (await shown(ping.id)).status === 'delivered')
      assert.equal(receiver.received[1]?.headers['webhook-id'], `evt_${String(ping.event_id)}`)
      assert.equal((await shown(ping.id)).attempts, 1)
    } finally {
      await live.close()
      await receiver.close()
    }
  })

  test('deliveries: newest first with the event type; retry starts one over (a delivered one too); refused when disabled', async () => {
    const who = await tenant(t.db)
    const s = await create({ url: PUBLIC_URL, events: ['tag.created', 'tag.deleted'] }, who)
    await transaction(t.db, (tx) => recordApiEvents(tx, who.companyId, [{ type: 'tag.created', data: { id: 1 } }, { type: 'contact.created', data: { id: 2 } }], NOW))
    await publishEvents(t.db, 1000) // what the delivery worker does next
    await transaction(t.db, (tx) => recordApiEvents(tx, who.companyId, [{ type: 'tag.deleted', data: { id: 1 } }], NOW))
    await publishEvents(t.db, 1000) // what the delivery worker does next
    const res = await call('GET', `/webhooks/${String(s.id)}/deliveries?page=1`, undefined, who)
    assert.equal(res.statusCode, 200)
    const page = res.json<{ data: Delivery[]; meta: object }>()
    assert.deepEqual(page.meta, { page: 1, per_page: 25, total_count: 2, total_pages: 1 })
    assert.deepEqual(page.data.map((d) => d.event_type), ['tag.deleted', 'tag.created'])
    assert.ok((page.data[0]?.id ?? 0) > (page.data[1]?.id ?? 0))
    assert.match(res.headers.link as string, /rel="first"/)

    // As the worker leaves them: one delivered, one failed after 3 days.
    const [newest, oldest] = page.data as [Delivery, Delivery]
    await execute(t.db, sql`
      update webhook_deliveries
         set status = 'delivered', attempts = 2, delivered_at = ${NOW}, next_attempt_at = null, last_response_status = 200, first_attempt_at = ${NOW}
       where id = ${newest.id}`)
    await execute(t.db, sql`
      update webhook_deliveries
         set status = 'failed', attempts = 17, next_attempt_at = null, last_response_status = 500, last_error = 'HTTP 500', first_attempt_at = ${NOW}
       where id = ${oldest.id}`)

    clock = new Date(NOW.getTime() + 5 * 86_400_000)
    for (const d of [newest, oldest]) {
      const retried = await call('POST', `/webhooks/${String(s.id)}/deliveries/${String(d.id)}/retry`, undefined, who)
      assert.equal(retried.statusCode, 202, retried.body)
      assert.equal(retried.headers.location, `/api/v1/webhooks/${String(s.id)}/deliveries/${String(d.id)}`)
      const body = retried.json<Delivery & { last_response_status: number }>()
      assert.deepEqual(
        { status: body.status, attempts: body.attempts, next: body.next_attempt_at, delivered: body.delivered_at, type: body.event_type },
        { status: 'pending', attempts: 0, next: clock.toISOString(), delivered: null, type: d.event_type },
      )
      const [row] = await rawRows<{ firstAttemptAt: Date | null; lastResponseStatus: number | null }>(
        t.db,
        sql`select first_attempt_at as "firstAttemptAt", last_response_status as "lastResponseStatus" from webhook_deliveries where id = ${d.id}`,
      )
      assert.equal(row?.firstAttemptAt, null, 'a new 3-day window')
      assert.ok(row.lastResponseStatus, 'the last answer stays until the next attempt')
    }
    await call('PUT', `/webhooks/${String(s.id)}`, { enabled: false }, who)
    const refused = await call('POST', `/webhooks/${String(s.id)}/deliveries/${String(newest.id)}/retry`, undefined, who)
    assert.equal(refused.statusCode, 422)
    assert.equal(refused.json<ErrorBody>().error.code, 'state_refused')
    // A delivery of another subscription of the same company is not under this one.
    const s2 = await create({ url: PUBLIC_URL, events: ['*'] }, who)
    assert.equal((await call('POST', `/webhooks/${String(s2.id)}/deliveries/${String(newest.id)}/retry`, undefined, who)).statusCode, 404)
    assert.equal((await call('GET', `/webhooks/${String(s2.id)}/deliveries/${String(newest.id)}`, undefined, who)).statusCode, 404)
    assert.equal((await call('GET', `/webhooks/${String(s.id)}/deliveries/999999`, undefined, who)).statusCode, 404)
    clock = NOW
  })

  test('the verifier of docs/webhooks.md (node:crypto only, at most 10 lines) accepts both secrets after a rotation', async () => {
    const docs = await readFile(new URL('../../docs/webhooks.md', import.meta.url), 'utf8')
    const code = /```js\n(import \{ createHmac[\s\S]*?)```/.exec(docs)?.[1]
    assert.ok(code, 'the example is in the docs')
    assert.ok(code.trim().split('\n').length <= 10, 'at most 10 lines')
    const dir = await mkdtemp(join(tmpdir(), 'engage-verify-'))
    try {
      await writeFile(join(dir, 'verify.mjs'), code)
      const { verifyWebhook } = (await import(pathToFileURL(join(dir, 'verify.mjs')).href)) as {
        verifyWebhook: (secret: string, headers: Record<string, string>, body: string) => boolean
      }
      const s = await create({ url: PUBLIC_URL, events: ['*'] })
      const rotated = (await call('POST', `/webhooks/${String(s.id)}/rotate_secret`)).json<Subscription>()
      const row = await rowOf(s.id)
      const secrets = [decryptSecret(key(), row.secret), decryptSecret(key(), row.previousSecret ?? '')]
      const body = '{"id":7,"type":"ping","created_at":"2026-11-22T10:00:00.000Z","sequence":0,"data":{"webhook_id":1}}'
      const ts = Math.floor(Date.now() / 1000)
      const headers = { 'webhook-id': 'evt_7', 'webhook-timestamp': String(ts), 'webhook-signature': signatureHeader(secrets, 'evt_7', ts, body) }
      assert.equal(verifyWebhook(rotated.secret ?? '', headers, body), true, 'the new secret')
      assert.equal(verifyWebhook(s.secret ?? '', headers, body), true, 'the previous one')
      assert.equal(verifyWebhook(s.secret ?? '', headers, body.replace('7', '8')), false, 'a changed body')
      const old = ts - 3600
      assert.equal(verifyWebhook(s.secret ?? '', { ...headers, 'webhook-timestamp': String(old), 'webhook-signature': signatureHeader(secrets, 'evt_7', old, body) }, body), false, 'an old timestamp')
    } finally {
      await rm(dir, { recursive: true, force: true })
    }
  })

  test("another company's subscription, delivery and event: 404 on every route, and nothing changes", async () => {
    const theirs = await create({ url: PUBLIC_URL, events: ['*'], description: 'theirs' }, other)
    const ping = (await call('POST', `/webhooks/${String(theirs.id)}/test`, undefined, other)).json<Delivery>()
    await transaction(t.db, (tx) => recordApiEvents(tx, other.companyId, [{ type: 'tag.created', data: { id: 9 } }], NOW))
    await publishEvents(t.db, 1000) // what the delivery worker does next
    const [event] = await rawRows<{ id: number }>(t.db, sql`select id from api_events where company_id = ${other.companyId} and type = 'tag.created'`)
    assert.ok(event)
    const id = String(theirs.id)
    const routes: [Parameters<typeof call>[0], string, object?][] = [
      ['GET', `/webhooks/${id}`],
      ['PUT', `/webhooks/${id}`, { description: 'mine now', enabled: false }],
      ['DELETE', `/webhooks/${id}`],
      ['POST', `/webhooks/${id}/rotate_secret`],
      ['POST', `/webhooks/${id}/test`],
      ['GET', `/webhooks/${id}/deliveries?page=1`],
      ['GET', `/webhooks/${id}/deliveries/${String(ping.id)}`],
      ['POST', `/webhooks/${id}/deliveries/${String(ping.id)}/retry`],
      ['GET', `/events/${String(event.id)}`],
    ]
    for (const [method, url, body] of routes) {
      const res = await call(method, url, body)
      assert.equal(res.statusCode, 404, `${method} ${url}: ${res.body}`)
      assert.equal(res.json<ErrorBody>().error.code, 'not_found')
    }
    const row = await rowOf(theirs.id)
    assert.equal(row.description, 'theirs')
    assert.equal(row.enabled, true)
    assert.equal(row.previousSecret, null)
    assert.equal(await count(sql`webhook_deliveries where subscription_id = ${theirs.id}`), 2)
    const listed = (await call('GET', '/events?page=1&per_page=100')).json<{ data: { id: number }[] }>()
    assert.ok(!listed.data.some((e) => e.id === event.id))
  })
})
