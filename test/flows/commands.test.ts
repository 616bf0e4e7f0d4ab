// The rules of the flow and task admin commands, in-process (cli.test.ts runs the commands
// themselves): every refusal is an ApiError the command line prints as one line.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { systemActing } from '../../src/acting.js'
import { ApiError } from '../../src/errors.js'
import { validate } from '../../src/http/validation.js'
import { FlowCreateInput } from '../../src/modules/flows/flows.schemas.js'
import { createFlowCommand, parseSteps } from '../../src/modules/flows-api/flows-api.service.js'
import { TaskCreateInput } from '../../src/modules/tasks/tasks.schemas.js'
import { completeTaskCommand, createStandaloneTask, defaultTitle } from '../../src/modules/tasks-api/tasks-api.service.js'
import { addUser, tenant, type Tenant } from '../helpers/factories.js'
import { backends, startApp, type TestApp } from '../helpers/app.js'
import { addContact, STEPS } from '../helpers/flows-factories.js'
import { rawRows, sql } from '../helpers/sql.js'

const NOW = new Date('2026-03-10T02:00:00Z')

/** The refusal `fn` throws, as the command line prints it: details, or the message. */
async function refusal(fn: () => unknown): Promise<unknown> {
  try {
    await fn()
  } catch (err) {
    assert.ok(err instanceof ApiError, String(err))
    return err.details ?? err.message
  }
  assert.fail('expected a refusal')
}

describe('--steps file', () => {
  test('a JSON array of {day, kind, title}, checked step by step', async () => {
    assert.deepEqual(parseSteps('[{"day": "2", "kind": "email", "title": " Hi ", "extra": 1}]'), [
      { day: 2, kind: 'email', title: ' Hi ', extra: 1 },
    ])
    for (const [text, details] of [
      ['[{"day": 1,', { steps: ['is not valid JSON'] }],
      ['{"day": 1}', { steps: ['must be a JSON array of {day, kind, title}'] }],
      ['[]', { steps: ['must have at least 1 item'] }],
      [JSON.stringify(Array.from({ length: 51 }, () => ({ day: 0, kind: 'email', title: 'x' }))), { steps: ['must have at most 50 items'] }],
      ['[{"day": 0, "kind": "email", "title": "a"}, {"day": -1, "kind": "email", "title": "b"}]', { 'steps[1].day': ['must be greater than or equal to 0'] }],
      ['[{"day": 3651, "kind": "email", "title": "a"}]', { 'steps[0].day': ['must be less than or equal to 3650'] }],
      ['[{"day": 1.5, "kind": "email", "title": "a"}]', { 'steps[0].day': ['must be an integer'] }],
      ['[{"day": 0, "kind": "fax", "title": "a"}]', { 'steps[0].kind': ['is not included in the list'] }],
      ['[{"day": 0, "kind": "email", "title": "  "}]', { 'steps[0].title': ["can't be blank"] }],
      ['[{"day": 0, "kind": "email"}]', { 'steps[0].title': ["can't be blank"] }],
      ['[{"kind": "email", "title": "a"}, 7]', { 'steps[0].day': ["can't be blank"] }],
      ['[7]', { 'steps[0].base': ['must be an object'] }],
    ] as const) {
      assert.deepEqual(await refusal(() => parseSteps(text)), details, text)
    }
  })

  test('command options are checked like API parameters', async () => {
    const ok = { company: '1', user: '2', name: 'X', steps: 'f.json' }
    assert.deepEqual(validate(FlowCreateInput, ok), { company: 1, user: 2, name: 'X', steps: 'f.json' })
    assert.deepEqual(await refusal(() => validate(FlowCreateInput, { ...ok, name: ' ' })), { name: ["can't be blank"] })
    assert.deepEqual(await refusal(() => validate(FlowCreateInput, { ...ok, company: 'abc' })), { company: ['must be an integer'] })
    assert.deepEqual(await refusal(() => validate(FlowCreateInput, { ...ok, status: 'sleeping' })), { status: ['is not included in the list'] })
    const task = { contact: '1', kind: 'email', due: '2026-01-01' }
    assert.deepEqual(validate(TaskCreateInput, { ...task, 'assigned-to': '4' }), { contact: 1, kind: 'email', due: '2026-01-01', 'assigned-to': 4 })
    assert.deepEqual(await refusal(() => validate(TaskCreateInput, { ...task, kind: 'fax' })), { kind: ['is not included in the list'] })
    assert.deepEqual(await refusal(() => validate(TaskCreateInput, { ...task, due: '2026-02-30' })), { due: ['must be a date (yyyy-mm-dd)'] })
    assert.deepEqual(await refusal(() => validate(TaskCreateInput, { ...task, title: '' })), { title: ["can't be blank"] })
  })

  test('default titles: from the kind and the contact name, at most 255 characters', () => {
    assert.equal(defaultTitle('phonecall', { first_name: 'Ana', last_name: 'Souza' }), 'Call Ana Souza')
    assert.equal(defaultTitle('meeting', { first_name: 'Ana', last_name: null }), 'Meeting with Ana')
    const long = defaultTitle('email', { first_name: '😀'.repeat(200), last_name: 'b'.repeat(200) })
    assert.equal(Array.from(long).length, 255)
  })
})

for (const backend of backends()) {
  describe(`flow and task commands, in-process (${backend.name})`, () => {
    let t: TestApp
    let acme: Tenant
    let other: Tenant

    before(async () => {
      t = await startApp(backend)
      acme = await tenant(t.db, { timezone: 'America/Sao_Paulo' })
      other = await tenant(t.db)
    })
    after(() => t.close())

    test('flow create refuses a missing company and a user of another company', async () => {
      const input = { company: acme.companyId, user: other.userId, name: 'X', steps: 'f.json' }
      assert.deepEqual(await refusal(() => createFlowCommand(t.db, systemActing(), input, STEPS)), { user: ['is not a user of the company'] })
      assert.equal(await refusal(() => createFlowCommand(t.db, systemActing(), { ...input, company: 999_999_999 }, STEPS)), 'company 999999999 not found')
      assert.equal((await rawRows<{ id: number }>(t.db, sql`select id from flows`)).length, 0)
      const member = await addUser(t.db, acme.companyId)
      const flow = await createFlowCommand(t.db, systemActing(), { ...input, user: member.id }, STEPS)
      assert.equal(flow.user_id, member.id)
    })

    test('task create: a live contact; assigned-to a user of its company', async () => {
      const contact = await addContact(t.db, acme.companyId, { userId: acme.userId })
      const deleted = await addContact(t.db, acme.companyId, { userId: acme.userId, deleted: true })
      const theirs = await addContact(t.db, other.companyId, { userId: other.userId })
      const input = { contact: contact.id, kind: 'email' as const, due: '2026-01-01' }
      assert.deepEqual(await refusal(() => createStandaloneTask(t.db, systemActing(NOW), { ...input, contact: deleted.id })), { contact: ['does not exist'] })
      assert.deepEqual(await refusal(() => createStandaloneTask(t.db, systemActing(NOW), { ...input, contact: 999_999_999 })), { contact: ['does not exist'] })
      assert.deepEqual(
        await refusal(() => createStandaloneTask(t.db, systemActing(NOW), { ...input, 'assigned-to': other.userId })),
        { 'assigned-to': ['is not a user of the contact company'] },
      )
      assert.deepEqual(
        await refusal(() => createStandaloneTask(t.db, systemActing(NOW), { ...input, contact: theirs.id, 'assigned-to': acme.userId })),
        { 'assigned-to': ['is not a user of the contact company'] },
      )
      assert.equal((await rawRows<{ id: number }>(t.db, sql`select id from tasks`)).length, 0)

      // In São Paulo it is still 2026-03-09 at this instant.
      const task = await createStandaloneTask(t.db, systemActing(NOW), { ...input, due: '2026-03-09' })
      assert.deepEqual([task.status, task.assigned_to_id, task.title], ['today', acme.userId, `Email ${contact.first_name} Test`])
    })

    test('task complete: done now, once; concurrent completions: exactly one wins', async () => {
      const contact = await addContact(t.db, acme.companyId, { userId: acme.userId })
      const task = await createStandaloneTask(t.db, systemActing(NOW), { contact: contact.id, kind: 'phonecall', due: '2026-03-01' })
      const results = await Promise.allSettled([
        completeTaskCommand(t.db, systemActing(NOW), { id: task.id }),
        completeTaskCommand(t.db, systemActing(NOW), { id: task.id }),
      ])
      assert.deepEqual(results.map((r) => r.status).sort(), ['fulfilled', 'rejected'])
      const rejected = results.find((r) => r.status === 'rejected')
      assert.equal((rejected?.reason as ApiError).message, `task ${task.id} is already done`)
      const done = results.find((r) => r.status === 'fulfilled')?.value
      assert.deepEqual([done?.done, done?.status, done?.done_at], [true, 'done', NOW])

      const [row] = await rawRows<{ done_on: string | null }>(t.db, sql`select done_on::text from tasks where id = ${task.id}`)
      assert.equal(row?.done_on, '2026-03-09', 'the day of the instant in São Paulo')
      const events = await rawRows<{ occurred_at: Date }>(t.db, sql`
        select occurred_at from contact_events where contact_id = ${contact.id} and kind = 'task_completed'`)
      assert.equal(events.length, 1)
      assert.equal(events[0]?.occurred_at.toISOString(), NOW.toISOString())
      const [doneCount] = await rawRows<{ value: number }>(t.db, sql`
        select value from counters where company_id = ${acme.companyId} and list = 'tasks.done' and key = 0`)
      assert.equal(doneCount?.value, 1)
      assert.equal(await refusal(() => completeTaskCommand(t.db, systemActing(NOW), { id: 999_999_999 })), 'task 999999999 not found')
    })
  })
}
