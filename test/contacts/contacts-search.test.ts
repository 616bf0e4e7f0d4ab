// Contacts search and list plans that do not depend on fresh statistics (issue 10 item 2),
// and the search slots: a company the planner has not seen (5,000 contacts inserted after
// the last ANALYZE, autovacuum off for the table) is searched and listed correctly, and the
// plans run each scan of contacts exactly once: no per-row loop, whatever the estimates.
import assert from 'node:assert/strict'
import fc from 'fast-check'
import { after, before, describe, test } from 'node:test'
import pg from 'pg'
import { ApiError } from '../../src/errors.js'
import { SEARCH_CANDIDATES, SEARCH_SAMPLE, searchFor } from '../../src/modules/contacts/contacts.repository.js'
import { CONTACTS_COUNTER } from '../../src/modules/contacts/contacts.service.js'
import { SEARCH_SLOTS, SEARCH_WAIT_MS, Slots } from '../../src/modules/contacts/search-slots.js'
import { buildApp, type App } from '../../src/app.js'
import type { DatabaseHandle } from '../../src/db/client.js'
import { backends, testConfig } from '../helpers/app.js'
import { tenant, type Tenant } from '../helpers/factories.js'
import { asCompanyId } from '../../src/tenancy.js'
import { explain, nodes, statementText, type PlanNode } from '../helpers/plans.js'

const FRESH = 5000

/**
 * A lookup of one row by its primary key (company_id, id), under a LIMIT that keeps it one:
 * the page's records one id at a time (rowsByIds, src/db/paging.ts), a contact's tags and
 * fields. As many loops as there are ids, each one index probe, never a walk (a walk of the
 * company in id order may take the primary key too: its condition names no id).
 */
const pageLookup = (node: PlanNode | undefined) =>
  (node?.['Index Name']?.endsWith('_company_id_id_pk') ?? false) && /\bid = /.test(node?.['Index Cond'] ?? '')

/**
 * A probe of the trigram index for one of a rare pair's patterns (contacts.searchGram's
 * `index` way: `%xlf%` for each character x seen before `lf`), under a LIMIT that keeps it
 * one probe per pattern: as many loops as patterns, each from the index, never a walk.
 */
const patternProbe = (node: PlanNode | undefined) =>
  /\bsearch_text ~~ gram_patterns\.pattern\b/.test(`${node?.['Index Cond'] ?? ''} ${node?.['Recheck Cond'] ?? ''}`) &&
  (node?.['Node Type'] === 'Bitmap Heap Scan' || node?.['Index Name'] === 'contacts_search_trgm_idx')

const touchesContacts = (node: PlanNode) =>
  (node['Relation Name'] === 'contacts' || (node['Index Name']?.startsWith('contacts_') ?? false)) && !pageLookup(node) && !patternProbe(node)

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
  const rerun = [...nodes(plan)].filter((node) => node['Node Type'] === 'Nested Loop' && node.Plans?.[1]?.['Node Type'] === 'Limit' &&
      !(node.Plans[1].Plans ?? []).some((child) => pageLookup(child) || patternProbe(child)))
  assert.ok(rerun.length === 0,
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
          `insert into contacts (company_id, user_id, first_name, last_name, email, business, stage)
           select $1, $2, 'Bruno' || g, 'Lima', 'bruno' || g || '@initech.example', 'Initech', 'lead' from generate_series(1, ${String(FRESH)}) g
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
      // The search statements as the service runs them: no match, all 5,000 from the trigram
      // index, a term without a trigram (page 1 and a page read backwards: the gram counters'
      // statement, and with an owner the pass's), one with U+001F; each also with a stage.
      const company = asCompanyId(fresh.companyId)
      for (const [search, offset] of [['zzzq', 0], ['lima', 0], ['li', 0], ['li', 4950], ['a.b', 0], ['a\u001fb', 0]] as const) {
        const at = { limit: page.limit, offset }
        for (const filters of [{}, { userId: fresh.userId }, { stage: 'lead' as const }, { userId: fresh.userId, tagId: 1 }]) {
          const { query, params } = searchFor(company, search, filters, at)
          assertEachScanOnce(await explain(url, { sql: query.text, params }, true), `search ${JSON.stringify(search)} at ${String(offset)}, ${JSON.stringify(filters)}`)
        }
      }
      // The list statements as the service runs them (named, prepared; here with EXPLAIN).
      const deep = { sql: statementText('contacts.page'), params: [fresh.companyId, CONTACTS_COUNTER, 0, 25, 4950] }
      assertEachScanOnce(await explain(url, deep, true), 'list, deep page')
      const mine = {
        sql: statementText('contacts.pageOfUser'),
        // The company's total, so that the page is read (this bulk-made company's owner has no counter row).
        params: [fresh.companyId, CONTACTS_COUNTER, 0, page.limit, page.offset, fresh.userId],
      }
      assertEachScanOnce(await explain(url, mine, true), 'list of an owner')
      const events = { sql: statementText('events.contactPage'), params: [fresh.companyId, freshIds[0], 25, 0] }
      assertEachScanOnce(await explain(url, events, true), "a contact's events")
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

const escapeLike = (term: string) => term.replace(/[\\%_]/g, '\\$&')

for (const backend of backends()) {
  describe(`contacts search: what matches, kept up to date by every write (${backend.name})`, () => {
    let app: App
    let opened: { database: DatabaseHandle; url: string; drop: () => Promise<void> }
    let admin: pg.Client
    let owner: Tenant
    let other: number

    before(async () => {
      opened = await backend.open()
      app = await buildApp(testConfig(), { database: opened.database })
      await app.ready()
      admin = new pg.Client({ connectionString: opened.url })
      await admin.connect()
      owner = await tenant(opened.database.db, { name: 'Searched' })
      other = (await admin.query<{ id: string }>(
        `insert into users (company_id, name, email, role) values ($1, 'Bia', 'bia@searched.example', 'member') returning id`,
        [owner.companyId],
      )).rows.map((row) => Number(row.id))[0] ?? 0
      // Texts that test the rules: case, accents, LIKE's special characters, the field
      // separator inside a field, a full name across first and last name; a deleted contact.
      const people: [string, string | null, string | null, string, boolean][] = [
        ['Ana', 'Souza', 'Globex', 'ana.souza@globex.example', false],
        ['ÁLVARO', 'Núñez', null, 'Alvaro@Initech.example', true],
        ['Per%cent', null, 'Under_score Co', 'p1@x.example', false],
        ['Back\\slash', 'Q', 'Sep\u001fBiz', 'b2@x.example', true],
        ['Zé', 'Lima', 'Lima & Co', 'ze@lima.example', false],
        ['Li', 'Na', 'An', 'li@na.example', true],
        ['Xu', null, 'Globex', 'xu@q.example', false],
      ]
      for (const [i, [first, last, business, email, mine]] of people.entries()) {
        await admin.query(
          `insert into contacts (company_id, user_id, first_name, last_name, email, business) values ($1, $2, $3, $4, $5, $6)`,
          [owner.companyId, mine ? owner.userId : other, first, last, email, business],
        )
        if (i === 4) {
          await admin.query(
            `insert into contacts (company_id, user_id, first_name, last_name, email, business, deleted_at)
             values ($1, $2, 'Gone', 'Lima', 'gone@lima.example', 'Globex', now())`,
            [owner.companyId, owner.userId],
          )
        }
      }
    })
    after(async () => {
      await admin.end()
      await app.close()
      await opened.drop()
    })

    /** The contract's rule, written as plainly as SQL allows: ILIKE on each searched text. */
    async function expected(term: string, userId?: number): Promise<number[]> {
      const { rows } = await admin.query<{ id: string }>(
        `select id from contacts
          where company_id = $1 and deleted_at is null and ($3::bigint is null or user_id = $3)
            and ((first_name || ' ' || coalesce(last_name, '')) ilike $2 or coalesce(business, '') ilike $2 or email ilike $2)
          order by id`,
        [owner.companyId, `%${escapeLike(term)}%`, userId ?? null],
      )
      return rows.map((row) => Number(row.id))
    }

    async function found(term: string, userId?: number): Promise<{ ids: number[]; total: number }> {
      const query = new URLSearchParams({ page: '1', per_page: '100', search_term: term })
      if (userId !== undefined) query.set('user_id', String(userId))
      const res = await list(app, owner, query.toString())
      assert.equal(res.statusCode, 200, res.body)
      const body = res.json<{ data: { id: number }[]; meta: { total_count: number } }>()
      return { ids: body.data.map((c) => c.id), total: body.meta.total_count }
    }

    test('each term finds exactly what ILIKE on full name, business or email finds', async () => {
      const terms = ['ana', 'ANA SOUZA', 'a s', 'souza@', 'globex', 'álvaro', 'ÁLV', 'núñez', '%', 'r%c', '_', 'r_s', '\\', 'k\\s',
        '\u001f', 'sep\u001fbiz', 'z\u001fl', 'a\u001fglobex', 'lima', 'lima & co', 'li', 'na', 'an', 'x', 'q', ' ', 'co\u001fb2',
        'e@', '.example', 'zzq']
      for (const term of terms) {
        for (const userId of [undefined, owner.userId, other]) {
          const want = await expected(term, userId)
          assert.deepEqual(await found(term, userId), { ids: want, total: want.length }, `${JSON.stringify(term)} user ${String(userId)}`)
        }
      }
    })

    test('random terms, cut from the texts or made of awkward characters, agree with ILIKE', async () => {
      const texts = ['Ana Souza', 'Globex', 'ana.souza@globex.example', 'ÁLVARO Núñez', 'Per%cent', 'Under_score Co',
        'Back\\slash Q', 'Sep\u001fBiz', 'Zé Lima', 'Lima & Co', 'Li Na', 'li@na.example']
      const cut = fc.tuple(fc.constantFrom(...texts), fc.nat(), fc.integer({ min: 1, max: 6 }), fc.boolean())
        .map(([text, start, length, upper]) => {
          const part = Array.from(text).slice(start % text.length, (start % text.length) + length).join('')
          return upper ? part.toUpperCase() : part
        })
      const awkward = fc.string({ unit: fc.constantFrom('a', 'n', 'Á', 'é', '%', '_', '\\', '\u001f', ' ', '@', '.', 'x'), minLength: 1, maxLength: 4 })
      await fc.assert(
        fc.asyncProperty(fc.oneof(cut, awkward), fc.constantFrom(undefined, owner.userId), async (term, userId) => {
          const want = await expected(term, userId)
          assert.deepEqual(await found(term, userId), { ids: want, total: want.length })
        }),
        { numRuns: 150, seed: 9 },
      )
    })

    test('search_text follows every write: create, a PUT of each searched field, an owner change, a delete', async () => {
      const create = await app.inject({
        method: 'POST', url: '/api/v1/contacts', headers: owner.auth,
        payload: { first_name: 'Quentin', last_name: 'Blake', email: 'qb@drawn.example', business: 'Penguin' },
      })
      assert.equal(create.statusCode, 201)
      const id = create.json<{ id: number }>().id
      const searchText = async () =>
        (await admin.query<{ search_text: string }>('select search_text from contacts where id = $1', [id])).rows[0]?.search_text
      assert.equal(await searchText(), 'quentin blake\u001fpenguin\u001fqb@drawn.example')
      assert.deepEqual((await found('blake')).ids, [id])

      const put = (payload: Record<string, unknown>) =>
        app.inject({ method: 'PUT', url: `/api/v1/contacts/${String(id)}`, headers: owner.auth,
          payload: { first_name: 'Quentin', email: 'qb@drawn.example', business: 'Penguin', ...payload } })
      assert.equal((await put({ last_name: 'Fairweather' })).statusCode, 200)
      assert.deepEqual(await found('blake'), { ids: [], total: 0 })
      assert.deepEqual((await found('fairweather')).ids, [id])
      assert.equal((await put({ first_name: 'Roald', last_name: null })).statusCode, 200)
      assert.deepEqual((await found('quentin')).ids, [])
      assert.deepEqual((await found('roald')).ids, [id])
      assert.equal((await put({ first_name: 'Roald', business: 'Puffin' })).statusCode, 200)
      assert.deepEqual((await found('penguin')).ids, [])
      assert.deepEqual((await found('puffin')).ids, [id])
      assert.equal((await put({ first_name: 'Roald', business: 'Puffin', email: 'rd@tales.example' })).statusCode, 200)
      assert.deepEqual((await found('drawn')).ids, [])
      assert.deepEqual((await found('tales')).ids, [id])
      assert.equal(await searchText(), 'roald \u001fpuffin\u001frd@tales.example')
      assert.equal((await put({ first_name: 'Roald', business: 'Puffin', email: 'rd@tales.example', user_id: other })).statusCode, 200)
      assert.deepEqual((await found('tales', owner.userId)).ids, [])
      assert.deepEqual((await found('tales', other)).ids, [id])
      assert.equal((await app.inject({ method: 'DELETE', url: `/api/v1/contacts/${String(id)}`, headers: owner.auth })).statusCode, 204)
      assert.deepEqual(await found('tales'), { ids: [], total: 0 })
      assert.deepEqual(await found('ta'), { ids: [], total: 0 })
    })
  })

  // The sample of the company's first contacts (SEARCH_SAMPLE, in id order) decides how the
  // matches are read: seeing them, a count (by the pass or the company's index); not seeing
  // them (quiet contacts come first), candidates that overflow, then a count through the
  // trigram index (a term with a trigram) or the pass (a short one). Same answers either way.
  for (const quietFirst of [false, true]) describe(`contacts search: a term with more matches than the trigram index's candidates${quietFirst ? ', none among the sampled contacts' : ''} (${backend.name})`, () => {
    const BROAD = SEARCH_CANDIDATES + 500
    let app: App
    let opened: { database: DatabaseHandle; url: string; drop: () => Promise<void> }
    let broad: Tenant
    let ids: number[]
    let mine: number[]

    before(async () => {
      opened = await backend.open()
      app = await buildApp(testConfig(), { database: opened.database })
      await app.ready()
      broad = await tenant(opened.database.db, { name: 'Broad' })
      const admin = new pg.Client({ connectionString: opened.url })
      await admin.connect()
      try {
        const other = (await admin.query<{ id: string }>(
          `insert into users (company_id, name, email, role) values ($1, 'Other', 'other@broad.example', 'member') returning id`,
          [broad.companyId],
        )).rows[0]?.id
        if (quietFirst) {
          await admin.query(
            `insert into contacts (company_id, user_id, first_name, last_name, email)
             select $1, $2, 'Kim' || g, 'Quiet', 'kim' || g || '@calm.example' from generate_series(1, ${String(SEARCH_SAMPLE)}) g`,
            [broad.companyId, broad.userId],
          )
        }
        // Every contact matches 'broadway'; every third is the token user's; every hundredth is deleted.
        const { rows } = await admin.query<{ id: string; user_id: string; deleted: boolean }>(
          `insert into contacts (company_id, user_id, first_name, last_name, email, deleted_at)
           select $1, case when g % 3 = 0 then $2 else $3::bigint end, 'Pat' || g, 'Broadway', 'pat' || g || '@stage.example',
                  case when g % 100 = 0 then now() end
             from generate_series(1, ${String(BROAD)}) g
           returning id, user_id, deleted_at is not null as deleted`,
          [broad.companyId, broad.userId, other],
        )
        const live = rows.filter((row) => !row.deleted)
        ids = live.map((row) => Number(row.id)).sort((a, b) => a - b)
        mine = live.filter((row) => Number(row.user_id) === broad.userId).map((row) => Number(row.id)).sort((a, b) => a - b)
      } finally {
        await admin.end()
      }
      assert.ok(ids.length > SEARCH_CANDIDATES, 'more live matches than candidates')
    })
    after(async () => {
      await app.close()
      await opened.drop()
    })

    const page = async (query: string) => {
      const res = await list(app, broad, query)
      assert.equal(res.statusCode, 200, res.body)
      return res.json<{ data: { id: number; last_name: string; tags: unknown[] }[]; meta: { total_count: number; total_pages: number } }>()
    }

    test('first, middle, last and past-the-end pages, with and without an owner, for a trigram term and a short one', async () => {
      for (const term of ['broadway', 'ROADW', 'br', 'y']) {
        const total = ids.length
        const pages = Math.ceil(total / 100)
        for (const p of [1, Math.ceil(pages / 2), pages - 1, pages, pages + 1]) {
          const body = await page(`page=${String(p)}&per_page=100&search_term=${encodeURIComponent(term)}`)
          assert.deepEqual(body.data.map((c) => c.id), ids.slice((p - 1) * 100, p * 100), `${term} page ${String(p)}`)
          assert.equal(body.meta.total_count, total)
        }
        const last = Math.ceil(mine.length / 25)
        for (const p of [1, last]) {
          const body = await page(`page=${String(p)}&search_term=${encodeURIComponent(term)}&user_id=${String(broad.userId)}`)
          assert.deepEqual(body.data.map((c) => c.id), mine.slice((p - 1) * 25, p * 25), `${term} of the owner, page ${String(p)}`)
          assert.equal(body.meta.total_count, mine.length)
        }
      }
      const [first] = (await page('page=1&per_page=1&search_term=broadway')).data
      assert.ok(first)
      assert.deepEqual(first.tags, [], 'records in API shape, with their tags')
      assert.equal(first.last_name, 'Broadway')
    })
  })
}
