// The contacts list's stage and tag filters (additions to the reference: docs/contacts.md),
// alone, together, with the owner and with a search; and the counters the triggers of
// migrations/0024_contact_list_filters.sql keep for them and for 1–2 character searches,
// which must equal a recount after every kind of write, before and after the fold.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { foldSearchChanges, searchFor } from '../../src/modules/contacts/contacts.repository.js'
import { STAGES } from '../../src/modules/contacts/contacts.schemas.js'
import { asCompanyId } from '../../src/tenancy.js'
import { buildApp, type App } from '../../src/app.js'
import { transaction, type Db } from '../../src/db/db.js'
import { backends, startApp, testConfig, type TestApp } from '../helpers/app.js'
import { addContact, addTag } from '../helpers/contacts-factories.js'
import { addUser, tenant, type Tenant } from '../helpers/factories.js'
import { explain, nodes } from '../helpers/plans.js'
import { rawRows, sql, type Sql } from '../helpers/sql.js'

/** Contacts of the big company: more than GRAM_WALK_ROWS, so that a rare term is not walked. */
const BIG = 25_000

interface Listed {
  data: { id: number; stage: string | null; user_id: number; tags: { id: number }[] }[]
  meta: { total_count: number; total_pages: number }
}

for (const backend of backends()) {
  describe(`contacts list: stage and tag filters (${backend.name})`, () => {
    let t: TestApp
    let acme: Tenant
    let other: Tenant
    let memberId: number
    let hot: number
    let cold: number
    let theirTag: number
    /** Acme's contacts as created: id, owner, stage, tags. */
    const made: { id: number; userId: number; stage: string | null; tags: number[]; name: string }[] = []

    before(async () => {
      t = await startApp(backend)
      acme = await tenant(t.db, { name: 'Acme' })
      other = await tenant(t.db, { name: 'Other' })
      memberId = (await addUser(t.db, acme.companyId)).id
      hot = (await addTag(t.db, acme, { name: 'Hot' })).id
      cold = (await addTag(t.db, acme, { name: 'Cold' })).id
      theirTag = (await addTag(t.db, other, { name: 'Hot' })).id
      const names = ['Ana Souza', 'Bruno Lima', 'Carla Mendes', 'Diego Anaya', 'Elisa Rocha', 'Fábio Nunes', 'Gil Santos', 'Hana Kim',
        'Ivo Lima', 'Jana Alves', 'Kai Anders', 'Lia Souza']
      for (const [i, name] of names.entries()) {
        const [first, last] = name.split(' ')
        const userId = i % 3 === 0 ? memberId : acme.userId
        const stage = i % 4 === 3 ? null : (['lead', 'mql', 'lead'] as const)[i % 4] ?? null
        const tags = i % 2 === 0 ? [hot] : i % 5 === 0 ? [hot, cold] : []
        const contact = await addContact(t.db, { companyId: acme.companyId, userId }, {
          first_name: first ?? name, last_name: last ?? null, email: `${name.replace(' ', '.').toLowerCase()}@acme.example`,
          ...(stage ? { stage } : {}), tags,
        })
        made.push({ id: contact.id, userId, stage, tags, name })
      }
      await addContact(t.db, other, { first_name: 'Ana', email: 'ana@other.example', stage: 'lead', tags: [theirTag] })
    })
    after(() => t.close())

    const list = (query: string, who = acme) => t.app.inject({ url: `/api/v1/contacts?${query}`, headers: who.auth })
    async function listed(query: string): Promise<{ ids: number[]; total: number }> {
      const res = await list(query)
      assert.equal(res.statusCode, 200, `${query}: ${res.body}`)
      const body = res.json<Listed>()
      return { ids: body.data.map((c) => c.id), total: body.meta.total_count }
    }
    const expect = (keep: (c: (typeof made)[number]) => boolean) => {
      const ids = made.filter(keep).map((c) => c.id)
      return { ids, total: ids.length }
    }

    test('stage, tag_id, and every combination with user_id and a search term, as AND', async () => {
      assert.deepEqual(await listed('page=1&stage=lead'), expect((c) => c.stage === 'lead'))
      assert.deepEqual(await listed('page=1&stage=client'), { ids: [], total: 0 })
      assert.deepEqual(await listed(`page=1&tag_id=${String(hot)}`), expect((c) => c.tags.includes(hot)))
      assert.deepEqual(await listed(`page=1&tag_id=${String(cold)}`), expect((c) => c.tags.includes(cold)))
      assert.deepEqual(await listed(`page=1&stage=lead&user_id=${String(memberId)}`), expect((c) => c.stage === 'lead' && c.userId === memberId))
      assert.deepEqual(await listed(`page=1&tag_id=${String(hot)}&user_id=${String(acme.userId)}`),
        expect((c) => c.tags.includes(hot) && c.userId === acme.userId))
      assert.deepEqual(await listed(`page=1&tag_id=${String(hot)}&stage=mql`), expect((c) => c.tags.includes(hot) && c.stage === 'mql'))
      assert.deepEqual(await listed(`page=1&tag_id=${String(hot)}&stage=lead&user_id=${String(memberId)}`),
        expect((c) => c.tags.includes(hot) && c.stage === 'lead' && c.userId === memberId))
      // With a search: a term with a trigram, one of two characters, one without a trigram.
      for (const term of ['souza', 'an', 'a', 'a.s']) {
        const matches = (c: (typeof made)[number]) =>
          `${c.name}\u001f${c.name.replace(' ', '.')}@acme.example`.toLowerCase().includes(term)
        assert.deepEqual(await listed(`page=1&search_term=${term}&stage=lead`), expect((c) => matches(c) && c.stage === 'lead'), term)
        assert.deepEqual(await listed(`page=1&search_term=${term}&tag_id=${String(hot)}`), expect((c) => matches(c) && c.tags.includes(hot)), term)
        assert.deepEqual(await listed(`page=1&search_term=${term}&tag_id=${String(hot)}&stage=lead&user_id=${String(acme.userId)}`),
          expect((c) => matches(c) && c.tags.includes(hot) && c.stage === 'lead' && c.userId === acme.userId), term)
      }
    })

    test('pages of a filter: the first, the last (read backwards), past the end; the Link header keeps the filters', async () => {
      const all = expect((c) => c.tags.includes(hot))
      const first = await list(`page=1&per_page=2&tag_id=${String(hot)}&stage=lead`)
      const both = expect((c) => c.tags.includes(hot) && c.stage === 'lead')
      assert.deepEqual(first.json<Listed>().data.map((c) => c.id), both.ids.slice(0, 2))
      assert.match(String(first.headers.link), new RegExp(`page=2&per_page=2&tag_id=${String(hot)}&stage=lead>; rel="next"`))
      const pages = Math.ceil(all.total / 2)
      const last = await listed(`page=${String(pages)}&per_page=2&tag_id=${String(hot)}`)
      assert.deepEqual(last, { ids: all.ids.slice((pages - 1) * 2), total: all.total })
      assert.deepEqual(await listed(`page=${String(pages + 1)}&per_page=2&tag_id=${String(hot)}`), { ids: [], total: all.total })
      const stagePages = Math.ceil(expect((c) => c.stage === 'lead').total / 2)
      assert.deepEqual(await listed(`page=${String(stagePages)}&per_page=2&stage=lead`),
        { ids: expect((c) => c.stage === 'lead').ids.slice((stagePages - 1) * 2), total: expect((c) => c.stage === 'lead').total })
    })

    test("another company's tag, or none, gives an empty list; bad values are 422; empty ones count as not given", async () => {
      assert.deepEqual(await listed(`page=1&tag_id=${String(theirTag)}`), { ids: [], total: 0 })
      assert.deepEqual(await listed('page=1&tag_id=987654321'), { ids: [], total: 0 })
      assert.deepEqual(await listed(`page=1&tag_id=${String(theirTag)}&search_term=an`), { ids: [], total: 0 })
      for (const bad of ['stage=hot', 'stage=LEAD', 'tag_id=abc', 'tag_id=0', 'tag_id=-1', 'tag_id=1.5', 'tag_id=9007199254740992']) {
        const res = await list(`page=1&${bad}`)
        assert.equal(res.statusCode, 422, bad)
        assert.equal(res.json().error.code, 'validation_failed', bad)
        assert.ok(Object.keys(res.json().error.details).some((name) => ['stage', 'tag_id'].includes(name)), bad)
      }
      assert.deepEqual(await listed('page=1&stage=&tag_id='), expect(() => true))
      const walk = await list('updated_since=2020-01-01T00:00:00Z&stage=lead')
      assert.equal(walk.statusCode, 422)
      assert.ok(walk.json().error.details.stage)
    })

    test('the export of a view keeps its stage and tag (GET /contacts/export), and its audit record says so', async () => {
      const res = await t.app.inject({ url: `/api/v1/contacts/export?stage=lead&tag_id=${String(hot)}`, headers: acme.auth })
      assert.equal(res.statusCode, 200, res.body)
      const exported = res.body.split('\r\n').slice(1).filter((line) => line !== '').map((line) => Number(line.split(',')[0]))
      assert.deepEqual(exported, expect((c) => c.stage === 'lead' && c.tags.includes(hot)).ids)
      const [audit] = await rawRows<{ changes: Record<string, unknown> }>(t.db, sql`
        select changes from audit_events where company_id = ${acme.companyId} and action = 'contacts.exported' order by id desc limit 1`)
      assert.deepEqual(audit?.changes, { user_id: [null, null], search_term: [null, null], stage: [null, 'lead'], tag_id: [null, hot] })
    })

    /** Every counter the triggers keep, for Acme, as stored and as recounted from the rows. */
    async function counters() {
      const stored = await rawRows<{ list: string; key: number; value: number }>(t.db, sql`
        select list, key, sum(value)::int as value from counters
         where company_id = ${acme.companyId} and (list in ('contacts_by_stage', 'contacts_by_user_stage', 'contacts_by_tag') or list like 'contacts.gram:%' or list like 'contacts.user_gram:%' or list like 'contacts.stage_gram:%')
         group by list, key having sum(value) <> 0 order by list, key`)
      const recounted = await rawRows<{ list: string; key: number; value: number }>(t.db, sql`
        select list, key, value from (
          select 'contacts_by_stage' as list, (array_position(enum_range(null::contact_stage), stage) - 1)::bigint as key, count(*)::int as value
            from contacts where company_id = ${acme.companyId} and deleted_at is null and stage is not null group by 2
          union all
          select 'contacts_by_user_stage', user_id * 8 + array_position(enum_range(null::contact_stage), stage) - 1, count(*)::int
            from contacts where company_id = ${acme.companyId} and deleted_at is null and stage is not null group by 2
          union all
          select 'contacts_by_tag', ct.tag_id, count(*)::int from contact_tags ct join contacts c on c.company_id = ct.company_id and c.id = ct.contact_id
           where ct.company_id = ${acme.companyId} and c.deleted_at is null group by 2
          union all
          select 'contacts.gram:' || g.tail, g.head, count(distinct c.id)::int from contacts c, contact_search_grams(c.search_text) g
           where c.company_id = ${acme.companyId} and c.deleted_at is null group by g.tail, g.head
          union all
          select 'contacts.user_gram:' || g.tail, c.user_id * 1114112 + g.head, count(distinct c.id)::int from contacts c, contact_search_grams(c.search_text) g
           where c.company_id = ${acme.companyId} and c.deleted_at is null group by g.tail, c.user_id, g.head
          union all
          select 'contacts.stage_gram:' || g.tail, (array_position(enum_range(null::contact_stage), c.stage) - 1) * 1114112 + g.head, count(distinct c.id)::int
            from contacts c, contact_search_grams(c.search_text) g
           where c.company_id = ${acme.companyId} and c.deleted_at is null and c.stage is not null group by g.tail, c.stage, g.head) r
         order by list, key`)
      return { stored, recounted }
    }

    test('the counters follow every write: stage, owner, tags, name, deletion, a batch, a tag deleted; the fold leaves the totals', async () => {
      const [a, b, c] = made
      assert.ok(a && b && c)
      const put = (id: number, payload: object) =>
        t.app.inject({ method: 'PUT', url: `/api/v1/contacts/${String(id)}`, headers: acme.auth, payload })
      assert.equal((await put(a.id, { first_name: 'Zoë', email: 'zoe@acme.example', business: 'Qx', stage: 'client', user_id: memberId, tags: [cold] })).statusCode, 200)
      assert.equal((await put(b.id, { first_name: 'Bruno', email: 'bruno.lima@acme.example', business: null, stage: null })).statusCode, 200)
      assert.equal((await t.app.inject({ method: 'DELETE', url: `/api/v1/contacts/${String(c.id)}`, headers: acme.auth })).statusCode, 204)
      const batch = await t.app.inject({
        method: 'POST', url: '/api/v1/contacts/batch', headers: acme.auth,
        payload: { contacts: [
          { first_name: 'Nova', email: 'nova@acme.example', stage: 'sql', tags: [hot] },
          { first_name: 'Hana', email: 'hana.kim@acme.example', stage: 'lost', tags: [] },
        ] },
      })
      assert.equal(batch.statusCode, 200, batch.body)
      // The contacts' own write statements list what they write (migrations/0028): a PUT that
      // changes the owner and the business but not the stage, a batch that changes a known
      // contact's stage and name and creates one that a later item of the same batch changes.
      const [, , , d, e] = made
      assert.ok(d && e)
      const moved = await put(d.id, { first_name: 'Diego', last_name: 'Anaya', email: 'diego.anaya@acme.example', business: 'Acme', user_id: d.userId === memberId ? acme.userId : memberId })
      assert.equal(moved.statusCode, 200, moved.body)
      const mixed = await t.app.inject({
        method: 'POST', url: '/api/v1/contacts/batch', headers: acme.auth,
        payload: { contacts: [
          { first_name: 'Elisa', last_name: 'Rocha-Dias', email: 'elisa.rocha@acme.example', stage: 'opportunity' },
          { first_name: 'Otto', email: 'otto@acme.example', stage: 'lead' },
          { first_name: 'Otávio', email: 'otto@acme.example', stage: 'mql' },
        ] },
      })
      assert.equal(mixed.statusCode, 200, mixed.body)
      let now = await counters()
      const notGrams = (row: { list: string }) => !/^contacts\.(user_|stage_)?gram:/.test(row.list)
      assert.deepEqual(now.stored.filter(notGrams), now.recounted.filter(notGrams), 'stage, owner and tag counters')
      // Grams: the counters lag behind until folded; a search adds what waits, so its totals are exact now.
      // Of the company, of each owner and at each stage (their own counters): by ILIKE's rule.
      const views = [
        { query: '', rows: sql`true` },
        ...[acme.userId, memberId].map((id) => ({ query: `&user_id=${String(id)}`, rows: sql`user_id = ${id}` })),
        ...['client', 'lead', 'sql', 'lost'].map((stage) => ({ query: `&stage=${stage}`, rows: sql`stage = ${stage}::contact_stage` })),
      ]
      for (const term of ['zo', 'ë', 'qx', 'an', 'a', 'lf', '@', 'no']) {
        for (const view of views) {
          const want = (await rawRows<{ n: number; ids: number[] }>(t.db, sql`
            select count(*)::int as n, coalesce(array_agg(id::int order by id), '{}') as ids from contacts
             where company_id = ${acme.companyId} and deleted_at is null and ${view.rows} and search_text like ${`%${term}%`}`))[0]
          assert.deepEqual(await listed(`page=1&per_page=100&search_term=${encodeURIComponent(term)}${view.query}`), { ids: want?.ids, total: want?.n }, `${term}${view.query}`)
        }
      }
      assert.equal((await t.app.inject({ method: 'DELETE', url: `/api/v1/tags/${String(hot)}`, headers: acme.auth })).statusCode, 204)
      while (await foldSearchChanges(t.db, asCompanyId(acme.companyId), 5) > 0) { /* a few at a time */ }
      const waiting = await rawRows<{ n: number }>(t.db, sql`select count(*)::int as n from contact_search_changes where company_id = ${acme.companyId}`)
      assert.equal(waiting[0]?.n, 0)
      now = await counters()
      assert.deepEqual(now.stored, now.recounted, 'every counter, grams folded')
      assert.deepEqual(await listed(`page=1&tag_id=${String(hot)}`), { ids: [], total: 0 })
      assert.ok(STAGES.includes('client'))
      assert.deepEqual((await listed('page=1&stage=client')).ids, [a.id])
      assert.equal((await listed('page=1&search_term=zo')).total, 1)
    })
  })

  describe(`the search fold worker (${backend.name})`, () => {
    let t: TestApp
    before(async () => {
      t = await startApp(backend, { deps: { searchFold: { pollIntervalMs: 20, batch: 3 } } })
    })
    after(() => t.close())

    test('folds every change, a few at a time, into the counters; the totals stay the same throughout', async () => {
      const acme = await tenant(t.db, { name: 'Folded' })
      for (let i = 0; i < 10; i++) await addContact(t.db, acme, { first_name: `Ana${String(i)}`, email: `ana${String(i)}@fold.example` })
      const total = async (term: string) =>
        (await t.app.inject({ url: `/api/v1/contacts?page=1&search_term=${term}`, headers: acme.auth })).json<Listed>().meta.total_count
      const waiting = async () => (await rawRows<{ n: number }>(t.db, sql`
        select count(*)::int as n from contact_search_changes where company_id = ${acme.companyId}`))[0]?.n ?? 0
      assert.equal(await total('an'), 10)
      for (let tries = 0; (await waiting()) > 0; tries++) {
        assert.ok(tries < 200, 'the worker folds the changes')
        await new Promise((resolve) => setTimeout(resolve, 20))
      }
      assert.equal(await total('an'), 10)
      assert.equal(await total('f'), 10)
      assert.equal(await total('zq'), 0)
      const [gram] = await rawRows<{ value: number }>(t.db, sql`
        select sum(value)::int as value from counters where company_id = ${acme.companyId} and list = 'contacts.gram:n' and key = ${'a'.codePointAt(0) ?? 0}`)
      assert.equal(gram?.value, 10)
    })
  })

  // A company big enough that a rare 1–2 character term is not walked in id order (more than
  // GRAM_WALK_ROWS contacts per match): its matches come from the trigram index (two ASCII
  // letters or digits) or from one pass (any other term); both before the fold (the changes
  // waiting) and after (the counters).
  describe(`1–2 character searches, every way, in a company of ${String(BIG)} contacts (${backend.name})`, () => {
    let t: { app: App; db: Db; url: string }
    let drop: () => Promise<void>
    let acme: Tenant
    before(async () => {
      const opened = await backend.open()
      drop = opened.drop
      const app = await buildApp(testConfig(), { database: opened.database })
      await app.ready()
      t = { app, db: opened.database.db, url: opened.url }
      acme = await tenant(t.db, { name: 'Big' })
      // One transaction without the service's 3 s statement timeout, the rows inserted a fifth at
      // a time: 25,000 contacts and their triggers in one statement outlast the driver's read
      // timeout on a loaded machine.
      await transaction(t.db, async (tx) => {
        await tx.query('set local statement_timeout = 0')
        for (let from = 1; from <= BIG; from += BIG / 5) {
          await rawRows(tx, sql`
          insert into contacts (company_id, user_id, first_name, last_name, email, business, deleted_at)
          select ${acme.companyId}, ${acme.userId}, (array['Ana', 'Bruno', 'Carla', 'Dora'])[1 + g % 4], 'Silva', 'p' || g || '@mail.example',
                 case g when 3 then 'Wolf Labs' when 7777 then 'Søren & Co' when 19999 then 'Elf.Q. Ltd' when 24000 then 'Golf' end,
                 case when g = 24000 then now() end
            from generate_series(${from}::int, ${from + BIG / 5 - 1}::int) g`)
        }
        await rawRows(tx, sql`insert into counters (company_id, list, key, value)
                                values (${acme.companyId}, 'contacts', 0, ${BIG - 1}), (${acme.companyId}, 'contacts_by_user', ${acme.userId}, ${BIG - 1})`)
        // A third of them at another stage, so that a stage's search counts some of the company.
        await rawRows(tx, sql`update contacts set stage = 'client' where company_id = ${acme.companyId} and id % 3 = 0`)
      })
    })
    after(async () => {
      await t.app.close()
      await drop()
    })

    const ilike = async (term: string, rows: Sql) => (await rawRows<{ id: number }>(t.db, sql`
      select id from contacts where company_id = ${acme.companyId} and deleted_at is null and ${rows}
         and ((first_name || ' ' || coalesce(last_name, '')) ilike ${`%${term}%`} or coalesce(business, '') ilike ${`%${term}%`} or email ilike ${`%${term}%`})
       order by id`)).map((row) => row.id)

    async function agree(when: string) {
      // The company's, its owner's and each stage's counters and ways.
      const views = [
        { query: '', rows: sql`true` },
        { query: `&user_id=${String(acme.userId)}`, rows: sql`user_id = ${acme.userId}` },
        { query: '&stage=client', rows: sql`stage = 'client'` },
        { query: '&stage=lead', rows: sql`stage = 'lead'` },
      ]
      for (const term of ['an', 'AN', 'lf', 'LF', 'ø', 'Q.', 'f.', 'zq', 'x', '7']) {
        for (const view of views) {
          const want = await ilike(term, view.rows)
          for (const [page, perPage] of [[1, 25], [2, 3], [Math.max(1, Math.ceil(want.length / 100)), 100]] as const) {
            const res = await t.app.inject({ url: `/api/v1/contacts?page=${String(page)}&per_page=${String(perPage)}&search_term=${encodeURIComponent(term)}${view.query}`, headers: acme.auth })
            assert.equal(res.statusCode, 200, res.body)
            const body = res.json<Listed>()
            assert.equal(body.meta.total_count, want.length, `${when}: ${term}${view.query} total`)
            assert.deepEqual(body.data.map((c) => c.id), want.slice((page - 1) * perPage, page * perPage), `${when}: ${term}${view.query} page ${String(page)} of ${String(perPage)}`)
          }
        }
      }
    }

    test('each term agrees with ILIKE, its changes waiting, then folded', async () => {
      await agree('waiting')
      while (await foldSearchChanges(t.db, asCompanyId(acme.companyId), 5000) > 0) { /* all of them */ }
      await agree('folded')
    })

    test('a rare pair of letters comes from the trigram index, not a walk or a pass (the table analysed)', async () => {
      // Never analysed, the planner believes contacts holds a row or so (8 kB each by their
      // declared widths) and walks the company's id index instead, as it does for a trigram
      // search (docs/performance.md, "Plans without statistics").
      await rawRows(t.db, sql`analyze contacts`)
      const { query, params } = searchFor(asCompanyId(acme.companyId), 'lf', {}, { limit: 25, offset: 0 })
      const plan = await explain(t.url, { sql: query.text, params }, true)
      const read = [...nodes(plan)].filter((node) => (node['Actual Loops'] ?? 0) > 0 && (node['Relation Name'] === 'contacts' || node['Index Name']?.startsWith('contacts_')))
      assert.ok(read.some((node) => node['Index Name'] === 'contacts_search_trgm_idx'), 'the trigram index was read')
      assert.ok(read.every((node) => node['Node Type'] !== 'Seq Scan' && (node['Actual Rows'] ?? 0) < 100), 'no walk, no pass')
    })
  })
}
