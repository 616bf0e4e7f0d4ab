// The task writes the workspace added to the API (docs/flows-and-tasks.md): POST /tasks and
// PUT /tasks/:id/complete, with GET /tasks/:id. Each answers the contract's status, body and
// headers and leaves the rows, contact event, audit record and webhook event that the admin
// command line's `task create` and `task complete` leave; a refusal leaves nothing.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { createToken } from '../../src/modules/auth/tokens.service.js'
import { systemActing } from '../../src/acting.js'
import { backends, startApp, type TestApp } from '../helpers/app.js'
import { addUser, tenant, type Tenant } from '../helpers/factories.js'
import { addContact, addTask } from '../helpers/flows-factories.js'
import { rawRows, sql } from '../helpers/sql.js'

// 02:00 UTC: 2026-03-09 in São Paulo.
const NOW = new Date('2026-03-10T02:00:00Z')

for (const backend of backends()) {
  describe(`task writes (${backend.name})`, () => {
    let t: TestApp
    let acme: Tenant // America/Sao_Paulo
    let other: Tenant
    let memberId: number

    /** Everything a task write may leave, whole rows, for "nothing written" and "this was written". */
    async function leftBy(companyId: number) {
      return {
        tasks: await rawRows<Record<string, unknown>>(t.db, sql`select * from tasks where company_id = ${companyId} order by id`),
        events: await rawRows<Record<string, unknown>>(t.db, sql`select * from contact_events where company_id = ${companyId} order by id`),
        audit: await rawRows<Record<string, unknown>>(t.db, sql`
          select action, actor_type, actor_id, target_type, target_id, target_label, changes from audit_events
           where company_id = ${companyId} and action like 'task.%' order by id`),
        outbox: await rawRows<{ type: string; data: string }>(t.db, sql`
          select type, data::text as data from api_event_outbox where company_id = ${companyId} order by id`),
      }
    }

    const post = (payload: unknown, headers: Record<string, string> = acme.auth) =>
      t.app.inject({ method: 'POST', url: '/api/v1/tasks', headers, payload: payload as object })
    const complete = (id: number | string, headers: Record<string, string> = acme.auth) =>
      t.app.inject({ method: 'PUT', url: `/api/v1/tasks/${id}/complete`, headers })

    before(async () => {
      t = await startApp(backend, { deps: { clock: () => NOW } })
      acme = await tenant(t.db, { name: 'Acme', timezone: 'America/Sao_Paulo' })
      other = await tenant(t.db, { name: 'Other' })
      memberId = (await addUser(t.db, acme.companyId)).id
    })
    after(() => t.close())

    test('POST /tasks: 201, Location, the task; the row, task.created and the audit record', async () => {
      const contact = await addContact(t.db, acme.companyId, { userId: memberId, firstName: 'Ana', lastName: 'Souza' })
      const before = await leftBy(acme.companyId)
      const res = await post({ contact_id: contact.id, kind: 'phonecall', due_date: '2026-03-09' })
      assert.equal(res.statusCode, 201, res.body)
      const task = res.json()
      assert.equal(res.headers.location, `/api/v1/tasks/${task.id}`)
      assert.deepEqual(Object.keys(task), [
        'id', 'kind', 'title', 'due_date', 'done', 'done_at', 'status', 'assigned_to_id', 'flow_id', 'contact_id', 'created_at', 'updated_at',
      ])
      assert.deepEqual(
        { ...task, id: 0 },
        {
          id: 0, kind: 'phonecall', title: 'Call Ana Souza', due_date: '2026-03-09', done: false, done_at: null, status: 'today',
          assigned_to_id: memberId, flow_id: null, contact_id: contact.id, created_at: NOW.toISOString(), updated_at: NOW.toISOString(),
        },
      )
      const after = await leftBy(acme.companyId)
      assert.equal(after.tasks.length, before.tasks.length + 1)
      assert.deepEqual(after.events, before.events, 'creating a task writes no contact event')
      assert.deepEqual(after.audit.slice(before.audit.length), [{
        action: 'task.created', actor_type: 'api_token', actor_id: after.audit.at(-1)?.actor_id, target_type: 'task', target_id: task.id,
        target_label: 'Call Ana Souza',
        changes: { contact_id: [null, contact.id], kind: [null, 'phonecall'], due_date: [null, '2026-03-09'], assigned_to_id: [null, memberId] },
      }])
      assert.deepEqual(after.outbox.slice(before.outbox.length), [{ type: 'task.created', data: JSON.stringify(task) }])

      const read = await t.app.inject({ url: `/api/v1/tasks/${task.id}`, headers: acme.auth })
      assert.equal(read.statusCode, 200)
      assert.deepEqual(read.json(), task)
    })

    test('POST /tasks: a title, an assignee, the root key `task` and a form body', async () => {
      const contact = await addContact(t.db, acme.companyId, { userId: memberId })
      const wrapped = await post({ task: { contact_id: String(contact.id), kind: 'email', due_date: '2026-04-01', title: 'Send the deck', assigned_to_id: acme.userId } })
      assert.equal(wrapped.statusCode, 201, wrapped.body)
      assert.deepEqual(
        { title: wrapped.json().title, assigned_to_id: wrapped.json().assigned_to_id, status: wrapped.json().status },
        { title: 'Send the deck', assigned_to_id: acme.userId, status: 'future' },
      )
      const form = await t.app.inject({
        method: 'POST', url: '/api/v1/tasks',
        headers: { ...acme.auth, 'content-type': 'application/x-www-form-urlencoded' },
        payload: `contact_id=${contact.id}&kind=linkedin&due_date=2026-01-02&assigned_to_id=`,
      })
      assert.equal(form.statusCode, 201, form.body)
      assert.deepEqual({ status: form.json().status, assigned_to_id: form.json().assigned_to_id }, { status: 'overdue', assigned_to_id: memberId })
    })

    test('POST /tasks refusals: 422 with details and codes, nothing written', async () => {
      const mine = await addContact(t.db, acme.companyId, { userId: memberId })
      const theirs = await addContact(t.db, other.companyId, { userId: other.userId })
      const gone = await addContact(t.db, acme.companyId, { userId: memberId, deleted: true })
      const before = await leftBy(acme.companyId)
      const cases: [unknown, Record<string, string[]>][] = [
        [{}, { contact_id: ["can't be blank"], kind: ["can't be blank"], due_date: ["can't be blank"] }],
        [{ contact_id: theirs.id, kind: 'email', due_date: '2026-03-10' }, { contact_id: ['does not exist'] }],
        [{ contact_id: gone.id, kind: 'email', due_date: '2026-03-10' }, { contact_id: ['does not exist'] }],
        [{ contact_id: mine.id, kind: 'email', due_date: '2026-03-10', assigned_to_id: other.userId }, { assigned_to_id: ['is not a user of the contact company'] }],
        [{ contact_id: mine.id, kind: 'fax', due_date: '2026-03-10' }, { kind: ['is not included in the list'] }],
        [{ contact_id: mine.id, kind: 'email', due_date: '2026-02-30' }, { due_date: ['must be a date (yyyy-mm-dd)'] }],
        [{ contact_id: mine.id, kind: 'email', due_date: '2026-03-10', title: '   ' }, { title: ["can't be blank"] }],
        [{ contact_id: mine.id, kind: 'email', due_date: '2026-03-10', title: 'x'.repeat(256) }, { title: ['is too long (maximum is 255 characters)'] }],
      ]
      for (const [payload, details] of cases) {
        const res = await post(payload)
        assert.equal(res.statusCode, 422, JSON.stringify(payload))
        const error = res.json().error
        assert.equal(error.message, 'Could not save the entity')
        assert.equal(error.code, 'validation_failed')
        assert.deepEqual(Object.keys(error.details).sort(), Object.keys(details).sort(), JSON.stringify(error.details))
        for (const [field, messages] of Object.entries(details)) assert.deepEqual(error.details[field], messages, field)
        assert.ok(error.detail_codes, 'detail codes')
      }
      assert.deepEqual(await leftBy(acme.companyId), before)
    })

    test('PUT /tasks/:id/complete: done now; task_completed by the caller, the audit record, task.completed', async () => {
      const contact = await addContact(t.db, acme.companyId, { userId: memberId })
      const task = await addTask(t.db, acme.companyId, contact.id, { due: '2026-03-09', title: 'Call back' })
      const before = await leftBy(acme.companyId)
      const res = await complete(task.id)
      assert.equal(res.statusCode, 200, res.body)
      const done = res.json()
      assert.deepEqual(
        { id: done.id, done: done.done, done_at: done.done_at, status: done.status, updated_at: done.updated_at },
        { id: task.id, done: true, done_at: NOW.toISOString(), status: 'done', updated_at: NOW.toISOString() },
      )
      const after = await leftBy(acme.companyId)
      const row = after.tasks.find((r) => r.id === task.id)
      assert.equal(row?.done, true)
      const [doneOn] = await rawRows<{ day: string }>(t.db, sql`select to_char(done_on, 'YYYY-MM-DD') as day from tasks where company_id = ${acme.companyId} and id = ${task.id}`)
      assert.equal(doneOn?.day, '2026-03-09', 'the done day in the company time zone')
      const [event] = after.events.slice(before.events.length)
      assert.deepEqual(
        { kind: event?.kind, contact_id: event?.contact_id, user_id: event?.user_id, data: event?.data },
        { kind: 'task_completed', contact_id: contact.id, user_id: acme.userId, data: { task_id: task.id, title: 'Call back', kind: 'phonecall', flow_id: null } },
      )
      assert.equal(after.events.length, before.events.length + 1)
      assert.deepEqual(after.audit.slice(before.audit.length).map((a) => [a.action, a.target_id, a.changes]), [['task.completed', task.id, { done: [false, true] }]])
      assert.deepEqual(after.outbox.slice(before.outbox.length), [{ type: 'task.completed', data: JSON.stringify(done) }])
    })

    test('PUT /tasks/:id/complete: a task done already is 422 state_refused; another company\'s or none 404; nothing written', async () => {
      const contact = await addContact(t.db, acme.companyId, { userId: memberId })
      const task = await addTask(t.db, acme.companyId, contact.id, { due: '2026-03-09' })
      assert.equal((await complete(task.id)).statusCode, 200)
      const theirContact = await addContact(t.db, other.companyId, { userId: other.userId })
      const theirs = await addTask(t.db, other.companyId, theirContact.id, { due: '2026-03-09' })
      const before = [await leftBy(acme.companyId), await leftBy(other.companyId)]

      const again = await complete(task.id)
      assert.equal(again.statusCode, 422)
      assert.deepEqual(
        { code: again.json().error.code, details: again.json().error.details },
        { code: 'state_refused', details: { base: ['task is already done'] } },
      )
      for (const id of [theirs.id, 999_999_999]) {
        const res = await complete(id)
        assert.equal(res.statusCode, 404)
        assert.equal(res.json().error.code, 'not_found')
        assert.equal((await t.app.inject({ url: `/api/v1/tasks/${id}`, headers: acme.auth })).statusCode, 404)
      }
      for (const id of ['abc', '0']) assert.equal((await complete(id)).statusCode, 422, id)
      assert.deepEqual([await leftBy(acme.companyId), await leftBy(other.companyId)], before)
    })

    test('scopes: tasks:read may read but not write (403 insufficient_scope); tasks:write may both', async () => {
      const contact = await addContact(t.db, acme.companyId, { userId: memberId })
      const task = await addTask(t.db, acme.companyId, contact.id, { due: '2026-03-09' })
      const reader = { authorization: `Bearer ${(await createToken(t.db, systemActing(), acme.userId, { scopes: ['tasks:read'] })).token}` }
      const writer = { authorization: `Bearer ${(await createToken(t.db, systemActing(), memberId, { scopes: ['tasks:write'] })).token}` }
      const before = await leftBy(acme.companyId)
      for (const res of [await complete(task.id, reader), await post({ contact_id: contact.id, kind: 'email', due_date: '2026-03-10' }, reader)]) {
        assert.equal(res.statusCode, 403)
        assert.deepEqual({ code: res.json().error.code, details: res.json().error.details }, { code: 'insufficient_scope', details: { scope: ['tasks:write'] } })
      }
      assert.deepEqual(await leftBy(acme.companyId), before)
      assert.equal((await t.app.inject({ url: `/api/v1/tasks/${task.id}`, headers: reader })).statusCode, 200)
      assert.equal((await complete(task.id, writer)).statusCode, 200, 'a member completes a task')
    })

    test('Idempotency-Key: a retried POST /tasks answers the first answer and creates one task', async () => {
      const contact = await addContact(t.db, acme.companyId, { userId: memberId })
      const headers = { ...acme.auth, 'idempotency-key': `task-${contact.id}` }
      const payload = { contact_id: contact.id, kind: 'meeting', due_date: '2026-03-20' }
      const first = await post(payload, headers)
      const second = await post(payload, headers)
      assert.equal(first.statusCode, 201)
      assert.equal(second.statusCode, 201)
      assert.equal(second.body, first.body)
      assert.equal(second.headers.location, first.headers.location)
      const rows = await rawRows(t.db, sql`select id from tasks where company_id = ${acme.companyId} and contact_id = ${contact.id}`)
      assert.equal(rows.length, 1)
    })
  })
}
