// The SDK (sdk/) against the real service listening on a random 127.0.0.1 port: a whole
// workflow, auto-paging, a 429 retried after Retry-After, typed errors.
import assert from 'node:assert/strict'
import type { AddressInfo } from 'node:net'
import { after, before, describe, test } from 'node:test'
import { Engage, EngageError } from '../../sdk/src/index.js'
import { setSyncOptions } from '../../src/http/sync.js'
import { backends, startApp, type TestApp } from '../helpers/app.js'
import { tenant, type Tenant } from '../helpers/factories.js'

const [backend] = backends()
// Walks read up to a high-water mark a margin behind now: none here, so a write shows at once.
setSyncOptions({ marginMs: 0, reuseMs: 0 })

async function listen(t: TestApp): Promise<string> {
  await t.app.listen({ port: 0, host: '127.0.0.1' })
  return `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`
}

describe('@engage/sdk against the service', () => {
  let t: TestApp
  let owner: Tenant
  let sdk: Engage
  let baseUrl: string
  before(async () => {
    if (!backend) throw new Error('no backend')
    t = await startApp(backend)
    owner = await tenant(t.db)
    baseUrl = await listen(t)
    sdk = new Engage({ baseUrl, token: owner.token })
  })
  after(() => t.close())

  test('a whole workflow: tag, field, contact, update, flow, tasks, events, lead, transcription', async () => {
    const me = await sdk.users.authorize()
    assert.equal(me.user.id, owner.userId)
    const tag = await sdk.tags.create({ name: 'Hot', color: '#e11d48' })
    await sdk.customFields.create({ field: 'T-shirt size', kind: 'dropdown', options: [{ name: 'M' }, { name: 'L' }] })
    const contact = await sdk.contacts.create({
      first_name: 'Ana',
      email: 'ana@globex.example',
      business: 'Globex',
      tags: [tag.id],
      custom_fields: [{ field: 'T-shirt size', value: 'M' }],
    })
    assert.deepEqual(contact.tags.map((x) => x.name), ['Hot'])
    assert.deepEqual(contact.custom_fields, [{ field: 'T-shirt size', value: 'M' }])
    const updated = await sdk.contacts.update(contact.id, { first_name: 'Ana', email: contact.email, business: 'Globex', stage: 'mql' })
    assert.equal(updated.stage, 'mql')
    assert.equal((await sdk.contacts.business(contact.id)).name, 'Globex')

    const draft = await sdk.flows.create({ name: 'Draft', steps: [{ day: 0, kind: 'email', title: 'Hello' }] })
    const flow = await sdk.flows.update(draft.id, {
      steps: [{ day: 0, kind: 'email', title: 'Hello' }, { day: 2, kind: 'phonecall', title: 'Call' }],
    })
    assert.deepEqual(await sdk.flows.get(flow.id), flow)
    const enrollment = await sdk.flows.addContact(flow.id, contact.id)
    assert.equal(enrollment.tasks.length, 2)
    const tasks = []
    for await (const task of sdk.tasks.all({ contact_id: contact.id })) tasks.push(task)
    assert.deepEqual(tasks.map((task) => task.title), ['Hello', 'Call'])
    const own = await sdk.tasks.create({ contact_id: contact.id, kind: 'meeting', due_date: '2026-12-01', title: 'Demo' })
    assert.equal((await sdk.tasks.complete(own.id)).status, 'done')
    assert.equal((await sdk.tasks.get(own.id)).done, true)

    const kinds = []
    for await (const event of sdk.contacts.allEvents(contact.id)) {
      kinds.push(event.kind)
      if (event.kind === 'stage_changed') assert.deepEqual(event.data, { to: 'mql', from: null }) // typed per kind
    }
    assert.deepEqual(kinds, ['task_completed', 'added_to_flow', 'stage_changed', 'contact_updated', 'contact_created'])

    const lead = await sdk.leads.create({ first_name: 'Ana', email: 'ANA@globex.example', provider: 'linkedin' })
    assert.equal(lead.contact_id, contact.id)
    assert.deepEqual(await sdk.leads.count({ user_id: owner.userId, with_contact: true }), { count: 1 })
    const prospect = await sdk.leads.create({ first_name: 'Ana', email: 'ana.personal@example.com', provider: 'apollo' })
    assert.equal(prospect.contact_id, null)
    assert.equal((await sdk.leads.linkContact(prospect.id, contact.id)).contact_id, contact.id)

    const recording = await sdk.meetTranscriptions.create({ user_id: owner.userId, company_id: owner.companyId, meet_id: 'abc-defg-hij' })
    await sdk.meetTranscriptions.stop(recording.id, '2026-11-22T10:30:00Z')
    const transcribed = await sdk.meetTranscriptions.setTranscript(recording.id, 'Ana: hello')
    assert.equal(transcribed.status, 'transcribed')
    const [firstTask] = enrollment.tasks
    assert.ok(firstTask)
    assert.equal((await sdk.meetTranscriptions.linkToTask(recording.id, firstTask.id)).task_id, firstTask.id)

    await sdk.contacts.delete(contact.id)
    await assert.rejects(sdk.contacts.get(contact.id), (err: unknown) => err instanceof EngageError && err.status === 404 && err.code === 'not_found')
  })

  test('for await pages through 250 contacts, 100 at a time', async () => {
    const other = await tenant(t.db)
    const client = new Engage({ baseUrl, token: other.token })
    for (let i = 0; i < 250; i += 25) {
      await Promise.all(Array.from({ length: 25 }, (_, j) => client.contacts.create({ first_name: `P${i + j}`, email: `p${i + j}@example.com` })))
    }
    const requested: string[] = []
    const counting = new Engage({
      baseUrl,
      token: other.token,
      fetch: (input, init) => {
        requested.push(input instanceof Request ? input.url : input.toString())
        return fetch(input, init)
      },
    })
    const emails = []
    for await (const contact of counting.contacts.all({ per_page: 100 })) emails.push(contact.email)
    assert.equal(emails.length, 250)
    assert.equal(new Set(emails).size, 250)
    assert.deepEqual(requested.map((url) => new URL(url).searchParams.get('page')), ['1', '2', '3'])
  })

  test('a batch upsert, then a walk of every change with the cursor it ends on', async () => {
    const results = await sdk.contacts.batch([
      { first_name: 'Walk', email: 'walk-1@sdk.example' },
      { first_name: 'Walk', email: 'not an email' },
      { first_name: 'Walk', email: 'walk-2@sdk.example' },
    ])
    assert.deepEqual(results.results.map((r) => r.status), [201, 422, 201])
    const seen = new Map<number, string>()
    let cursor = ''
    for await (const page of sdk.contacts.walk({ updated_since: '2000-01-01T00:00:00Z', per_page: 7 })) {
      for (const record of page.data) if ('email' in record) seen.set(record.id, record.email)
      cursor = page.meta.next_cursor
    }
    assert.ok([...seen.values()].includes('walk-1@sdk.example') && [...seen.values()].includes('walk-2@sdk.example'))
    const again = await sdk.contacts.batch([{ first_name: 'Walked', email: 'WALK-1@sdk.example' }])
    assert.deepEqual(again.results.map((r) => r.status), [200])
    const later = []
    for await (const page of sdk.contacts.walk({ cursor })) later.push(...page.data)
    assert.deepEqual(later.map((record) => ('first_name' in record ? record.first_name : 'deleted')), ['Walked'])
  })

  test('a write is retried with its own Idempotency-Key: after a lost answer it does not run twice', async () => {
    const keys: string[] = []
    let lose = true
    const flaky = new Engage({
      baseUrl,
      token: owner.token,
      fetch: async (input, init) => {
        keys.push(new Headers(init?.headers).get('idempotency-key') ?? '')
        const response = await fetch(input, init)
        if (!lose) return response
        lose = false // the first answer is lost on the way back: the client sees a 503
        await response.body?.cancel()
        return new Response('{}', { status: 503, headers: { 'retry-after': '0' } })
      },
    })
    const tag = await flaky.tags.create({ name: 'Once', color: '#123456' })
    assert.equal(keys.length, 2)
    assert.match(keys[0] ?? '', /^[0-9a-f-]{36}$/)
    assert.equal(keys[1], keys[0], 'the retry carries the same key')
    const named = (await sdk.tags.list()).data.filter((x) => x.name === 'Once')
    assert.deepEqual(named.map((x) => x.id), [tag.id], 'created once')
  })

  test('typed errors carry status, code, details, detail codes and the request id', async () => {
    await sdk.contacts.create({ first_name: 'Bia', email: 'bia@example.com' })
    const err = await sdk.contacts.create({ first_name: ' ', email: 'bia@example.com' }).catch((e: unknown) => e)
    assert.ok(err instanceof EngageError)
    assert.equal(err.status, 422)
    assert.equal(err.code, 'validation_failed')
    assert.equal(err.message, 'Could not save the entity')
    assert.deepEqual(err.details, { first_name: ["can't be blank"] })
    assert.deepEqual(err.detailCodes, { first_name: ['blank'] })
    assert.match(err.requestId ?? '', /^[\w.-]+$/)

    const taken = await sdk.contacts.create({ first_name: 'Bia', email: 'BIA@example.com' }).catch((e: unknown) => e)
    assert.ok(taken instanceof EngageError)
    assert.deepEqual(taken.details, { email: ['has already been taken'] })
    assert.deepEqual(taken.detailCodes, { email: ['taken'] })

    const stranger = new Engage({ baseUrl, token: 'eng_nope' })
    const denied = await stranger.users.authorize().catch((e: unknown) => e)
    assert.ok(denied instanceof EngageError)
    assert.equal(denied.status, 401)
    assert.equal(denied.code, 'token_invalid')
    assert.deepEqual(denied.details, {})
  })
})

describe('@engage/sdk retries a 429 after Retry-After', () => {
  let t: TestApp
  let owner: Tenant
  let baseUrl: string
  before(async () => {
    if (!backend) throw new Error('no backend')
    t = await startApp(backend, { config: { rateLimit: { max: 2, windowMs: 1000, keyPrefix: `engage:test:sdk:${String(Date.now())}:` } } })
    owner = await tenant(t.db)
    baseUrl = await listen(t)
  })
  after(() => t.close())

  test('the third request in a second waits for Retry-After and succeeds; without retries it is a rate_limited error', async () => {
    const statuses: number[] = []
    const sdk = new Engage({
      baseUrl,
      token: owner.token,
      fetch: async (input, init) => {
        const response = await fetch(input, init)
        statuses.push(response.status)
        return response
      },
    })
    await sdk.tags.list()
    await sdk.tags.list()
    const started = Date.now()
    const tags = await sdk.tags.list()
    assert.deepEqual(tags, { data: [], meta: { total_count: 0 } })
    assert.deepEqual(statuses, [200, 200, 429, 200])
    assert.ok(Date.now() - started >= 900, `waited ${String(Date.now() - started)} ms`)

    const other = await tenant(t.db) // a budget of its own
    const impatient = new Engage({ baseUrl, token: other.token, retry: false })
    await impatient.tags.list()
    await impatient.tags.list()
    const err = await impatient.tags.list().catch((e: unknown) => e)
    assert.ok(err instanceof EngageError)
    assert.equal(err.status, 429)
    assert.equal(err.code, 'rate_limited')
  })
})
