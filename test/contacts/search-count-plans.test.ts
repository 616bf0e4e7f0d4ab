// A search no index narrows (1–2 characters of an owner or with a filter, `a.b`: the whole
// company's 1–2 character terms are counted from the gram counters, contacts-filters.test.ts)
// reads every contact searched, either in one pass over the table or through the company's
// index, whichever is cheaper for the company's share of the table, chosen when the statement
// runs (contacts.repository.ts, passOrIndexCount): the pass for a company that holds most of
// the table, the index for a small one beside it; the same for an owner's search. With the
// pass, a term a sample finds in few contacts has its matches collected by the pass itself,
// total and page from them (candidateCtes); a common one is counted. All give the exact total.
// The statements are run here directly, without a stage or a tag ($5, $6 null).
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import pg from 'pg'
import { addCompany, SMALL, type CompanyInfo } from '../../bench/scale-data.js'
import { backends } from '../helpers/app.js'
import { explain, nodes, statementText, type PlanNode } from '../helpers/plans.js'
import '../../src/modules/contacts/contacts.repository.js'

const ran = (node: PlanNode) => (node['Actual Loops'] ?? 0) > 0

/** The scans of contacts that ran under one part of the statement (`CTE total`, `CTE candidates`). */
function scansUnder(plan: PlanNode, part: string): PlanNode[] {
  return [...nodes(plan)]
    .filter((node) => node['Subplan Name'] === part)
    .flatMap((sub) => [...nodes(sub)])
    .filter((node) => node['Relation Name'] === 'contacts' && ran(node))
}

/** How the contacts were read for the total (a count, or the collected candidates): a sequential pass, or an index. */
function countRead(plan: PlanNode): 'pass' | 'index' {
  const scans = [...scansUnder(plan, 'CTE total'), ...scansUnder(plan, 'CTE candidates')]
  const pass = scans.some((node) => node['Node Type'] === 'Seq Scan')
  const index = scans.some((node) => node['Node Type'].includes('Index'))
  assert.ok(pass !== index, `exactly one way ran: ${JSON.stringify(scans.map((node) => [node['Node Type'], node['Index Name']]))}`)
  return pass ? 'pass' : 'index'
}

const TINY = { contacts: 100, tasks: 100, flowTasks: 50, leads: 100, transcriptions: 50, messages: 100, whaleMessages: 10, whaleEvents: 10, users: 2, businesses: 10 }
const TERM = 'a' // in nearly every generated contact: the page walk stops at once

for (const backend of backends()) {
  describe(`the count of a 1–2 character search (${backend.name})`, () => {
    let opened: Awaited<ReturnType<typeof backend.open>>
    let big: CompanyInfo
    let small: CompanyInfo
    let unseen: CompanyInfo

    before(async () => {
      opened = await backend.open()
      // More contacts matching 'a' than the sample lets the pass collect: they are counted.
      big = await addCompany(opened.url, 'Most of the table', { ...SMALL, contacts: 6_000 }, { analyze: false })
      small = await addCompany(opened.url, 'Beside it', TINY, { analyze: true })
      unseen = await addCompany(opened.url, 'Not analyzed yet', TINY, { analyze: false })
    })
    after(async () => {
      await opened.drop()
    })

    const search = (company: CompanyInfo, userId?: number, term = TERM) => ({
      sql: statementText(userId === undefined ? 'contacts.searchShort' : 'contacts.searchShortOfUser'),
      params: userId === undefined ? [company.companyId, term, 25, 0, null, null] : [company.companyId, term, 25, 0, null, null, userId],
    })

    /** The statement's total, and the count of the same contacts written out plainly. */
    const totals = async (company: CompanyInfo, userId?: number) => {
      const client = new pg.Client({ connectionString: opened.url })
      await client.connect()
      try {
        const { sql, params } = search(company, userId)
        const { rows } = await client.query<{ total: number }>(sql, params)
        const { rows: [expected] } = await client.query<{ n: number }>(
          `select count(*)::int as n from contacts
            where company_id = $1 and deleted_at is null and ($2::bigint is null or user_id = $2)
              and (first_name || ' ' || coalesce(last_name, '') ilike $3 or coalesce(business, '') ilike $3 or email ilike $3)`,
          [company.companyId, userId ?? null, `%${TERM}%`],
        )
        return { total: Number(rows[0]?.total), expected: expected?.n }
      } finally {
        await client.end()
      }
    }

    test('a company with most of the table is counted in one pass; a small one through its index; both exactly', async () => {
      for (const mode of ['custom', 'generic'] as const) {
        assert.equal(countRead(await explain(opened.url, search(big), true, mode)), 'pass', `${mode} plan, the big company`)
        assert.equal(countRead(await explain(opened.url, search(small), true, mode)), 'index', `${mode} plan, the small company`)
      }
      for (const company of [big, small]) {
        const { total, expected } = await totals(company)
        assert.ok(total > 0)
        assert.equal(total, expected)
      }
    })

    test('a term the sample finds in few contacts: the pass collects its matches, total and page from them, no count', async () => {
      const admin = new pg.Client({ connectionString: opened.url })
      await admin.connect()
      try {
        const insert = (name: string, deleted: boolean) => admin.query<{ id: string }>(
          `insert into contacts (company_id, user_id, first_name, email, business, deleted_at)
           select $1, min(id), $2::text, lower($2::text) || '@example.com', 'Q#7 Labs', case when $3::boolean then now() end from users where company_id = $1
           returning id`, [big.companyId, name, deleted])
        const live = [(await insert('Quinn', false)).rows[0]?.id, (await insert('Ruth', false)).rows[0]?.id].map(Number)
        await insert('Sid', true)
        const query = search(big, undefined, 'Q#')
        for (const mode of ['custom', 'generic'] as const) {
          const plan = await explain(opened.url, query, true, mode)
          assert.equal(countRead(plan), 'pass', `${mode} plan`)
          assert.ok(scansUnder(plan, 'CTE candidates').length > 0, `${mode} plan: the matches were collected`)
          assert.deepEqual(scansUnder(plan, 'CTE total'), [], `${mode} plan: and not counted again`)
        }
        const { rows } = await admin.query<{ total: string; data: string }>(query.sql, query.params)
        assert.deepEqual(rows.map((row) => [Number(row.total), (JSON.parse(row.data) as { id: number }[]).map((c) => c.id)]), [[2, live]])
      } finally {
        await admin.end()
      }
    })

    test('a small company the statistics have not seen yet is counted through its index too', async () => {
      // Statistics taken before it was written: one company, the whole table. A company the
      // planner cannot tell apart is then estimated at all of the table's rows.
      const admin = new pg.Client({ connectionString: opened.url })
      await admin.connect()
      try {
        await admin.query('alter table contacts alter column company_id set (n_distinct = 1); analyze contacts')
        for (const mode of ['custom', 'generic'] as const) {
          assert.equal(countRead(await explain(opened.url, search(unseen), true, mode)), 'index', `${mode} plan`)
        }
        const { total, expected } = await totals(unseen)
        assert.ok(total > 0)
        assert.equal(total, expected)
      } finally {
        await admin.query('alter table contacts alter column company_id reset (n_distinct); analyze contacts')
        await admin.end()
      }
    })

    test('an owner of a sixth of the table or more is counted in one pass; an owner of a few through the owner index', async () => {
      const admin = new pg.Client({ connectionString: opened.url })
      await admin.connect()
      const owners = async (company: CompanyInfo) =>
        (await admin.query<{ user_id: number; n: number }>(
          'select user_id, count(*)::int as n from contacts where company_id = $1 and deleted_at is null group by user_id order by 2 desc',
          [company.companyId],
        )).rows
      const table = async () => (await admin.query<{ n: number }>('select count(*)::int as n from contacts')).rows[0]?.n ?? 0
      try {
        const [bigOwner] = await owners(big)
        const [smallOwner] = await owners(small)
        assert.ok(bigOwner && smallOwner)
        assert.ok(bigOwner.n * 6 >= (await table()), 'the setup: the big company\'s first owner holds a sixth of the table')
        assert.equal(countRead(await explain(opened.url, search(big, bigOwner.user_id), true)), 'pass')
        assert.equal(countRead(await explain(opened.url, search(small, smallOwner.user_id), true)), 'index')
        for (const [company, owner] of [[big, bigOwner], [small, smallOwner]] as const) {
          const { total, expected } = await totals(company, owner.user_id)
          assert.ok(total > 0)
          assert.equal(total, expected)
        }
      } finally {
        await admin.end()
      }
    })
  })
}
