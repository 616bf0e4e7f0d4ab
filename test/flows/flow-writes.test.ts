// The flow writes the workspace added to the API (docs/flows-and-tasks.md): POST /flows and
// PUT /flows/:id, with GET /flows/:id. A created flow is what `flow create` makes (owned by
// the caller, the same audit record); a change keeps the tasks of contacts already in the
// flow, and contacts added afterwards get the new steps.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { createToken } from '../../src/modules/auth/tokens.service.js'
import { systemActing } from '../../src/acting.js'
import { backends, startApp, type TestApp } from '../helpers/app.js'
import { addUser, tenant, type Tenant } from '../helpers/factories.js'
import { addContact, addFlow, STEPS } from '../helpers/flows-factories.js'
import { rawRows, sql } from '../helpers/sql.js'

const NOW = new Date('2026-03-10T15:00:00Z')
const THREE = [
  { day: 0, kind: 'email', title: 'Welcome' },
  { day: 3, kind: 'phonecall', title: 'Call' },
  { day: 10, kind: 'linkedin', title: 'Connect' },
]

for (const backend of backends()) {
  describe(`flow writes (${backend.name})`, () => {
    let t: TestApp
    let acme: Tenant
    let other: Tenant
    let member: { id: number; auth: Record<string, string> }

    async function leftBy(companyId: number) {
      return {
        flows: await rawRows<Record<string, unknown>>(t.db, sql`select * from flows where company_id = ${companyId} order by id`),
        steps: await rawRows<Record<string, unknown>>(t.db, sql`select * from flow_steps where company_id = ${companyId} order by flow_id, position`),
        tasks: await rawRows<Record<string, unknown>>(t.db, sql`select * from tasks where company_id = ${companyId} order by id`),
        audit: await rawRows<Record<string, unknown>>(t.db, sql`
          select action, actor_type, target_id, target_label, changes from audit_events
           where company_id = ${companyId} and action like 'flow.%' order by id`),
      }
    }

    const create = (payload: unknown, headers: Record<string, string> = acme.auth) =>
      t.app.inject({ method: 'POST', url: '/api/v1/flows', headers, payload: payload as object })
    const change = (id: number | string, payload: unknown, headers: Record<string, string> = acme.auth) =>
      t.app.inject({ method: 'PUT', url: `/api/v1/flows/${id}`, headers, payload: payload as object })

    before(async () => {
      t = await startApp(backend, { deps: { clock: () => NOW } })
      acme = await tenant(t.db, { name: 'Acme' })
      other = await tenant(t.db, { name: 'Other' })
      const user = await addUser(t.db, acme.companyId)
      const { token } = await createToken(t.db, systemActing(), user.id)
      member = { id: user.id, auth: { authorization: `Bearer ${token}` } }
    })
    after(() => t.close())

    test('POST /flows: 201, Location, the flow owned by the caller (a member), its steps numbered; flow.created', async () => {
      const before = await leftBy(acme.companyId)
      const res = await create({ name: 'Three steps', steps: THREE }, member.auth)
      assert.equal(res.statusCode, 201, res.body)
      const flow = res.json()
      assert.equal(res.headers.location, `/api/v1/flows/${flow.id}`)
      assert.deepEqual({ ...flow, id: 0 }, {
        id: 0, name: 'Three steps', user_id: member.id, status: 'active',
        steps: THREE.map((s, i) => ({ position: i + 1, ...s })), contacts_count: 0,
        created_at: flow.created_at, updated_at: flow.updated_at,
      })
      const after = await leftBy(acme.companyId)
      assert.equal(after.flows.length, before.flows.length + 1)
      assert.equal(after.steps.length, before.steps.length + 3)
      assert.deepEqual(after.audit.slice(before.audit.length), [{
        action: 'flow.created', actor_type: 'api_token', target_id: flow.id, target_label: 'Three steps',
        changes: { name: [null, 'Three steps'], user_id: [null, member.id], status: [null, 'active'], steps: [null, 3] },
      }])
      const read = await t.app.inject({ url: `/api/v1/flows/${flow.id}`, headers: acme.auth })
      assert.equal(read.statusCode, 200)
      assert.deepEqual(read.json(), flow)
      assert.equal((await t.app.inject({ url: `/api/v1/flows/${flow.id}`, headers: other.auth })).statusCode, 404)
    })

    test('POST /flows: the root key, a form body with steps[][…], a paused status', async () => {
      const wrapped = await create({ flow: { name: 'Wrapped', steps: [THREE[0]], status: 'paused' } })
      assert.equal(wrapped.statusCode, 201, wrapped.body)
      assert.equal(wrapped.json().status, 'paused')
      const form = await t.app.inject({
        method: 'POST', url: '/api/v1/flows',
        headers: { ...acme.auth, 'content-type': 'application/x-www-form-urlencoded' },
        payload: 'name=Form&steps[][day]=0&steps[][kind]=email&steps[][title]=Hi&steps[][day]=2&steps[][kind]=meeting&steps[][title]=Demo',
      })
      assert.equal(form.statusCode, 201, form.body)
      assert.deepEqual(form.json().steps, [
        { position: 1, day: 0, kind: 'email', title: 'Hi' },
        { position: 2, day: 2, kind: 'meeting', title: 'Demo' },
      ])
    })

    test('POST /flows refusals: 422 with details, nothing written', async () => {
      const before = await leftBy(acme.companyId)
      const cases: [unknown, string[]][] = [
        [{}, ['name', 'steps']],
        [{ name: ' ', steps: THREE }, ['name']],
        [{ name: 'No steps', steps: [] }, ['steps']],
        [{ name: 'Bad day', steps: [{ day: -1, kind: 'email', title: 'x' }] }, ['steps']],
        [{ name: 'Bad kind', steps: [{ day: 0, kind: 'fax', title: 'x' }] }, ['steps']],
        [{ name: 'Blank title', steps: [{ day: 0, kind: 'email', title: '' }] }, ['steps']],
        [{ name: 'Too many', steps: Array.from({ length: 51 }, () => THREE[0]) }, ['steps']],
        [{ name: 'Status', steps: THREE, status: 'archived' }, ['status']],
      ]
      for (const [payload, fields] of cases) {
        const res = await create(payload)
        assert.equal(res.statusCode, 422, JSON.stringify(payload))
        assert.deepEqual(Object.keys(res.json().error.details).sort(), fields, JSON.stringify(res.json().error.details))
      }
      assert.deepEqual(await leftBy(acme.companyId), before)
    })

    test('PUT /flows/:id: name and steps change; contacts already in it keep their tasks, new ones get the new steps', async () => {
      const flow = await addFlow(t.db, acme.companyId, { userId: acme.userId, name: 'Before' })
      const early = await addContact(t.db, acme.companyId, { userId: member.id })
      const enrolled = await t.app.inject({ method: 'PUT', url: `/api/v1/flows/${flow.id}/add_contact`, headers: acme.auth, payload: { contact_id: early.id } })
      assert.equal(enrolled.statusCode, 200)
      const before = await leftBy(acme.companyId)

      const res = await change(flow.id, { name: 'After', steps: THREE })
      assert.equal(res.statusCode, 200, res.body)
      const changed = res.json()
      assert.deepEqual(
        { name: changed.name, steps: changed.steps, contacts_count: changed.contacts_count, updated_at: changed.updated_at, status: changed.status },
        { name: 'After', steps: THREE.map((s, i) => ({ position: i + 1, ...s })), contacts_count: 1, updated_at: NOW.toISOString(), status: 'active' },
      )
      const after = await leftBy(acme.companyId)
      assert.deepEqual(after.tasks, before.tasks, 'the enrolled contact keeps its tasks')
      assert.deepEqual(after.audit.slice(before.audit.length), [{
        action: 'flow.changed', actor_type: 'api_token', target_id: flow.id, target_label: 'After',
        changes: { name: ['Before', 'After'], steps: [STEPS.length, 3] },
      }])

      const late = await addContact(t.db, acme.companyId, { userId: member.id })
      const added = await t.app.inject({ method: 'PUT', url: `/api/v1/flows/${flow.id}/add_contact`, headers: acme.auth, payload: { contact_id: late.id } })
      assert.equal(added.statusCode, 200)
      assert.deepEqual(added.json().tasks.map((task: { title: string; kind: string }) => [task.kind, task.title]), THREE.map((s) => [s.kind, s.title]))
      assert.deepEqual(
        before.tasks.filter((task) => task.contact_id === early.id).map((task) => task.title),
        STEPS.map((s) => s.title),
      )
    })

    test('PUT /flows/:id: only what is given changes; nothing changed records nothing; pausing refuses new contacts', async () => {
      const flow = await addFlow(t.db, acme.companyId, { userId: acme.userId, name: 'Steady' })
      const before = await leftBy(acme.companyId)
      const same = await change(flow.id, { name: 'Steady' })
      assert.equal(same.statusCode, 200)
      assert.deepEqual(same.json().steps, flow.steps)
      assert.deepEqual(await leftBy(acme.companyId), before, 'no change, no write and no audit record')

      const paused = await change(flow.id, { flow: { status: 'paused' } }, member.auth)
      assert.equal(paused.statusCode, 200)
      assert.deepEqual({ name: paused.json().name, status: paused.json().status, steps: paused.json().steps }, { name: 'Steady', status: 'paused', steps: flow.steps })
      const contact = await addContact(t.db, acme.companyId, { userId: member.id })
      const refused = await t.app.inject({ method: 'PUT', url: `/api/v1/flows/${flow.id}/add_contact`, headers: acme.auth, payload: { contact_id: contact.id } })
      assert.equal(refused.statusCode, 422)
    })

    test('PUT /flows/:id refusals: another company\'s flow 404, bad fields 422, nothing written; flows:read cannot write', async () => {
      const mine = await addFlow(t.db, acme.companyId, { userId: acme.userId })
      const theirs = await addFlow(t.db, other.companyId, { userId: other.userId })
      const before = [await leftBy(acme.companyId), await leftBy(other.companyId)]
      for (const id of [theirs.id, 999_999_999]) {
        const res = await change(id, { name: 'Taken over' })
        assert.equal(res.statusCode, 404)
        assert.equal(res.json().error.code, 'not_found')
      }
      for (const payload of [{ name: '' }, { steps: [] }, { steps: 'email' }, { status: 'gone' }]) {
        assert.equal((await change(mine.id, payload)).statusCode, 422, JSON.stringify(payload))
      }
      const reader = { authorization: `Bearer ${(await createToken(t.db, systemActing(), acme.userId, { scopes: ['flows:read'] })).token}` }
      const denied = await change(mine.id, { name: 'Nope' }, reader)
      assert.equal(denied.statusCode, 403)
      assert.deepEqual(denied.json().error.details, { scope: ['flows:write'] })
      assert.equal((await create({ name: 'Nope', steps: THREE }, reader)).statusCode, 403)
      assert.deepEqual([await leftBy(acme.companyId), await leftBy(other.companyId)], before)
    })
  })
}
