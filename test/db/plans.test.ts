// Every statement of the registry (src/db/query.ts) picks its index whatever the statistics
// say: EXPLAIN for each, with representative parameters, on a database never analysed (nor
// vacuumed: the minute after a bulk import, or the CI's PostgreSQL with autovacuum off) and
// again after ANALYZE; each as a custom plan and as the generic plan a named statement runs
// once PostgreSQL caches it (plan_cache_mode = force_generic_plan). A plan fails on a sequential scan of a table of more than one page, or on an
// index scan whose Filter compares a key (company_id, id, contact_id) that should have been
// its Index Cond. New statements are covered as they are defined; a statement that cannot be
// explained is listed in EXEMPT, a finding that is intended or harmless in ACCEPTED, each
// with its reason (test/db/plans.params.ts).
// Parameters: by type (below), with PARAMS (test/db/plans.params.ts) for the statements
// whose values must mean something.
import assert from 'node:assert/strict'
import { readdirSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { after, before, describe, test } from 'node:test'
import pg from 'pg'
import { addCompany, quietProgress, type CompanySize } from '../../bench/scale-data.js'
import { SESSION_OPTIONS } from '../../src/db/client.js'
import { definedQueries } from '../../src/db/query.js'
import { backends } from '../helpers/app.js'
import { nodes, type PlanNode } from '../helpers/plans.js'
import { ACCEPTED, EXEMPT, PARAMS, Seed } from './plans.params.js'

const src = fileURLToPath(new URL('../../src/', import.meta.url))
const ENTRY_POINTS = new Set(['server.ts', join('cli', 'main.ts')])
for (const file of readdirSync(src, { recursive: true, encoding: 'utf8' })
  .filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts') && !ENTRY_POINTS.has(f))
  .sort()) {
  await import(pathToFileURL(join(src, file)).href)
}

/** A few hundred rows per table: enough for a sequential scan to be a choice, not a rounding. */
const SIZE: CompanySize = {
  contacts: 300,
  tasks: 300,
  flowTasks: 150,
  leads: 300,
  transcriptions: 200,
  messages: 600,
  whaleMessages: 100,
  whaleEvents: 50,
  users: 5,
  businesses: 50,
}

/** The padding companies: a few rows of each kind. */
const TINY: CompanySize = {
  contacts: 10, tasks: 10, flowTasks: 5, leads: 5, transcriptions: 2, messages: 5, whaleMessages: 2, whaleEvents: 2, users: 5, businesses: 2,
}
const PADDING = 40

/**
 * A key compared in a Filter where an index on it should have taken it as its condition: an id,
 * or an email as the email keys hold it (`lower(email)`).
 */
const KEY_IN_FILTER = /(?:^|[\s(.])(?:company_id|contact_id|id)\s*=|lower\(\((?:\w+\.)?email\)::text\)\s*=/

/**
 * A hashed subplan's membership test as PostgreSQL 17 writes it out (`ANY (id = (hashed SubPlan 3).col1)`),
 * where 15 writes `(hashed SubPlan 3)`: a set built once and probed per row, not a key an index missed.
 */
const HASHED_SUBPLAN = /ANY \([\w.]+ = \(hashed SubPlan (\d+)\)\.col\d+\)/g

/** What is wrong with a plan, given the tables that have rows: a sequential scan, a key in an index scan's Filter. */
export function problems(plan: PlanNode, tablesWithRows: Set<string>): string[] {
  const found: string[] = []
  for (const node of nodes(plan)) {
    const table = node['Relation Name']
    if (node['Node Type'] === 'Seq Scan' && table && tablesWithRows.has(table)) found.push(`Seq Scan on ${table}`)
    if (/Index/.test(node['Node Type']) && node.Filter && KEY_IN_FILTER.test(node.Filter.replace(HASHED_SUBPLAN, '(hashed SubPlan $1)'))) {
      found.push(`${table ?? '?'} via ${node['Index Name'] ?? '?'} filters a key: ${node.Filter}`)
    }
  }
  return found
}

for (const backend of backends()) {
  describe(`every statement's plan, without statistics and with (${backend.name})`, () => {
    let opened: Awaited<ReturnType<typeof backend.open>>
    let client: pg.Client
    let seed: Seed
    const tablesWithRows = new Set<string>()

    before(async () => {
      opened = await backend.open()
      const admin = new pg.Client({ connectionString: opened.url })
      await admin.connect()
      try {
        const { rows } = await admin.query<{ name: string }>(`select relname as name from pg_class c join pg_namespace n on n.oid = c.relnamespace
                                                                 where n.nspname = 'public' and c.relkind = 'r'`)
        for (const { name } of rows) await admin.query(`alter table ${pg.escapeIdentifier(name)} set (autovacuum_enabled = false)`)
      } finally {
        await admin.end()
      }
      quietProgress()
      // Companies enough that the small tables (users, tags, custom fields, flows) hold a few hundred rows too.
      for (let i = 0; i < PADDING; i++) await addCompany(opened.url, `Padding ${String(i)}`, TINY, { analyze: false, vacuum: false })
      const other = await addCompany(opened.url, 'Other Co', SIZE, { analyze: false, vacuum: false })
      const company = await addCompany(opened.url, 'Plans Co', SIZE, { analyze: false, vacuum: false })
      client = new pg.Client({ connectionString: opened.url, options: SESSION_OPTIONS })
      await client.connect()
      seed = await Seed.read(client, company, other)
      const { rows } = await client.query<{ name: string }>(`select relname as name from pg_class c join pg_namespace n on n.oid = c.relnamespace
                                                                where n.nspname = 'public' and c.relkind = 'r'`)
      // A table of one page is read whole as cheaply as through an index (a handful of companies).
      for (const { name } of rows) {
        const { rows: size } = await client.query<{ pages: number }>(`select pg_relation_size($1) / 8192 as pages`, [name])
        if (Number(size[0]?.pages) > 1) tablesWithRows.add(name)
      }
    })
    after(async () => {
      await client.end()
      await opened.drop()
    })

    /** The statement's parameter types, from the server (PREPARE). */
    async function parameterTypes(name: string, text: string): Promise<string[]> {
      await client.query(`prepare plans_probe as ${text}`)
      try {
        const { rows } = await client.query<{ types: string }>(
          `select parameter_types::text[] as types from pg_prepared_statements where name = 'plans_probe'`,
        )
        return (rows[0]?.types as unknown as string[] | undefined) ?? []
      } catch (error) {
        throw new Error(`${name}: ${String(error)}`, { cause: error })
      } finally {
        await client.query('deallocate plans_probe')
      }
    }

    /**
     * The plan of `text` with `params`: as EXPLAIN plans it (a custom plan, the values known),
     * or `generic`, as a named statement runs once PostgreSQL caches it (the values unknown).
     */
    async function planOf(text: string, params: unknown[], generic: boolean): Promise<PlanNode | undefined> {
      if (!generic) {
        const { rows } = await client.query<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>(`EXPLAIN (FORMAT JSON) ${text}`, params)
        return rows[0]?.['QUERY PLAN'][0].Plan
      }
      // Deallocated by check(), after the rollback (a failed EXPLAIN aborts the transaction).
      await client.query(`prepare plans_generic as ${text}`)
      await client.query('set local plan_cache_mode = force_generic_plan')
      // A generic plan does not look at the values (and EXPLAIN EXECUTE takes no bind parameters).
      const values = params.map(() => 'null').join(', ')
      const { rows } = await client.query<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>(
        `EXPLAIN (FORMAT JSON) EXECUTE plans_generic${params.length > 0 ? `(${values})` : ''}`)
      return rows[0]?.['QUERY PLAN'][0].Plan
    }

    async function check(generic = false): Promise<string[]> {
      const offenders: string[] = []
      for (const query of definedQueries()) {
        if (EXEMPT[query.name] !== undefined) continue
        let params: unknown[]
        try {
          const given = PARAMS[query.name]
          params = given ? given(seed) : seed.byType(await parameterTypes(query.name, query.text))
        } catch (error) {
          offenders.push(`${query.name}: no parameters (${String(error)})`)
          continue
        }
        try {
          await client.query('begin')
          const plan = await planOf(query.text, params, generic)
          if (!plan) throw new Error('no plan')
          if (process.env.PLANS_DUMP === query.name) {
            const { rows: text } = await client.query<{ 'QUERY PLAN': string }>(`EXPLAIN ${query.text}`, params)
            console.log(text.map((r) => r['QUERY PLAN']).join('\n'))
          }
          const accepted = ACCEPTED[query.name] ?? []
          for (const problem of problems(plan, tablesWithRows)) {
            if (!accepted.some(({ finding }) => problem.startsWith(finding))) offenders.push(`${query.name}${generic ? ' (generic plan)' : ''}: ${problem}`)
          }
        } catch (error) {
          offenders.push(`${query.name}: EXPLAIN failed (${String(error)})`)
        } finally {
          await client.query('rollback')
          if (generic) await client.query('deallocate all')
        }
      }
      return offenders
    }

    test('never analysed: no sequential scan of a table with rows, no key in a Filter', async () => {
      const { rows } = await client.query<{ n: number }>(
        `select count(*)::int as n from pg_stats where schemaname = 'public'`,
      )
      assert.equal(rows[0]?.n, 0, 'the database has statistics')
      const offenders = await check()
      assert.equal(offenders.length, 0, offenders.join('\n'))
    })

    test('never analysed, as generic plans (a named statement cached): the same', async () => {
      const offenders = await check(true)
      assert.equal(offenders.length, 0, offenders.join('\n'))
    })

    test('analysed: the same', async () => {
      await client.query('analyze')
      const offenders = await check()
      assert.equal(offenders.length, 0, offenders.join('\n'))
    })

    test('analysed, as generic plans: the same', async () => {
      const offenders = await check(true)
      assert.equal(offenders.length, 0, offenders.join('\n'))
    })

    test('every exemption names a statement that exists', () => {
      const names = new Set(definedQueries().map((q) => q.name))
      assert.deepEqual(Object.keys(EXEMPT).filter((name) => !names.has(name)), [])
      assert.deepEqual(Object.keys(PARAMS).filter((name) => !names.has(name)), [])
      assert.deepEqual(Object.keys(ACCEPTED).filter((name) => !names.has(name)), [])
    })

    test('the check fails where it should', () => {
      const seq = { 'Node Type': 'Seq Scan', 'Relation Name': 'contacts', 'Plan Rows': 1 }
      assert.deepEqual(problems(seq, new Set(['contacts'])), ['Seq Scan on contacts'])
      const filtered = {
        'Node Type': 'Index Scan', 'Relation Name': 'contact_custom_values', 'Index Name': 'contact_custom_values_field_idx',
        'Plan Rows': 1, 'Index Cond': '(custom_field_id = f.id)', Filter: '(contact_id = c.id)',
      }
      assert.deepEqual(problems(filtered, new Set()), [
        'contact_custom_values via contact_custom_values_field_idx filters a key: (contact_id = c.id)',
      ])
      const ids = { 'Node Type': 'Index Scan', 'Relation Name': 'contacts', 'Plan Rows': 1, Filter: '(c.id = ANY ($4))' }
      assert.equal(problems(ids, new Set()).length, 1)
      // The batch's lookup by email as it was: the company walked, the emails filtered.
      const emails = { 'Node Type': 'Index Scan', 'Relation Name': 'contacts', 'Plan Rows': 1, Filter: '((deleted_at IS NULL) AND (lower((email)::text) = ANY ($2)))' }
      assert.equal(problems(emails, new Set()).length, 1)
      const fine = { 'Node Type': 'Index Scan', 'Relation Name': 'contacts', 'Plan Rows': 1, 'Index Cond': '(id = $2)', Filter: '(deleted_at IS NULL)' }
      assert.deepEqual(problems(fine, new Set(['contacts'])), [])
      // A hashed subplan's test reads alike in PostgreSQL 15 and 17; a key beside it is still found.
      const hashed = { 'Node Type': 'Index Scan', 'Relation Name': 'contacts', 'Plan Rows': 1, Filter: '((stage = $5) AND (ANY (id = (hashed SubPlan 15).col1)))' }
      assert.deepEqual(problems(hashed, new Set(['contacts'])), [])
      const both = { ...hashed, Filter: '((id = $2) AND (ANY (id = (hashed SubPlan 15).col1)))' }
      assert.equal(problems(both, new Set(['contacts'])).length, 1)
    })
  })
}
