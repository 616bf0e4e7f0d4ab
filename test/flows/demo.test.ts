import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { seedFlows } from '../../src/modules/flows-api/flows-api.demo.js'
import { addUser, tenant, type Tenant } from '../helpers/factories.js'
import { backends, startApp, type TestApp } from '../helpers/app.js'
import { addContact } from '../helpers/flows-factories.js'
import { transaction } from '../../src/db/db.js'
import { rawRows, sql } from '../helpers/sql.js'

const NOW = new Date('2026-03-10T15:00:00Z')

function seeded(seed: number) {
  let a = seed
  return () => {
    a = (a * 1_103_515_245 + 12_345) % 2_147_483_648
    return a / 2_147_483_648
  }
}

for (const backend of backends()) {
  describe(`demo flows and tasks (${backend.name})`, () => {
    let t: TestApp
    let demo: Tenant
    let empty: Tenant

    before(async () => {
      t = await startApp(backend, { deps: { clock: () => NOW } })
      demo = await tenant(t.db, { timezone: 'America/Sao_Paulo' })
      const userIds = [demo.userId, (await addUser(t.db, demo.companyId)).id, (await addUser(t.db, demo.companyId)).id]
      // What the contacts seeder, which runs first, leaves behind.
      for (let i = 0; i < 40; i++) await addContact(t.db, demo.companyId, { userId: userIds[i % 3] ?? 0 })
      await transaction(t.db, (tx) => seedFlows({ db: tx, companyId: demo.companyId, userIds, now: NOW, random: seeded(1) }))
      empty = await tenant(t.db)
      await transaction(t.db, (tx) => seedFlows({ db: tx, companyId: empty.companyId, userIds: [empty.userId], now: NOW, random: seeded(2) }))
    })
    after(() => t.close())

    const get = async (url: string, auth = demo.auth) => {
      const res = await t.app.inject({ url, headers: auth })
      assert.equal(res.statusCode, 200, res.body)
      return res.json<{ data: { status: string; contacts_count: number; steps: unknown[]; name: string }[]; meta: { total_count: number } }>()
    }

    test('three flows with steps, one paused, contacts enrolled in the active ones', async () => {
      const body = await get('/api/v1/flows?page=1')
      assert.equal(body.meta.total_count, 3)
      assert.deepEqual(body.data.map((f: { status: string }) => f.status), ['active', 'active', 'paused'])
      for (const flow of body.data) assert.ok(flow.steps.length >= 3 && flow.steps.length <= 5, flow.name)
      assert.deepEqual(body.data.map((f: { contacts_count: number }) => f.contacts_count), [15, 15, 0])
      const enrollments = await rawRows<{ id: number }>(t.db, sql`select id from flow_enrollments where company_id = ${demo.companyId}`)
      assert.equal(enrollments.length, 30)
    })

    test('tasks today, overdue, future and done, plus some outside any flow; totals match the rows', async () => {
      const rows = await rawRows<{ done: boolean; done_at: Date | null; done_on: string | null; flow_id: number | null }>(t.db, sql`
        select done, done_at, done_on::text, flow_id from tasks where company_id = ${demo.companyId}`)
      for (const query of ['status=today', 'status=overdue', 'status=future', 'done=true', 'undone=true', '']) {
        const body = await get(`/api/v1/tasks?page=1&per_page=100&${query}`)
        assert.ok(body.meta.total_count > 0, query)
      }
      const all = await get('/api/v1/tasks?page=1&per_page=1')
      assert.equal(all.meta.total_count, rows.length)
      const done = rows.filter((r) => r.done)
      assert.equal((await get('/api/v1/tasks?page=1&done=true')).meta.total_count, done.length)
      assert.ok(done.every((r) => r.done_at !== null && r.done_at <= NOW && r.done_on !== null && r.done_on <= '2026-03-10'))
      const standalone = rows.filter((r) => r.flow_id === null)
      assert.equal(standalone.length, 6)
      const byDoneDate = await get('/api/v1/tasks?page=1&end_done_date=2026-03-09')
      assert.equal(byDoneDate.meta.total_count, done.filter((r) => (r.done_on ?? '') <= '2026-03-09').length)
      assert.ok(byDoneDate.meta.total_count > 0, 'tasks finished on past days')
    })

    test('without contacts: the flows only', async () => {
      const body = await get('/api/v1/flows?page=1', empty.auth)
      assert.equal(body.meta.total_count, 3)
      assert.equal((await rawRows<{ id: number }>(t.db, sql`select id from tasks where company_id = ${empty.companyId}`)).length, 0)
      assert.equal((await rawRows<{ id: number }>(t.db, sql`select id from flows where company_id = ${empty.companyId}`)).length, 3)
    })
  })
}
