import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { counterValue } from '../helpers/counters.js'
import { addUser, tenant, type Tenant } from '../helpers/factories.js'
import { backends, startApp, type TestApp } from '../helpers/app.js'
import { addContact as addServiceContact } from '../helpers/contacts-factories.js'
import { addContact, addFlow, STEPS } from '../helpers/flows-factories.js'
import { rawRows, sql } from '../helpers/sql.js'

// 02:00 UTC: 2026-03-09 in São Paulo, 2026-03-10 in Tokyo.
const NOW = new Date('2026-03-10T02:00:00Z')

for (const backend of backends()) {
  describe(`flows (${backend.name})`, () => {
    let t: TestApp
    let acme: Tenant // America/Sao_Paulo
    let tokyo: Tenant // Asia/Tokyo
    let memberId: number
    const flowIds: number[] = []
    let pausedId: number
    let otherFlowId: number

    const addContactTo = (flowId: number, contactId: unknown, auth = acme.auth) =>
      t.app.inject({ method: 'PUT', url: `/api/v1/flows/${flowId}/add_contact`, headers: auth, payload: { contact_id: contactId } })

    /** Whole rows (every column), so that "nothing written" compares all of them. */
    async function rowsOf(companyId: number) {
      return {
        enrollments: await rawRows<{ id: number; contact_id: number; added_at: Date }>(t.db, sql`
          select * from flow_enrollments where company_id = ${companyId} order by id`),
        tasks: await rawRows<{ id: number; enrollment_id: number | null; contact_id: number }>(t.db, sql`
          select * from tasks where company_id = ${companyId} order by id`),
        events: await rawRows<{ contact_id: number; kind: string; user_id: number | null; data: Record<string, unknown> }>(t.db, sql`
          select * from contact_events where company_id = ${companyId} order by id`),
      }
    }

    before(async () => {
      t = await startApp(backend, { deps: { clock: () => NOW } })
      acme = await tenant(t.db, { name: 'Acme', timezone: 'America/Sao_Paulo' })
      tokyo = await tenant(t.db, { name: 'Tokyo', timezone: 'Asia/Tokyo' })
      memberId = (await addUser(t.db, acme.companyId)).id
      for (const [name, userId] of [
        ['Inbound follow-up', acme.userId],
        ['Outbound 100% cold', memberId],
        ['Re-engage_lost', memberId],
        ['INBOUND partners', acme.userId],
      ] as const) {
        flowIds.push((await addFlow(t.db, acme.companyId, { userId, name })).id)
      }
      pausedId = (await addFlow(t.db, acme.companyId, { userId: acme.userId, name: 'Paused flow', status: 'paused' })).id
      otherFlowId = (await addFlow(t.db, tokyo.companyId, { userId: tokyo.userId, name: 'Inbound in Tokyo' })).id
    })
    after(() => t.close())

    test('lists the flows of the company with their steps and contacts_count, id ascending', async () => {
      const res = await t.app.inject({ url: '/api/v1/flows?page=1', headers: acme.auth })
      assert.equal(res.statusCode, 200)
      const body = res.json()
      assert.deepEqual(body.data.map((f: { id: number }) => f.id), [...flowIds, pausedId])
      assert.deepEqual(body.meta, { page: 1, per_page: 25, total_count: 5, total_pages: 1 })
      const [first] = body.data
      assert.deepEqual(Object.keys(first).sort(), [
        'contacts_count', 'created_at', 'id', 'name', 'status', 'steps', 'updated_at', 'user_id',
      ])
      assert.deepEqual(
        { name: first.name, user_id: first.user_id, status: first.status, contacts_count: first.contacts_count },
        { name: 'Inbound follow-up', user_id: acme.userId, status: 'active', contacts_count: 0 },
      )
      assert.deepEqual(first.steps, STEPS.map((s, i) => ({ position: i + 1, ...s })))
      assert.equal(body.data[4].status, 'paused')
      assert.match(first.created_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/)
    })

    test('user_id and search_term filter (case-insensitive substring of the name, wildcards literal)', async () => {
      const ids = async (query: string) => {
        const res = await t.app.inject({ url: `/api/v1/flows?page=1&${query}`, headers: acme.auth })
        assert.equal(res.statusCode, 200, query)
        assert.equal(res.json().meta.total_count, res.json().data.length)
        return res.json().data.map((f: { id: number }) => f.id) as number[]
      }
      assert.deepEqual(await ids(`user_id=${memberId}`), [flowIds[1], flowIds[2]])
      assert.deepEqual(await ids('search_term=inbound'), [flowIds[0], flowIds[3]])
      assert.deepEqual(await ids('search_term=BOUND%20P'), [flowIds[3]])
      assert.deepEqual(await ids(`search_term=inbound&user_id=${memberId}`), [])
      assert.deepEqual(await ids('search_term=100%25'), [flowIds[1]])
      assert.deepEqual(await ids('search_term=%25'), [flowIds[1]])
      assert.deepEqual(await ids('search_term=_'), [flowIds[2]])
      assert.deepEqual(await ids('search_term=O'), [...flowIds, pausedId])
      assert.deepEqual(await ids('search_term=nothing%20like%20it'), [])
      assert.deepEqual(await ids(`user_id=${tokyo.userId}`), [])
      assert.deepEqual(await ids('search_term=Tokyo'), [])
    })

    test('paging and bad parameters', async () => {
      const res = await t.app.inject({ url: '/api/v1/flows?page=2&per_page=2', headers: acme.auth })
      assert.deepEqual(res.json().data.map((f: { id: number }) => f.id), [flowIds[2], flowIds[3]])
      assert.deepEqual(res.json().meta, { page: 2, per_page: 2, total_count: 5, total_pages: 3 })
      assert.match(String(res.headers.link), /<\/api\/v1\/flows\?page=3&per_page=2>; rel="next"/)
      for (const [query, field] of [
        ['', 'page'],
        ['page=x', 'page'],
        ['page=1&user_id=abc', 'user_id'],
        ['page=1&user_id=0', 'user_id'],
        [`page=1&search_term=${'a'.repeat(256)}`, 'search_term'],
      ] as const) {
        const bad = await t.app.inject({ url: `/api/v1/flows?${query}`, headers: acme.auth })
        assert.equal(bad.statusCode, 422, query)
        assert.deepEqual(Object.keys(bad.json().error.details), [field])
      }
    })

    test('every page of each filter combination; past the end: the total and no flows', async () => {
      const all = [...flowIds, pausedId]
      const members = [flowIds[1], flowIds[2]]
      const inbound = [flowIds[0], flowIds[3]]
      for (const [query, expected] of [
        ['', all],
        [`&user_id=${memberId}`, members],
        ['&search_term=inbound', inbound],
        [`&search_term=o&user_id=${acme.userId}`, [flowIds[0], flowIds[3], pausedId]],
        [`&search_term=inbound&user_id=${memberId}`, []],
      ] as const) {
        for (const perPage of [1, 2, 100]) {
          const pages = Math.ceil(expected.length / perPage)
          for (let page = 1; page <= pages + 1; page++) {
            const res = await t.app.inject({ url: `/api/v1/flows?page=${page}&per_page=${perPage}${query}`, headers: acme.auth })
            const label = `${query} page ${page} per_page ${perPage}`
            assert.equal(res.statusCode, 200, label)
            assert.deepEqual(res.json().data.map((f: { id: number }) => f.id), expected.slice((page - 1) * perPage, page * perPage), label)
            assert.deepEqual(res.json().meta, { page, per_page: perPage, total_count: expected.length, total_pages: pages }, label)
          }
        }
      }
    })

    test('flow create answers exactly the record the list shows', async () => {
      const created = await addFlow(t.db, tokyo.companyId, {
        userId: tokyo.userId,
        name: 'Echo "quoted" flow',
        steps: [{ day: 3, kind: 'social', title: 'Ünïcode step' }, { day: 0, kind: 'email', title: 'First' }],
      })
      assert.deepEqual(created.steps, [
        { position: 1, day: 3, kind: 'social', title: 'Ünïcode step' },
        { position: 2, day: 0, kind: 'email', title: 'First' },
      ])
      const res = await t.app.inject({ url: '/api/v1/flows?page=1&search_term=echo', headers: tokyo.auth })
      assert.deepEqual(res.json().data, [JSON.parse(JSON.stringify(created))])
    })

    test('add_contact: enrollment, one task per step due from today in the company zone, event, count', async () => {
      const contact = await addContact(t.db, acme.companyId, { userId: memberId })
      const flowId = flowIds[0] ?? 0
      const res = await addContactTo(flowId, contact.id)
      assert.equal(res.statusCode, 200, res.body)
      const body = res.json()
      assert.deepEqual(Object.keys(body).sort(), ['added_at', 'contact_id', 'created_at', 'flow_id', 'id', 'status', 'tasks', 'updated_at'])
      assert.deepEqual(
        { flow_id: body.flow_id, contact_id: body.contact_id, status: body.status, added_at: body.added_at },
        { flow_id: flowId, contact_id: contact.id, status: 'active', added_at: NOW.toISOString() },
      )
      // Today is 2026-03-09 in São Paulo at this instant; steps are days 0, 2 and 7.
      assert.deepEqual(
        body.tasks.map((task: Record<string, unknown>) => [task.kind, task.title, task.due_date, task.status, task.assigned_to_id, task.flow_id, task.contact_id, task.done]),
        [
          ['email', 'Welcome email', '2026-03-09', 'today', memberId, flowId, contact.id, false],
          ['phonecall', 'Intro call', '2026-03-11', 'future', memberId, flowId, contact.id, false],
          ['meeting', 'Demo', '2026-03-16', 'future', memberId, flowId, contact.id, false],
        ],
      )

      const { enrollments, tasks: taskRows, events } = await rowsOf(acme.companyId)
      const enrollment = enrollments.find((e) => e.id === body.id)
      assert.ok(enrollment)
      assert.equal(enrollment.contact_id, contact.id)
      assert.equal(enrollment.added_at.toISOString(), NOW.toISOString())
      const created = taskRows.filter((row) => row.enrollment_id === body.id)
      assert.deepEqual(created.map((row) => row.id).sort((a, b) => a - b), body.tasks.map((task: { id: number }) => task.id))
      const event = events.find((e) => e.contact_id === contact.id)
      assert.ok(event)
      assert.equal(event.kind, 'added_to_flow')
      assert.equal(event.user_id, acme.userId)
      assert.deepEqual(event.data, {
        flow_id: flowId,
        flow_name: 'Inbound follow-up',
        enrollment_id: body.id,
        task_ids: body.tasks.map((task: { id: number }) => task.id),
      })

      const list = await t.app.inject({ url: '/api/v1/flows?page=1&per_page=1', headers: acme.auth })
      assert.equal(list.json().data[0].contacts_count, 1)
      const listed = await t.app.inject({ url: `/api/v1/tasks?page=1&flow_id=${flowId}&contact_id=${contact.id}`, headers: acme.auth })
      assert.deepEqual(listed.json().data, body.tasks)
    })

    test('contact_id may come in the query string or a form body', async () => {
      const contact = await addContact(t.db, acme.companyId, { userId: acme.userId })
      const viaQuery = await t.app.inject({
        method: 'PUT',
        url: `/api/v1/flows/${flowIds[1]}/add_contact?contact_id=${contact.id}`,
        headers: acme.auth,
      })
      assert.equal(viaQuery.statusCode, 200, viaQuery.body)
      const viaForm = await t.app.inject({
        method: 'PUT',
        url: `/api/v1/flows/${flowIds[2]}/add_contact`,
        headers: { ...acme.auth, 'content-type': 'application/x-www-form-urlencoded' },
        payload: `contact_id=${contact.id}`,
      })
      assert.equal(viaForm.statusCode, 200, viaForm.body)
      assert.equal(viaForm.json().contact_id, contact.id)
    })

    test('"today" is the company day: the same instant enrolls from another day in Tokyo', async () => {
      const contact = await addContact(t.db, tokyo.companyId, { userId: tokyo.userId })
      const res = await addContactTo(otherFlowId, contact.id, tokyo.auth)
      assert.equal(res.statusCode, 200, res.body)
      assert.deepEqual(res.json().tasks.map((task: { due_date: string }) => task.due_date), ['2026-03-10', '2026-03-12', '2026-03-17'])
      assert.equal(res.json().tasks[0].status, 'today')
    })

    test('refusals: 404 for the flow, 422 for the contact or a paused flow; nothing written', async () => {
      const contact = await addContact(t.db, acme.companyId, { userId: acme.userId })
      const deleted = await addContact(t.db, acme.companyId, { userId: acme.userId, deleted: true })
      const foreign = await addContact(t.db, tokyo.companyId, { userId: tokyo.userId })
      const before = await rowsOf(acme.companyId)
      const flowId = flowIds[3] ?? 0

      for (const [flow, status] of [[otherFlowId, 404], [999_999_999, 404]] as const) {
        const res = await addContactTo(flow, contact.id)
        assert.equal(res.statusCode, status)
        assert.equal(res.json().error.message, 'Not found')
      }
      for (const path of ['abc', '0']) {
        const res = await t.app.inject({ method: 'PUT', url: `/api/v1/flows/${path}/add_contact`, headers: acme.auth, payload: { contact_id: contact.id } })
        assert.equal(res.statusCode, 422, path)
        assert.ok(res.json().error.details.id)
      }
      for (const [contactId, message] of [
        [foreign.id, 'does not exist'],
        [deleted.id, 'does not exist'],
        [999_999_999, 'does not exist'],
        ['abc', 'must be an integer'],
        [0, 'must be greater than or equal to 1'],
        [undefined, "can't be blank"],
        ['', 'must be an integer'],
      ] as const) {
        const res = await addContactTo(flowId, contactId)
        assert.equal(res.statusCode, 422, String(contactId))
        assert.deepEqual(res.json().error.details, { contact_id: [message] }, String(contactId))
      }
      const paused = await addContactTo(pausedId, contact.id)
      assert.equal(paused.statusCode, 422)
      assert.deepEqual(paused.json().error.details, { base: ['flow is paused'] })
      const both = await addContactTo(pausedId, deleted.id)
      assert.deepEqual(both.json().error.details, { base: ['flow is paused'], contact_id: ['does not exist'] })

      assert.deepEqual(await rowsOf(acme.companyId), before)
    })

    test('a contact already active in the flow: 422; concurrent adds: exactly one wins', async () => {
      const contact = await addContact(t.db, acme.companyId, { userId: acme.userId })
      const flowId = flowIds[3] ?? 0
      const results = await Promise.all([addContactTo(flowId, contact.id), addContactTo(flowId, contact.id), addContactTo(flowId, contact.id)])
      assert.deepEqual(results.map((r) => r.statusCode).sort(), [200, 422, 422])
      for (const loser of results.filter((r) => r.statusCode === 422)) {
        assert.deepEqual(loser.json().error.details, { contact_id: ['is already active in this flow'] })
      }
      const again = await addContactTo(flowId, contact.id)
      assert.equal(again.statusCode, 422)

      const { enrollments, tasks: taskRows, events } = await rowsOf(acme.companyId)
      assert.equal(enrollments.filter((e) => e.contact_id === contact.id).length, 1)
      assert.equal(taskRows.filter((row) => row.contact_id === contact.id).length, STEPS.length)
      assert.equal(events.filter((e) => e.contact_id === contact.id).length, 1)
      assert.equal(await counterValue(t.db, acme.companyId, 'flows.contacts', flowId), 1)

      // The same contact may be active in another flow at the same time.
      assert.equal((await addContactTo(flowIds[0] ?? 0, contact.id)).statusCode, 200)
    })

    test('deleting a contact ends its enrollments: it leaves contacts_count, its tasks stay', async () => {
      const flowId = flowIds[3] ?? 0
      const contact = await addServiceContact(t.db, acme)
      const countOf = async () => {
        const res = await t.app.inject({ url: '/api/v1/flows?page=1&search_term=partners', headers: acme.auth })
        return res.json().data[0].contacts_count as number
      }
      const before = await countOf()
      assert.equal((await addContactTo(flowId, contact.id)).statusCode, 200)
      assert.equal(await countOf(), before + 1)

      const deleted = await t.app.inject({ method: 'DELETE', url: `/api/v1/contacts/${contact.id}`, headers: acme.auth })
      assert.equal(deleted.statusCode, 204)
      assert.equal(await countOf(), before)
      const enrollments = await rawRows<{ status: string }>(t.db, sql`select status from flow_enrollments where contact_id = ${contact.id}`)
      assert.deepEqual(enrollments.map((e) => e.status), ['removed'])
      const left = await rawRows<{ id: number }>(t.db, sql`select id from tasks where contact_id = ${contact.id}`)
      assert.equal(left.length, STEPS.length)
    })
  })
}
