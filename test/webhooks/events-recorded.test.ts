// Every write records its webhook events (docs/webhook-events.md) in its own transaction:
// the api_events row's data is the record exactly as the API answered it (keys, order,
// formats), sequences are 1, 2, 3… per company without gaps, each event gets one pending
// delivery per matching enabled subscription of its company, and a change that rolls back
// records nothing.
import assert from 'node:assert/strict'
import { writeFile, mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import { rawRows, sql } from '../helpers/sql.js'
import { AUDIT_EVENT_TYPE, EVENT_TYPES, type EventType } from '../../src/modules/outbox/event-types.js'
import { recordApiEvent } from '../../src/modules/outbox/outbox.js'
import { backends, startApp, type TestApp } from '../helpers/app.js'
import { runAdmin } from '../helpers/cli.js'
import { addContact, addCustomField, addTag } from '../helpers/contacts-factories.js'
import { addSubscription, tenant, type Tenant } from '../helpers/factories.js'
import { addFlow, addTask } from '../helpers/flows-factories.js'
import { publishEvents } from '../../src/modules/webhooks/publish.js'
import { transaction } from '../../src/db/db.js'

/** The types of business data; audit records (the audit log's own stream) are test/audit/webhook-stream.test.ts's. */
const BUSINESS_TYPES = EVENT_TYPES.filter((type) => type !== AUDIT_EVENT_TYPE)

interface EventRow {
  id: number
  sequence: number
  type: string
  /** The stored json, as text: its key order is the API's. */
  data: string
  /** ISO 8601, as the API writes instants. */
  created_at: string
}

/** An instant column as the API writes it (ISO 8601 text, compared with the API's strings). */
const ISO = (column: string) => sql.raw(`to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as ${column}`)

interface DeliveryRow {
  event_id: number
  subscription_id: number
  status: string
  next_attempt_at: string
}

for (const backend of backends()) {
  describe(`webhook events recorded by every write (${backend.name})`, () => {
    let t: TestApp
    let acme: Tenant
    let other: Tenant
    let star: number
    const byType = new Map<string, number>()

    before(async () => {
      t = await startApp(backend)
      acme = await tenant(t.db, { name: 'Acme' })
      other = await tenant(t.db, { name: 'Other' })
      // Acme: one subscription for everything, one per type, a disabled one for everything;
      // Other: one for everything. Each Acme event must reach exactly '*' and its own type's.
      star = await addSubscription(t.db, acme.companyId, ['*'])
      for (const type of BUSINESS_TYPES) byType.set(type, await addSubscription(t.db, acme.companyId, [type]))
      await addSubscription(t.db, acme.companyId, ['*'], false)
      await addSubscription(t.db, other.companyId, ['*'])
    })
    after(() => t.close())

    const lastSequence = async (companyId: number) =>
      (await rawRows<{ n: number }>(t.db, sql`select coalesce(max(sequence), 0)::int as n from api_events where company_id = ${companyId}`))[0]?.n ?? 0

    const eventsAfter = (companyId: number, sequence: number) =>
      rawRows<EventRow>(t.db, sql`
        select id, sequence, type, data::text as data, ${ISO('created_at')} from api_events
         where company_id = ${companyId} and sequence > ${sequence} order by sequence`)

    /** Runs `change` and answers the events it recorded, checked for sequence and deliveries. */
    async function recorded(change: () => Promise<void>, who = acme): Promise<EventRow[]> {
      await publishEvents(t.db, 1000) // what the set-up recorded is numbered before the change
      const before = await lastSequence(who.companyId)
      await change()
      // The write records its events in the outbox; publishing (the delivery worker's) numbers them.
      await publishEvents(t.db, 1000)
      const rows = await eventsAfter(who.companyId, before)
      for (const [i, row] of rows.entries()) assert.equal(row.sequence, before + i + 1, 'sequences follow on without gaps')
      for (const row of rows) await checkDeliveries(row, who)
      return rows
    }

    async function checkDeliveries(event: EventRow, who: Tenant) {
      // Published above with its deliveries, as the delivery worker would.
      const deliveries = await rawRows<DeliveryRow>(t.db, sql`
        select event_id, subscription_id, status, ${ISO('next_attempt_at')} from webhook_deliveries
         where event_id = ${event.id} order by subscription_id`)
      if (who !== acme) {
        assert.equal(deliveries.length, 1)
        return
      }
      const typed = byType.get(event.type)
      assert.ok(typed, `a known type: ${event.type}`)
      assert.deepEqual(deliveries.map((d) => d.subscription_id), [star, typed].sort((a, b) => a - b))
      for (const d of deliveries) {
        assert.equal(d.status, 'pending')
        assert.equal(d.next_attempt_at, event.created_at)
      }
    }

    /** The event's data is the API's answer: same JSON value, same key order. */
    function sameRecord(event: EventRow | undefined, type: EventType, body: unknown) {
      assert.ok(event, `a ${type} event`)
      assert.equal(event.type, type)
      const data: unknown = JSON.parse(event.data)
      assert.deepStrictEqual(data, body)
      assert.equal(JSON.stringify(data), JSON.stringify(body), 'same key order')
    }

    const types = (rows: EventRow[]) => rows.map((row) => row.type)
    /** PUT /contacts/:id needs first_name, email and business: the contact's, unless changed. */
    const putContact = (contact: { id: number; first_name: string; email: string; business: string | null }, changes: object) =>
      inject('PUT', `/contacts/${contact.id}`, { first_name: contact.first_name, email: contact.email, business: contact.business, ...changes })
    const inject = (method: 'POST' | 'PUT' | 'DELETE', url: string, payload?: object, who = acme) =>
      t.app.inject({ method, url: `/api/v1${url}`, headers: who.auth, ...(payload ? { payload } : {}) })

    test('POST /contacts: contact.created with the contact as answered (tags, custom fields), at the request time', async () => {
      const hot = await addTag(t.db, acme, { name: 'Hot' })
      const size = await addCustomField(t.db, acme, { field: 'Size', kind: 'dropdown', options: [{ name: 'M' }] })
      let body: unknown
      const rows = await recorded(async () => {
        const res = await inject('POST', '/contacts', {
          first_name: 'Ana', last_name: 'Souza', email: 'ana@globex.example', business: 'Globex', carousel: 'true',
          stage: 'lead', tags: [hot.id], custom_fields: [{ field: size.field, value: 'M' }],
        })
        assert.equal(res.statusCode, 201)
        body = res.json()
      })
      assert.deepEqual(types(rows), ['contact.created'])
      sameRecord(rows[0], 'contact.created', body)
      assert.equal(rows[0]?.created_at, (body as { created_at: string }).created_at)
    })

    test('POST /contacts with the email of leads: contact.created, then lead.linked for each lead as it now reads', async () => {
      const leads = []
      for (const provider of ['linkedin', 'apollo']) {
        const res = await inject('POST', '/leads', { first_name: 'Bo', email: 'bo@initech.example', provider })
        assert.equal(res.statusCode, 201)
        leads.push(res.json<{ id: number }>())
      }
      let contactBody: unknown
      const rows = await recorded(async () => {
        const res = await inject('POST', '/contacts', { first_name: 'Bo', email: 'BO@initech.example' })
        assert.equal(res.statusCode, 201)
        contactBody = res.json()
      })
      assert.deepEqual(types(rows), ['contact.created', 'lead.linked', 'lead.linked'])
      sameRecord(rows[0], 'contact.created', contactBody)
      for (const [i, lead] of leads.entries()) {
        const read = await t.app.inject({ method: 'GET', url: `/api/v1/leads/${lead.id}`, headers: acme.auth })
        assert.equal(read.json<{ contact_id: number }>().contact_id, (contactBody as { id: number }).id)
        sameRecord(rows[i + 1], 'lead.linked', read.json())
      }
    })

    test('PUT /contacts/:id: contact.updated; a tag set change adds one contact.tagged and one contact.untagged', async () => {
      const [a, b, c] = [await addTag(t.db, acme), await addTag(t.db, acme), await addTag(t.db, acme)]
      const contact = await addContact(t.db, acme, { tags: [a.id, b.id] })
      let body: unknown
      const fieldOnly = await recorded(async () => {
        const res = await putContact(contact, { city: 'Lisbon' })
        assert.equal(res.statusCode, 200)
        body = res.json()
      })
      assert.deepEqual(types(fieldOnly), ['contact.updated'])
      sameRecord(fieldOnly[0], 'contact.updated', body)

      const added = await recorded(async () => {
        const res = await putContact(contact, { tags: [a.id, b.id, c.id] })
        body = res.json()
      })
      assert.deepEqual(types(added), ['contact.updated', 'contact.tagged'])
      for (const row of added) sameRecord(row, row.type as EventType, body)

      const swapped = await recorded(async () => {
        const res = await putContact(contact, { tags: [c.id, b.id], custom_fields: [], first_name: 'Renamed' })
        body = res.json()
      })
      assert.deepEqual(types(swapped), ['contact.updated', 'contact.untagged'])
      sameRecord(swapped[1], 'contact.untagged', body)

      const both = await recorded(async () => {
        body = (await putContact(contact, { tags: [a.id] })).json()
      })
      assert.deepEqual(types(both), ['contact.updated', 'contact.tagged', 'contact.untagged'])
      for (const row of both) sameRecord(row, row.type as EventType, body)

      const unchanged = await recorded(async () => {
        assert.equal((await putContact(contact, { tags: [a.id], city: 'Lisbon' })).statusCode, 200)
      })
      assert.deepEqual(unchanged, [], 'nothing changed, nothing recorded')
    })

    test('PUT /contacts/:id taking a new email: lead.linked for the leads of that email', async () => {
      const contact = await addContact(t.db, acme)
      const lead = (await inject('POST', '/leads', { first_name: 'Cy', email: 'cy@hooli.example', provider: 'linkedin' })).json<{ id: number }>()
      let body: unknown
      const rows = await recorded(async () => {
        body = (await putContact(contact, { email: 'cy@hooli.example' })).json()
      })
      assert.deepEqual(types(rows), ['contact.updated', 'lead.linked'])
      sameRecord(rows[0], 'contact.updated', body)
      const read = await t.app.inject({ method: 'GET', url: `/api/v1/leads/${lead.id}`, headers: acme.auth })
      sameRecord(rows[1], 'lead.linked', read.json())
    })

    test('DELETE /contacts/:id: contact.deleted with {id, deleted_at}', async () => {
      const contact = await addContact(t.db, acme)
      const rows = await recorded(async () => {
        assert.equal((await inject('DELETE', `/contacts/${contact.id}`)).statusCode, 204)
      })
      const [stored] = await rawRows<{ deleted_at: string }>(t.db, sql`select ${ISO('deleted_at')} from contacts where id = ${contact.id}`)
      assert.ok(stored)
      sameRecord(rows[0], 'contact.deleted', { id: contact.id, deleted_at: stored.deleted_at })
      assert.equal(rows.length, 1)
    })

    test('PUT /flows/:id/add_contact: contact.added_to_flow (the enrollment as answered), then task.created per task', async () => {
      const flow = await addFlow(t.db, acme.companyId, { userId: acme.userId })
      const contact = await addContact(t.db, acme)
      let body = { tasks: [] as unknown[] }
      const rows = await recorded(async () => {
        const res = await inject('PUT', `/flows/${flow.id}/add_contact`, { contact_id: contact.id })
        assert.equal(res.statusCode, 200)
        body = res.json()
      })
      assert.deepEqual(types(rows), ['contact.added_to_flow', 'task.created', 'task.created', 'task.created'])
      sameRecord(rows[0], 'contact.added_to_flow', body)
      for (const [i, task] of body.tasks.entries()) sameRecord(rows[i + 1], 'task.created', task)
    })

    test('admin task create and task complete: task.created and task.completed with the task as printed', async () => {
      const contact = await addContact(t.db, acme)
      let printed: unknown
      const created = await recorded(async () => {
        const result = await runAdmin(['task', 'create', '--contact', String(contact.id), '--kind', 'email', '--due', '2026-12-01', '--json'], { database: t.db })
        assert.equal(result.code, 0, result.stderr)
        printed = JSON.parse(result.stdout)
      })
      assert.deepEqual(types(created), ['task.created'])
      sameRecord(created[0], 'task.created', printed)

      const id = String((printed as { id: number }).id)
      const completed = await recorded(async () => {
        const result = await runAdmin(['task', 'complete', '--id', id, '--json'], { database: t.db })
        assert.equal(result.code, 0, result.stderr)
        printed = JSON.parse(result.stdout)
      })
      assert.deepEqual(types(completed), ['task.completed'])
      sameRecord(completed[0], 'task.completed', printed)

      const again = await recorded(async () => {
        assert.equal((await runAdmin(['task', 'complete', '--id', id, '--json'], { database: t.db })).code, 1)
      })
      assert.deepEqual(again, [], 'a refused completion records nothing')
    })

    test('POST /leads: lead.created; with a live contact of its email, lead.linked too', async () => {
      let body: unknown
      const alone = await recorded(async () => {
        body = (await inject('POST', '/leads', { first_name: 'Di', email: 'di@umbrella.example', provider: 'linkedin', degree_of_connection: 2 })).json()
      })
      assert.deepEqual(types(alone), ['lead.created'])
      sameRecord(alone[0], 'lead.created', body)

      await addContact(t.db, acme, { email: 'eve@umbrella.example' })
      const linked = await recorded(async () => {
        body = (await inject('POST', '/leads', { first_name: 'Eve', email: 'eve@umbrella.example', provider: 'apollo', business_name: 'Umbrella' })).json()
      })
      assert.deepEqual(types(linked), ['lead.created', 'lead.linked'])
      assert.notEqual((body as { contact_id: number | null }).contact_id, null)
      for (const row of linked) sameRecord(row, row.type as EventType, body)
    })

    test('meet transcriptions: created, stopped, transcribed, linked_to_task with the record as answered', async () => {
      const contact = await addContact(t.db, acme)
      const task = await addTask(t.db, acme.companyId, contact.id, { due: '2026-12-01' })
      const steps: [EventType, () => Promise<{ statusCode: number; json: () => unknown }>][] = []
      let id = 0
      steps.push(['meet_transcription.created', async () => {
        const res = await inject('POST', '/meet_transcriptions', { user_id: acme.userId, company_id: acme.companyId, meet_id: 'abc-defg-hij' })
        id = res.json<{ id: number }>().id
        return res
      }])
      steps.push(['meet_transcription.stopped', () => inject('PUT', `/meet_transcriptions/${id}/stop`, { stopped_at: '2026-11-22T10:30:00+02:00' })])
      steps.push(['meet_transcription.transcribed', () => inject('PUT', `/meet_transcriptions/${id}/transcript`, { transcript: 'Ana: “olá” \u{1F600}\nBo: hi' })])
      steps.push(['meet_transcription.linked_to_task', () => inject('PUT', `/meet_transcriptions/${id}/to_task`, { task_id: task.id })])
      for (const [type, step] of steps) {
        let body: unknown
        const rows = await recorded(async () => {
          const res = await step()
          assert.ok(res.statusCode === 200 || res.statusCode === 201, String(res.statusCode))
          body = res.json()
        })
        assert.deepEqual(types(rows), [type])
        sameRecord(rows[0], type, body)
      }
      const refused = await recorded(async () => {
        assert.equal((await inject('PUT', `/meet_transcriptions/${id}/stop`, { stopped_at: '2026-11-22' })).statusCode, 422)
      })
      assert.deepEqual(refused, [], 'a refused move records nothing')
    })

    test('admin whatsapp import: whatsapp_message.created per message, each as the API lists it', async () => {
      const contact = await addContact(t.db, acme)
      const folder = await mkdtemp(join(tmpdir(), 'engage-events-'))
      const file = join(folder, 'messages.jsonl')
      const line = (body: string, sentAt: string) =>
        JSON.stringify({ contact_id: contact.id, user_id: acme.userId, direction: 'inbound', body, status: 'received', sent_at: sentAt })
      await writeFile(file, [line('first', '2026-11-20T10:00:00Z'), line('second', '2026-11-21T10:00:00Z'), line('third', '2026-11-19T10:00:00Z')].join('\n'))
      try {
        const rows = await recorded(async () => {
          const result = await runAdmin(['whatsapp', 'import', '--company', String(acme.companyId), '--file', file, '--json'], { database: t.db })
          assert.equal(result.code, 0, result.stderr)
        })
        assert.deepEqual(types(rows), Array(3).fill('whatsapp_message.created'))
        const listed = (await t.app.inject({
          method: 'GET', url: `/api/v1/whatsapp_messages?contact_id=${contact.id}&page=1`, headers: acme.auth,
        })).json<{ data: { id: number }[] }>().data
        const byId = [...listed].sort((a, b) => a.id - b.id)
        for (const [i, message] of byId.entries()) sameRecord(rows[i], 'whatsapp_message.created', message)
        assert.deepEqual(byId.map((m) => (m as unknown as { body: string }).body), ['first', 'second', 'third'])
      } finally {
        await rm(folder, { recursive: true })
      }
    })

    test('custom fields: created, updated, deleted ({id, deleted_at}); refusals record nothing', async () => {
      let body: unknown
      const created = await recorded(async () => {
        body = (await inject('POST', '/custom_fields', { field: 'Plan', kind: 'dropdown', options: [{ name: 'Pro' }] })).json()
      })
      sameRecord(created[0], 'custom_field.created', body)
      const id = (body as { id: number }).id
      const updated = await recorded(async () => {
        body = (await inject('PUT', `/custom_fields/${id}`, { field: 'Plan', kind: 'input' })).json()
      })
      sameRecord(updated[0], 'custom_field.updated', body)
      const refused = await recorded(async () => {
        assert.equal((await inject('PUT', `/custom_fields/${id}`, { field: 'Plan', kind: 'dropdown' })).statusCode, 422)
        assert.equal((await inject('POST', '/custom_fields', { field: 'PLAN', kind: 'input' })).statusCode, 422)
        assert.equal((await inject('DELETE', '/custom_fields/999999999')).statusCode, 404)
      })
      assert.deepEqual(refused, [])
      const deleted = await recorded(async () => {
        assert.equal((await inject('DELETE', `/custom_fields/${id}`)).statusCode, 204)
      })
      assert.equal(deleted.length, 1)
      const data = JSON.parse(deleted[0]?.data ?? '{}') as { id: number; deleted_at: string }
      sameRecord(deleted[0], 'custom_field.deleted', { id, deleted_at: data.deleted_at })
      assert.equal(data.deleted_at, deleted[0]?.created_at)
    })

    test('tags: created, updated, deleted; deleting a tag on contacts records one tag.deleted and no contact.untagged', async () => {
      let body: unknown
      const created = await recorded(async () => {
        body = (await inject('POST', '/tags', { name: 'Warm', color: '#fa0' })).json()
      })
      sameRecord(created[0], 'tag.created', body)
      const id = (body as { id: number }).id
      const updated = await recorded(async () => {
        body = (await inject('PUT', `/tags/${id}`, { name: 'Warmer', color: '#ff0000' })).json()
      })
      sameRecord(updated[0], 'tag.updated', body)
      await addContact(t.db, acme, { tags: [id] })
      await addContact(t.db, acme, { tags: [id] })
      const refused = await recorded(async () => {
        assert.equal((await inject('POST', '/tags', { name: 'WARMER', color: '#fff' })).statusCode, 422)
        assert.equal((await inject('PUT', '/tags/999999999', { name: 'X', color: '#fff' })).statusCode, 404)
      })
      assert.deepEqual(refused, [])
      const deleted = await recorded(async () => {
        assert.equal((await inject('DELETE', `/tags/${id}`)).statusCode, 204)
      })
      assert.deepEqual(types(deleted), ['tag.deleted'])
      sameRecord(deleted[0], 'tag.deleted', { id, deleted_at: deleted[0]?.created_at })
    })

    test('every event type is covered by the tests above', async () => {
      const seen = await rawRows<{ type: string }>(t.db, sql`select distinct type from api_events where company_id = ${acme.companyId}`)
      assert.deepEqual(seen.map((r) => r.type).sort(), [...BUSINESS_TYPES].sort())
    })

    test('a change that fails records nothing: taken email, duplicate lead, second enrollment', async () => {
      const taken = await addContact(t.db, acme)
      const flow = await addFlow(t.db, acme.companyId, { userId: acme.userId })
      const enrolled = await addContact(t.db, acme)
      assert.equal((await inject('PUT', `/flows/${flow.id}/add_contact`, { contact_id: enrolled.id })).statusCode, 200)
      await inject('POST', '/leads', { first_name: 'Fy', email: 'fy@example.com', provider: 'linkedin' })
      const counter = () => rawRows<{ value: number }>(t.db, sql`
        select value from counters where company_id = ${acme.companyId} and list = 'events' and key = 0`)
      await publishEvents(t.db, 1000)
      const before = await counter()
      const rows = await recorded(async () => {
        assert.equal((await inject('POST', '/contacts', { first_name: 'Dup', email: taken.email.toUpperCase() })).statusCode, 422)
        assert.equal((await putContact(enrolled, { email: taken.email })).statusCode, 422)
        assert.equal((await inject('POST', '/leads', { first_name: 'Fy', email: 'FY@example.com', provider: 'linkedin' })).statusCode, 422)
        assert.equal((await inject('PUT', `/flows/${flow.id}/add_contact`, { contact_id: enrolled.id })).statusCode, 422)
      })
      assert.deepEqual(rows, [])
      assert.deepEqual(await counter(), before, 'the sequence did not move')
    })

    test('recordEvent in a transaction that then throws: no event, no delivery, no gap after', async () => {
      const before = await lastSequence(acme.companyId)
      await assert.rejects(transaction(t.db, async (tx) => {
        await recordApiEvent(tx, acme.companyId, 'tag.created', { id: 1 }, new Date())
        throw new Error('boom')
      }), /boom/)
      assert.equal(await lastSequence(acme.companyId), before)
      const rows = await recorded(() => recordApiEvent(t.db, acme.companyId, 'tag.updated', { id: 1 }, new Date()))
      assert.deepEqual(rows.map((r) => r.sequence), [before + 1])
    })

    test('concurrent writers: sequences 1, 2, 3… per company, no gaps, no repeats', async () => {
      const fresh = await tenant(t.db, { name: 'Busy' })
      await addSubscription(t.db, fresh.companyId, ['*'])
      const writes = Array.from({ length: 24 }, (_, i) =>
        i % 3 === 0
          ? inject('POST', '/tags', { name: `Tag ${i}`, color: '#abc' }, fresh)
          : inject('POST', '/contacts', { first_name: `P${i}`, email: `p${i}@busy.example` }, fresh))
      const answers = await Promise.all(writes)
      assert.ok(answers.every((res) => res.statusCode === 201))
      const rows = await recorded(() => Promise.resolve(), fresh)
      const all = await eventsAfter(fresh.companyId, 0)
      assert.deepEqual(all.map((r) => r.sequence), Array.from({ length: 24 }, (_, i) => i + 1))
      assert.equal(rows.length, 0)
      for (const row of all) await checkDeliveries(row, fresh)
      // Sequences are per company: Other's first event is 1.
      const theirs = await recorded(async () => {
        assert.equal((await inject('POST', '/tags', { name: 'Theirs', color: '#abc' }, other)).statusCode, 201)
      }, other)
      assert.equal(theirs[0]?.sequence, 1)
    })
  })
}
