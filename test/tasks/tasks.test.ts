import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { systemActing } from '../../src/acting.js'
import { completeTaskCommand, createStandaloneTask } from '../../src/modules/tasks-api/tasks-api.service.js'
import { addUser, tenant, type Tenant } from '../helpers/factories.js'
import { backends, startApp, type TestApp } from '../helpers/app.js'
import { addContact, addFlow, addTask, completeTask } from '../helpers/flows-factories.js'
import { rawRows, sql } from '../helpers/sql.js'

// 02:00 UTC: still 2026-03-09 in São Paulo (UTC-3), already 2026-03-10 in Tokyo (UTC+9).
const NOW = new Date('2026-03-10T02:00:00Z')

for (const backend of backends()) {
  describe(`tasks list (${backend.name})`, () => {
    let t: TestApp
    let acme: Tenant // Asia/Tokyo: today is 2026-03-10
    let other: Tenant // America/Sao_Paulo: today is 2026-03-09
    let memberId: number
    let flowId: number
    let otherFlowId: number
    let c1: number
    let c2: number
    let otherContact: number
    const id = {} as Record<'t1' | 't2' | 't3' | 't4' | 't5' | 't6' | 't7' | 't8' | 'o1' | 'o2', number>

    async function list(query: string, auth = acme.auth) {
      const res = await t.app.inject({ url: `/api/v1/tasks?page=1&per_page=100&${query}`, headers: auth })
      assert.equal(res.statusCode, 200, `${query}: ${res.body}`)
      const body = res.json()
      return { ids: body.data.map((task: { id: number }) => task.id) as number[], total: body.meta.total_count as number, body }
    }

    /** Names of the acme tasks a query answers, in order; the total must match. */
    async function names(query: string) {
      const { ids, total } = await list(query)
      assert.equal(total, ids.length, `${query}: total_count`)
      const byId = new Map(Object.entries(id).map(([name, value]) => [value, name]))
      return ids.map((value) => byId.get(value) ?? `?${value}`)
    }

    before(async () => {
      t = await startApp(backend, { deps: { clock: () => NOW } })
      acme = await tenant(t.db, { name: 'Acme', timezone: 'Asia/Tokyo' })
      other = await tenant(t.db, { name: 'Other', timezone: 'America/Sao_Paulo' })
      memberId = (await addUser(t.db, acme.companyId)).id
      c1 = (await addContact(t.db, acme.companyId, { userId: acme.userId })).id
      c2 = (await addContact(t.db, acme.companyId, { userId: memberId })).id
      otherContact = (await addContact(t.db, other.companyId, { userId: other.userId })).id
      flowId = (await addFlow(t.db, acme.companyId, { userId: acme.userId })).id
      otherFlowId = (await addFlow(t.db, other.companyId, { userId: other.userId })).id

      const a = acme.companyId
      id.t1 = (await addTask(t.db, a, c1, { kind: 'phonecall', due: '2026-03-01' })).id
      id.t2 = (await addTask(t.db, a, c1, { kind: 'email', due: '2026-03-09' })).id
      id.t3 = (await addTask(t.db, a, c1, { kind: 'email', due: '2026-03-10' })).id
      id.t4 = (await addTask(t.db, a, c2, { kind: 'meeting', due: '2026-03-10', flowId })).id
      id.t5 = (await addTask(t.db, a, c2, { kind: 'linkedin', due: '2026-03-12', flowId })).id
      id.t6 = (await addTask(t.db, a, c2, { kind: 'social', due: '2026-03-05', flowId })).id
      id.t7 = (await addTask(t.db, a, c1, { kind: 'phonecall', due: '2026-03-20', assignedToId: memberId })).id
      id.t8 = (await addTask(t.db, a, c2, { kind: 'email', due: '2026-02-28', assignedToId: acme.userId })).id
      // Finished 2026-03-02 14:00 in Tokyo.
      await completeTask(t.db, a, id.t1, new Date('2026-03-02T05:00:00Z'), 'Asia/Tokyo')
      // Finished 2026-03-10 01:00 in Tokyo: still 2026-03-09 in UTC, the company's day counts.
      await completeTask(t.db, a, id.t6, new Date('2026-03-09T16:00:00Z'), 'Asia/Tokyo')

      id.o1 = (await addTask(t.db, other.companyId, otherContact, { kind: 'email', due: '2026-03-09', flowId: otherFlowId })).id
      id.o2 = (await addTask(t.db, other.companyId, otherContact, { kind: 'email', due: '2026-03-10' })).id
    })
    after(() => t.close())

    test('a task record: fields, status against today in the company zone, order by due date then id', async () => {
      const { body } = await list('')
      assert.deepEqual(
        body.data.map((task: { id: number }) => task.id),
        [id.t8, id.t1, id.t6, id.t2, id.t3, id.t4, id.t5, id.t7],
      )
      const t4 = body.data.find((task: { id: number }) => task.id === id.t4)
      assert.deepEqual(Object.keys(t4).sort(), [
        'assigned_to_id', 'contact_id', 'created_at', 'done', 'done_at', 'due_date', 'flow_id', 'id', 'kind', 'status',
        'title', 'updated_at',
      ])
      assert.deepEqual(
        { ...t4, created_at: undefined, updated_at: undefined, title: undefined },
        {
          id: id.t4, kind: 'meeting', due_date: '2026-03-10', done: false, done_at: null, status: 'today',
          assigned_to_id: memberId, flow_id: flowId, contact_id: c2, created_at: undefined, updated_at: undefined,
          title: undefined,
        },
      )
      assert.match(t4.created_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/)
      const t1 = body.data.find((task: { id: number }) => task.id === id.t1)
      assert.equal(t1.done_at, '2026-03-02T05:00:00.000Z')
      assert.equal(t1.status, 'done')
      assert.equal(t1.flow_id, null)
      assert.equal(t1.assigned_to_id, acme.userId, "the contact's owner by default")
      const statuses: Record<number, string> = Object.fromEntries(body.data.map((task: { id: number; status: string }) => [task.id, task.status]))
      assert.deepEqual(
        [id.t2, id.t3, id.t5, id.t6, id.t7, id.t8].map((x) => statuses[x]),
        ['overdue', 'today', 'future', 'done', 'future', 'overdue'],
      )
      assert.deepEqual(body.meta, { page: 1, per_page: 100, total_count: 8, total_pages: 1 })
    })

    test('each filter alone', async () => {
      assert.deepEqual(await names(`assigned_to_id=${memberId}`), ['t6', 't4', 't5', 't7'])
      assert.deepEqual(await names(`assigned_to_id=${acme.userId}`), ['t8', 't1', 't2', 't3'])
      assert.deepEqual(await names(`flow_id=${flowId}`), ['t6', 't4', 't5'])
      assert.deepEqual(await names(`contact_id=${c1}`), ['t1', 't2', 't3', 't7'])
      assert.deepEqual(await names('kind=email'), ['t8', 't2', 't3'])
      assert.deepEqual(await names('kind=phonecall'), ['t1', 't7'])
      assert.deepEqual(await names('done=true'), ['t1', 't6'])
      assert.deepEqual(await names('undone=true'), ['t8', 't2', 't3', 't4', 't5', 't7'])
      assert.deepEqual(await names('status=today'), ['t3', 't4'])
      assert.deepEqual(await names('status=overdue'), ['t8', 't2'])
      assert.deepEqual(await names('status=future'), ['t5', 't7'])
      assert.deepEqual(await names('start_due_date=2026-03-09'), ['t2', 't3', 't4', 't5', 't7'])
      assert.deepEqual(await names('end_due_date=2026-03-05'), ['t8', 't1', 't6'])
      assert.deepEqual(await names('start_due_date=2026-03-05&end_due_date=2026-03-10'), ['t6', 't2', 't3', 't4'])
      assert.deepEqual(await names('start_due_date=2026-03-10&end_due_date=2026-03-10'), ['t3', 't4'])
      assert.deepEqual(await names('start_done_date=2026-03-02&end_done_date=2026-03-02'), ['t1'])
      assert.deepEqual(await names('start_done_date=2026-03-03'), ['t6'])
      assert.deepEqual(await names('end_done_date=2026-03-09'), ['t1'], 't6 was done on 03-10 in Tokyo (03-09 in UTC)')
      assert.deepEqual(await names('start_done_date=2026-03-10&end_done_date=2026-03-10'), ['t6'])
    })

    test('filters combine with AND', async () => {
      assert.deepEqual(await names(`assigned_to_id=${memberId}&status=future`), ['t5', 't7'])
      assert.deepEqual(await names(`assigned_to_id=${acme.userId}&status=overdue`), ['t8', 't2'])
      assert.deepEqual(await names(`assigned_to_id=${acme.userId}&undone=true`), ['t8', 't2', 't3'])
      assert.deepEqual(await names(`assigned_to_id=${acme.userId}&done=true`), ['t1'])
      assert.deepEqual(await names(`flow_id=${flowId}&undone=true`), ['t4', 't5'])
      assert.deepEqual(await names(`flow_id=${flowId}&done=true`), ['t6'])
      assert.deepEqual(await names(`flow_id=${flowId}&status=today`), ['t4'])
      assert.deepEqual(await names(`contact_id=${c2}&kind=email`), ['t8'])
      assert.deepEqual(await names(`contact_id=${c2}&undone=true&assigned_to_id=${memberId}`), ['t4', 't5'])
      assert.deepEqual(await names('kind=email&status=overdue'), ['t8', 't2'])
      assert.deepEqual(await names('kind=email&undone=true'), ['t8', 't2', 't3'])
      assert.deepEqual(await names(`kind=email&assigned_to_id=${acme.userId}`), ['t8', 't2', 't3'])
      assert.deepEqual(await names('status=future&end_due_date=2026-03-15'), ['t5'])
      assert.deepEqual(await names('status=overdue&start_due_date=2026-03-01'), ['t2'])
      assert.deepEqual(await names('start_due_date=2026-03-01&end_due_date=2026-03-10&done=true'), ['t1', 't6'])
      assert.deepEqual(await names('start_due_date=2026-03-01&end_due_date=2026-03-10&undone=true'), ['t2', 't3', 't4'])
      assert.deepEqual(await names(`start_done_date=2026-03-01&assigned_to_id=${memberId}`), ['t6'])
      assert.deepEqual(await names(`start_done_date=2026-03-01&flow_id=${flowId}&done=true`), ['t6'])
      assert.deepEqual(await names('start_done_date=2026-03-01&end_due_date=2026-03-03'), ['t1'])
      assert.deepEqual(
        await names(`assigned_to_id=${memberId}&flow_id=${flowId}&kind=linkedin&status=future&contact_id=${c2}`),
        ['t5'],
      )
    })

    test('contradictory filters answer an empty list', async () => {
      assert.deepEqual(await names('status=today&done=true'), [])
      assert.deepEqual(await names('start_done_date=2026-01-01&undone=true'), [])
      assert.deepEqual(await names('start_done_date=2026-01-01&status=overdue'), [])
      assert.deepEqual(await names('start_due_date=2026-03-11&end_due_date=2026-03-10'), [])
      assert.deepEqual(await names('status=today&start_due_date=2026-03-11'), [])
    })

    test('the same instant is another day in another zone', async () => {
      // São Paulo: 2026-03-09 today, so o1 is due today and o2 in the future.
      const res = await list('', other.auth)
      assert.deepEqual(res.body.data.map((task: { status: string }) => task.status), ['today', 'future'])
      assert.deepEqual((await list('status=today', other.auth)).ids, [id.o1])
      assert.deepEqual((await list('status=future', other.auth)).ids, [id.o2])
      assert.deepEqual((await list('status=overdue', other.auth)).ids, [])
      // Tokyo, same instant: 2026-03-10, so a task due 03-09 is overdue and 03-10 is today.
      assert.deepEqual(await names('status=today'), ['t3', 't4'])
      assert.deepEqual(await names('start_due_date=2026-03-09&end_due_date=2026-03-09&status=overdue'), ['t2'])
    })

    test('filters naming what the caller cannot see give an empty list; other companies never show', async () => {
      for (const query of [
        `assigned_to_id=${other.userId}`,
        `flow_id=${otherFlowId}`,
        `contact_id=${otherContact}`,
        'assigned_to_id=999999999',
        'flow_id=999999999',
        'contact_id=999999999',
        `flow_id=${otherFlowId}&undone=true`,
        `assigned_to_id=${other.userId}&status=today`,
      ]) {
        const res = await list(query)
        assert.deepEqual([res.ids, res.total], [[], 0], query)
      }
      const all = await list('')
      assert.ok(!all.ids.includes(id.o1) && !all.ids.includes(id.o2))
      const theirs = await list('', other.auth)
      assert.deepEqual(theirs.ids, [id.o1, id.o2])
      assert.equal(theirs.total, 2)
    })

    test('paging: per_page, Link header, a page past the end', async () => {
      const res = await t.app.inject({ url: '/api/v1/tasks?page=2&per_page=3&kind=&undone=true', headers: acme.auth })
      assert.equal(res.statusCode, 200)
      const body = res.json()
      assert.deepEqual(body.data.map((task: { id: number }) => task.id), [id.t4, id.t5, id.t7])
      assert.deepEqual(body.meta, { page: 2, per_page: 3, total_count: 6, total_pages: 2 })
      assert.equal(
        res.headers.link,
        '</api/v1/tasks?page=1&per_page=3&kind=&undone=true>; rel="first", ' +
          '</api/v1/tasks?page=1&per_page=3&kind=&undone=true>; rel="prev", ' +
          '</api/v1/tasks?page=2&per_page=3&kind=&undone=true>; rel="last"',
      )
      const second = await t.app.inject({ url: '/api/v1/tasks?page=3&per_page=4', headers: acme.auth })
      assert.deepEqual(second.json().data, [])
      assert.deepEqual(second.json().meta, { page: 3, per_page: 4, total_count: 8, total_pages: 2 })
      // Pages of the unfiltered list (merged open and done sides) join up in order.
      const pages = []
      for (let page = 1; page <= 3; page++) {
        const r = await t.app.inject({ url: `/api/v1/tasks?page=${page}&per_page=3`, headers: acme.auth })
        pages.push(...r.json().data.map((task: { id: number }) => task.id))
      }
      assert.deepEqual(pages, [id.t8, id.t1, id.t6, id.t2, id.t3, id.t4, id.t5, id.t7])
    })

    test('bad parameters: 422 naming each one', async () => {
      for (const [query, fields] of [
        ['', ['page']],
        ['page=1&start_due_date=2026-02-30', ['start_due_date']],
        ['page=1&end_due_date=2026-3-1', ['end_due_date']],
        ['page=1&start_done_date=yesterday', ['start_done_date']],
        ['page=1&end_done_date=2026-03-10T00:00:00Z', ['end_done_date']],
        ['page=1&kind=fax', ['kind']],
        ['page=1&status=late', ['status']],
        ['page=1&status=done', ['status']],
        ['page=1&done=yes', ['done']],
        ['page=1&undone=false', ['undone']],
        ['page=1&done=true&undone=true', ['done', 'undone']],
        ['page=1&assigned_to_id=abc', ['assigned_to_id']],
        ['page=1&flow_id=0', ['flow_id']],
        ['page=1&contact_id=-1', ['contact_id']],
        ['page=1&per_page=101', ['per_page']],
      ] as const) {
        const res = await t.app.inject({ url: `/api/v1/tasks?${query}`, headers: acme.auth })
        assert.equal(res.statusCode, 422, query)
        const body = res.json()
        assert.equal(body.error.message, 'Could not save the entity')
        assert.deepEqual(Object.keys(body.error.details).sort(), [...fields].sort(), `${query}: ${res.body}`)
      }
    })

    test('empty optional parameters count as not given; parameters may come in a form body', async () => {
      assert.equal((await list('kind=&status=&done=&flow_id=&start_due_date=')).total, 8)
      const res = await t.app.inject({
        method: 'GET',
        url: '/api/v1/tasks',
        headers: { ...acme.auth, 'content-type': 'application/x-www-form-urlencoded' },
        payload: 'page=1&status=today',
      })
      assert.equal(res.statusCode, 200)
      assert.deepEqual(res.json().data.map((task: { id: number }) => task.id), [id.t3, id.t4])
    })

    test('no token: 401', async () => {
      const res = await t.app.inject({ url: '/api/v1/tasks?page=1' })
      assert.equal(res.statusCode, 401)
    })

    test('a page past the end answers the total and no rows, whichever way the total is found', async () => {
      for (const [query, total] of [
        ['', 8], // counters
        [`contact_id=${c1}`, 4], // the contact's tasks, counted
        ['kind=email&start_due_date=2026-03-01', 2], // counted on tasks_due_idx
        [`assigned_to_id=${memberId}&kind=social`, 1], // counted on tasks_assigned_idx
        [`flow_id=${flowId}&assigned_to_id=${memberId}`, 3], // counted on tasks_flow_idx
        ['start_done_date=2026-03-01&kind=social', 1], // counted on tasks_done_on_idx
        ['start_done_date=2026-03-01', 2], // counters by finish day
      ] as const) {
        const res = await t.app.inject({ url: `/api/v1/tasks?page=9&per_page=1&${query}`, headers: acme.auth })
        assert.equal(res.statusCode, 200, query)
        assert.deepEqual(res.json(), { data: [], meta: { page: 9, per_page: 1, total_count: total, total_pages: total } }, query)
      }
    })

    test('a task written by the command line answers what the list then shows', async () => {
      const created = await createStandaloneTask(t.db, systemActing(NOW), { contact: c2, kind: 'meeting', due: '2026-03-11', title: 'Written' })
      const listed = async () => (await list(`contact_id=${c2}&kind=meeting`)).body.data.find((x: { id: number }) => x.id === created.id)
      assert.deepEqual(await listed(), JSON.parse(JSON.stringify(created)))
      assert.equal(created.status, 'future')

      const done = await completeTaskCommand(t.db, systemActing(NOW), { id: created.id })
      assert.deepEqual(await listed(), JSON.parse(JSON.stringify(done)))
      assert.deepEqual([done.done, done.done_at, done.status, done.updated_at], [true, NOW, 'done', NOW])
      assert.deepEqual({ ...done, done: false, done_at: null, status: 'future', updated_at: created.updated_at }, created)

      const [event] = await rawRows<{ contactId: number; userId: number | null; data: Record<string, unknown>; occurredAt: Date }>(t.db, sql`
        select contact_id as "contactId", user_id as "userId", data, occurred_at as "occurredAt" from contact_events
        where company_id = ${acme.companyId} and kind = 'task_completed' and data->>'task_id' = ${String(created.id)}`)
      assert.deepEqual(
        { contactId: event?.contactId, userId: event?.userId, data: event?.data, occurredAt: event?.occurredAt },
        { contactId: c2, userId: null, data: { task_id: created.id, title: 'Written', kind: 'meeting', flow_id: null }, occurredAt: NOW },
      )
      // Both writes moved the counters: the totals they answer include the task.
      assert.equal((await list('kind=meeting&done=true')).total, 1)
      assert.equal((await list('start_done_date=2026-03-10&end_done_date=2026-03-10')).total, 2)
    })

    test('done_on is kept as the finish day in the company zone', async () => {
      const [row] = await rawRows<{ done_on: string | null; done_at: Date | null }>(t.db, sql`select done_on::text, done_at from tasks where id = ${id.t6}`)
      assert.ok(row)
      assert.equal(row.done_on, '2026-03-10')
      assert.equal(row.done_at?.toISOString(), '2026-03-09T16:00:00.000Z')
    })
  })
}
