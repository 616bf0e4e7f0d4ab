// The task list's totals come from counters (or exact counts) and its pages from merged
// index scans: checked here against a plain filter over every row, for every combination of
// up to three filters on a random data set.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { readFileSync } from 'node:fs'
import { execute, rawRows, sql } from '../helpers/sql.js'
import { addDays } from '../../src/modules/tasks/task-dates.js'
import { TASK_KINDS } from '../../src/modules/tasks/tasks.schemas.js'
import { addUser, tenant, type Tenant } from '../helpers/factories.js'
import { backends, startApp, type TestApp } from '../helpers/app.js'
import { addContact, addFlow, addTask, completeTask } from '../helpers/flows-factories.js'

const NOW = new Date('2026-03-10T02:00:00Z')
const TODAY = '2026-03-09' // in São Paulo

type Row = {
  id: number
  kind: string
  dueDate: string // yyyy-mm-dd
  done: boolean
  doneOn: string | null
  assignedToId: number
  flowId: number | null
  contactId: number
}

function seeded(seed: number) {
  let a = seed
  return () => {
    a = (a * 1_103_515_245 + 12_345) % 2_147_483_648
    return a / 2_147_483_648
  }
}

for (const backend of backends()) {
  describe(`task totals and pages against every row (${backend.name})`, () => {
    let t: TestApp
    let acme: Tenant
    let rows: Row[]
    const filters: Record<string, [string, (r: Row) => boolean]> = {}

    before(async () => {
      t = await startApp(backend, { deps: { clock: () => NOW } })
      acme = await tenant(t.db, { timezone: 'America/Sao_Paulo' })
      const other = await tenant(t.db)
      const a = acme.companyId
      const users = [acme.userId, (await addUser(t.db, a)).id, (await addUser(t.db, a)).id]
      const contacts = []
      for (let i = 0; i < 6; i++) contacts.push((await addContact(t.db, a, { userId: users[i % 3] ?? 0 })).id)
      const flows = [(await addFlow(t.db, a, { userId: users[0] ?? 0 })).id, (await addFlow(t.db, a, { userId: users[1] ?? 0 })).id]
      const random = seeded(7)
      const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)] as T
      for (let i = 0; i < 150; i++) {
        const due = addDays('2026-02-20', Math.floor(random() * 36))
        const row = await addTask(t.db, a, pick(contacts), {
          kind: pick(TASK_KINDS),
          due,
          assignedToId: pick(users),
          ...(random() < 0.6 ? { flowId: pick(flows) } : {}),
        })
        if (random() < 0.45) {
          const at = new Date(Math.min(NOW.getTime(), Date.parse(`${due}T00:00:00Z`) + random() * 4 * 86_400_000))
          await completeTask(t.db, a, row.id, at, 'America/Sao_Paulo')
        }
      }
      // Noise in another company, which no total may include.
      const theirs = await addContact(t.db, other.companyId, { userId: other.userId })
      for (let i = 0; i < 10; i++) await addTask(t.db, other.companyId, theirs.id, { kind: 'email', due: addDays(TODAY, i - 5) })

      rows = await rawRows<Row>(t.db, sql`
        select id, kind, due_date::text as "dueDate", done, done_on::text as "doneOn",
          assigned_to_id as "assignedToId", flow_id as "flowId", contact_id as "contactId"
        from tasks where company_id = ${a}`)
      const [u, f, c] = [users[1], flows[0], contacts[2]]
      Object.assign(filters, {
        assignee: [`assigned_to_id=${u}`, (r: Row) => r.assignedToId === u],
        flow: [`flow_id=${f}`, (r: Row) => r.flowId === f],
        contact: [`contact_id=${c}`, (r: Row) => r.contactId === c],
        kind: ['kind=email', (r: Row) => r.kind === 'email'],
        done: ['done=true', (r: Row) => r.done],
        undone: ['undone=true', (r: Row) => !r.done],
        today: ['status=today', (r: Row) => !r.done && r.dueDate === TODAY],
        overdue: ['status=overdue', (r: Row) => !r.done && r.dueDate < TODAY],
        future: ['status=future', (r: Row) => !r.done && r.dueDate > TODAY],
        dueRange: ['start_due_date=2026-03-01&end_due_date=2026-03-15', (r: Row) => r.dueDate >= '2026-03-01' && r.dueDate <= '2026-03-15'],
        dueFrom: ['start_due_date=2026-03-05', (r: Row) => r.dueDate >= '2026-03-05'],
        doneRange: [
          'start_done_date=2026-02-25&end_done_date=2026-03-04',
          (r: Row) => r.doneOn !== null && r.doneOn >= '2026-02-25' && r.doneOn <= '2026-03-04',
        ],
        doneTo: ['end_done_date=2026-03-01', (r: Row) => r.doneOn !== null && r.doneOn <= '2026-03-01'],
      })
    })
    after(() => t.close())

    test('every combination of up to three filters', async () => {
      const names = Object.keys(filters)
      const combos: string[][] = [[]]
      for (const [i, x] of names.entries()) {
        combos.push([x])
        for (const [j, y] of names.entries()) {
          if (j <= i) continue
          combos.push([x, y])
          for (const z of names.slice(j + 1)) combos.push([x, y, z])
        }
      }
      const statuses = ['today', 'overdue', 'future']
      let checked = 0
      for (const combo of combos) {
        if (combo.includes('done') && combo.includes('undone')) continue
        if (combo.filter((name) => statuses.includes(name)).length > 1) continue
        const chosen = combo.map((name) => filters[name]).filter((f) => f !== undefined)
        const expected = rows
          .filter((r) => chosen.every(([, match]) => match(r)))
          .sort((x, y) => (x.dueDate === y.dueDate ? x.id - y.id : x.dueDate < y.dueDate ? -1 : 1))
          .map((r) => r.id)
        const query = chosen.map(([q]) => q).join('&')
        const res = await t.app.inject({ url: `/api/v1/tasks?page=1&per_page=100&${query}`, headers: acme.auth })
        assert.equal(res.statusCode, 200, query)
        const body = res.json()
        assert.equal(body.meta.total_count, expected.length, `total of ${query}`)
        assert.deepEqual(body.data.map((task: { id: number }) => task.id), expected.slice(0, 100), `page of ${query}`)
        checked++
      }
      assert.ok(checked > 300, `${checked} combinations`)
    })

    test('the migration that counted the tasks already there for the pair lists (0009) gives the rows the writes keep', async () => {
      const kindLists = sql`select company_id, list, key, value from counters
                             where list like 'tasks.due.k%' or list like 'tasks.open_due.k%' or list like 'tasks.kind.u%' or list like 'tasks.kind.done.u%'
                                or list like 'tasks.flow.u%' or list like 'tasks.flow.done.u%'
                             order by company_id, list, key`
      const kept = await rawRows<{ value: number }>(t.db, kindLists)
      assert.ok(kept.length > 50, `${String(kept.length)} rows`)
      // Run on today's schema, where a counter's primary key has had its slot (0 here) since 0011.
      const migration = readFileSync(new URL('../../migrations/0009_task_pair_counters.sql', import.meta.url), 'utf8')
        .replace('ON CONFLICT ("company_id", "list", "key")', 'ON CONFLICT ("company_id", "list", "key", "slot")')
      await execute(t.db, sql.raw(migration))
      assert.deepEqual(await rawRows(t.db, kindLists), kept)
      // And from nothing, as on a database that had tasks before the upgrade.
      await execute(t.db, sql`delete from counters where list like 'tasks.due.k%' or list like 'tasks.open_due.k%' or list like 'tasks.kind.u%'
                               or list like 'tasks.kind.done.u%' or list like 'tasks.flow.u%' or list like 'tasks.flow.done.u%'`)
      await execute(t.db, sql.raw(migration))
      assert.deepEqual(await rawRows(t.db, kindLists), kept.filter((row) => row.value !== 0))
    })

    test('every page of every combination of up to two filters joins up to the whole list', async () => {
      // Pages in the second half are read backwards from the total: each must still be the
      // right slice, on every index the statements choose between.
      const names = Object.keys(filters)
      const combos: string[][] = [[]]
      for (const [i, x] of names.entries()) {
        combos.push([x])
        for (const y of names.slice(i + 1)) combos.push([x, y])
      }
      const statuses = ['today', 'overdue', 'future']
      let checked = 0
      for (const combo of combos) {
        if (combo.includes('done') && combo.includes('undone')) continue
        if (combo.filter((name) => statuses.includes(name)).length > 1) continue
        const chosen = combo.map((name) => filters[name]).filter((f) => f !== undefined)
        const expected = rows
          .filter((r) => chosen.every(([, match]) => match(r)))
          .sort((x, y) => (x.dueDate === y.dueDate ? x.id - y.id : x.dueDate < y.dueDate ? -1 : 1))
          .map((r) => r.id)
        const query = chosen.map(([q]) => q).join('&')
        const perPage = 7
        const pages = Math.max(1, Math.ceil(expected.length / perPage))
        const got: number[] = []
        for (let page = 1; page <= pages + 1; page++) {
          const res = await t.app.inject({ url: `/api/v1/tasks?page=${page}&per_page=${perPage}&${query}`, headers: acme.auth })
          const body = res.json()
          assert.equal(body.meta.total_count, expected.length, `total of ${query}, page ${page}`)
          got.push(...body.data.map((task: { id: number }) => task.id))
        }
        assert.deepEqual(got, expected, `pages of ${query}`)
        if (pages > 2) checked++
      }
      assert.ok(checked > 30, `${checked} combinations with pages read backwards`)
    })

    test('a deeper page of the merged open and done tasks', async () => {
      const expected = [...rows]
        .sort((x, y) => (x.dueDate === y.dueDate ? x.id - y.id : x.dueDate < y.dueDate ? -1 : 1))
        .map((r) => r.id)
      const res = await t.app.inject({ url: '/api/v1/tasks?page=4&per_page=30', headers: acme.auth })
      assert.deepEqual(res.json().data.map((task: { id: number }) => task.id), expected.slice(90, 120))
      assert.equal(res.json().meta.total_count, 150)
    })
  })
}
