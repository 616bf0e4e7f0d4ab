// Contacts search and list plans that do not depend on fresh statistics (issue 10 item 2),
// and the search slots: a company the planner has not seen (5,000 contacts inserted after
// the last ANALYZE, autovacuum off for the table) is searched and listed correctly, and the
// plans run each scan of contacts exactly once: no per-row loop, whatever the estimates.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import pg from 'pg'
import { ApiError } from '../../src/errors.js'
import { definedQueries } from '../../src/db/query.js'
import { searchStatement } from '../../src/modules/contacts/contacts.repository.js'
import { CONTACTS_COUNTER } from '../../src/modules/contacts/contacts.service.js'
import { SEARCH_SLOTS, SEARCH_WAIT_MS, Slots } from '../../src/modules/contacts/search-slots.js'
import { buildApp, type App } from '../../src/app.js'
import type { DatabaseHandle } from '../../src/db/client.js'
import { backends, testConfig } from '../helpers/app.js'
import { tenant, type Tenant } from '../helpers/factories.js'

const FRESH = 5000

interface PlanNode {
  'Node Type': string
  'Relation Name'?: string
  'Index Name'?: string
  'Plan Rows': number
  'Actual Loops'?: number
  'Actual Rows'?: number
  Plans?: PlanNode[]
}

function* nodes(plan: PlanNode): Generator<PlanNode> {
  yield plan
  for (const child of plan.Plans ?? []) yield* nodes(child)
}

const touchesContacts = (node: PlanNode) =>
  node['Relation Name'] === 'contacts' || (node['Index Name']?.startsWith('contacts_') ?? false)

async function explain(url: string, query: { sql: string; params: unknown[] }, analyze: boolean): Promise<PlanNode> {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    const options = analyze ? 'ANALYZE, FORMAT JSON' : 'FORMAT JSON'
    const { rows } = await client.query<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>(`EXPLAIN (${options}) ${query.sql}`, query.params)
    const plan = rows[0]?.['QUERY PLAN'][0].Plan
    if (!plan) throw new Error('no plan')
    return plan
  } finally {
    await client.end()
  }
}

/** Every scan of contacts in the executed plan ran once (a per-row loop shows loops = rows). */
function assertEachScanOnce(plan: PlanNode, what: string) {
  const scans = [...nodes(plan)].filter(touchesContacts)
  assert.ok(scans.length > 0, `${what}: the plan reads contacts`)
  // At most once each (a CASE branch not taken, such as the list's backward read on a page
  // of the first half, runs 0 times), and something did run.
  for (const scan of scans) {
    assert.ok((scan['Actual Loops'] ?? 0) <= 1, `${what}: ${scan['Node Type']} on ${scan['Index Name'] ?? 'contacts'} ran ${String(scan['Actual Loops'])} times`)
  }
  assert.ok(scans.some((scan) => scan['Actual Loops'] === 1), `${what}: a scan of contacts ran`)
  assert.ok(![...nodes(plan)].some((node) => node['Node Type'] === 'Nested Loop' && node.Plans?.[1]?.['Node Type'] === 'Limit'),
    `${what}: no nested loop re-running a LIMIT subquery`)
}

const list = (app: App, who: Tenant, query: string) => app.inject({ url: `/api/v1/contacts?${query}`, headers: who.auth })

for (const backend of backends()) {
  describe(`contacts search and list on a company the planner has not seen (${backend.name})`, () => {
    let app: App
    let opened: { database: DatabaseHandle; url: string; drop: () => Promise<void> }
    let database: DatabaseHandle
    let url: string
    let fresh: Tenant
    let freshIds: number[]

    before(async () => {
      opened = await backend.open()
      database = opened.database
      url = opened.url
      app = await buildApp(testConfig(), { database })
      await app.ready()
      const db = database.db
      const admin = new pg.Client({ connectionString: url })
      await admin.connect()
      try {
        // A known company, analysed; the table's statistics then know nothing of the next one.
        const known = await tenant(db, { name: 'Known' })
        await admin.query(
          `insert into contacts (company_id, user_id, first_name, last_name, email, business)
           select $1, $2, 'Ana' || g, 'Souza', 'ana' || g || '@globex.example', 'Globex' from generate_series(1, 2000) g`,
          [known.companyId, known.userId],
        )
        await admin.query('alter table contacts set (autovacuum_enabled = false)')
        await admin.query('analyze contacts')
        fresh = await tenant(db, { name: 'Fresh' })
        const inserted = await admin.query<{ id: string }>(
          `insert into contacts (company_id, user_id, first_name, last_name, email, business)
           select $1, $2, 'Bruno' || g, 'Lima', 'bruno' || g || '@initech.example', 'Initech' from generate_series(1, ${String(FRESH)}) g
           returning id`,
          [fresh.companyId, fresh.userId],
        )
        freshIds = inserted.rows.map((row) => Number(row.id)).sort((a, b) => a - b)
        await admin.query(`insert into counters (company_id, list, key, value) values ($1, 'contacts', 0, ${String(FRESH)})`, [fresh.companyId])
      } finally {
        await admin.end()
      }
    })
    after(async () => {
      await app.close()
      await opened.drop()
    })

    test('the setup is what the issue describes: the planner expects a handful of rows for the fresh company', async () => {
      const plan = await explain(url, { sql: 'select id from contacts where company_id = $1', params: [fresh.companyId] }, false)
      assert.ok(plan['Plan Rows'] < FRESH / 10, `estimated ${String(plan['Plan Rows'])} rows for ${String(FRESH)}`)
    })

    test('a search with no match, a broad one and a deep page answer correctly', async () => {
      const none = await list(app, fresh, 'page=1&search_term=zzzq')
      assert.equal(none.statusCode, 200)
      assert.deepEqual(none.json().data, [])
      assert.equal(none.json().meta.total_count, 0)

      const broad = await list(app, fresh, 'page=3&per_page=100&search_term=lima')
      assert.equal(broad.statusCode, 200)
      assert.deepEqual(broad.json().data.map((c: { id: number }) => c.id), freshIds.slice(200, 300))
      assert.deepEqual(broad.json().meta, { page: 3, per_page: 100, total_count: FRESH, total_pages: FRESH / 100 })

      const one = await list(app, fresh, 'page=1&search_term=bruno4321%40')
      assert.deepEqual(one.json().data.map((c: { email: string }) => c.email), ['bruno4321@initech.example'])
      assert.equal(one.json().meta.total_count, 1)

      const beyond = await list(app, fresh, 'page=60&per_page=100&search_term=lima')
      assert.deepEqual(beyond.json().data, [])
      assert.equal(beyond.json().meta.total_count, FRESH, 'the total of a page past the end')

      const deep = await list(app, fresh, 'page=199&per_page=25')
      assert.deepEqual(deep.json().data.map((c: { id: number }) => c.id), freshIds.slice(4950, 4975))
    })

    test('EXPLAIN ANALYZE: every scan of contacts runs once, in the search and in the list', async () => {
      const page = { limit: 25, offset: 0 }
      for (const search of ['zzzq', 'lima', 'li']) {
        const query = searchStatement(database.db, fresh.companyId, { search }, page).toSQL()
        assertEachScanOnce(await explain(url, query, true), `search ${search}`)
      }
      // The list statements as the service runs them (named, prepared; here with EXPLAIN).
      const statement = (name: string) => {
        const found = definedQueries().find((q) => q.name === name)
        if (!found) throw new Error(`no statement ${name}`)
        return found.text
      }
      const deep = { sql: statement('contacts.page'), params: [fresh.companyId, CONTACTS_COUNTER, 0, 25, 4950] }
      assertEachScanOnce(await explain(url, deep, true), 'list, deep page')
      const mine = {
        sql: statement('contacts.pageOfUser'),
        // The company's total, so that the page is read (this bulk-made company's owner has no counter row).
        params: [fresh.companyId, CONTACTS_COUNTER, 0, page.limit, page.offset, fresh.userId],
      }
      assertEachScanOnce(await explain(url, mine, true), 'list of an owner')
    })

    test(`the search slots: at most ${String(SEARCH_SLOTS)} searches at once; one more waits, then 503 with Retry-After`, async () => {
      // Searches that cannot finish: the table is locked until the fourth has given up.
      const locker = new pg.Client({ connectionString: url })
      await locker.connect()
      try {
        await locker.query('begin')
        await locker.query('lock table contacts in access exclusive mode')
        const searches = Array.from({ length: SEARCH_SLOTS + 1 }, () => list(app, fresh, 'page=1&search_term=lima'))
        await new Promise((resolve) => setTimeout(resolve, SEARCH_WAIT_MS + 500))
        await locker.query('commit')
        const answers = await Promise.all(searches)
        const busy = answers.filter((res) => res.statusCode === 503)
        assert.deepEqual(answers.map((res) => res.statusCode).sort(), [...Array<number>(SEARCH_SLOTS).fill(200), 503])
        const [refused] = busy
        assert.ok(refused)
        assert.equal(refused.json().error.message, 'Service unavailable')
        assert.equal(refused.json().error.request_id, refused.headers['x-request-id'])
        assert.ok(Number(refused.headers['retry-after']) >= 1)
      } finally {
        await locker.end()
      }
      assert.equal((await list(app, fresh, 'page=1&search_term=lima')).statusCode, 200, 'the slots are free again')
    })
  })
}

describe('search slots', () => {
  test(`at most ${String(SEARCH_SLOTS)} at once; the next waits for a free slot, and gives up after the wait with a 503`, async () => {
    const slots = new Slots(2, 200)
    const releases: (() => void)[] = []
    const hold = () => slots.run(() => new Promise<string>((resolve) => releases.push(() => { resolve('done') })))
    const first = hold()
    const second = hold()
    const third = hold()
    await new Promise((resolve) => setTimeout(resolve, 20))
    assert.equal(releases.length, 2, 'two run, the third waits')
    releases[0]?.()
    assert.equal(await first, 'done')
    await new Promise((resolve) => setTimeout(resolve, 20))
    assert.equal(releases.length, 3, 'the freed slot went to the one waiting')
    const fourth = hold()
    const started = Date.now()
    await assert.rejects(fourth, (err) => err instanceof ApiError && err.statusCode === 503)
    assert.ok(Date.now() - started >= 150, 'gave up after the wait')
    releases[1]?.()
    releases[2]?.()
    assert.deepEqual(await Promise.all([second, third]), ['done', 'done'])
    assert.equal(releases.length, 3, 'the one that gave up never ran')
  })
})
