// EXPLAIN for the plan tests: a statement's plan as JSON, and a walk over its nodes.
import pg from 'pg'
import { literal } from '../../bench/sql-literal.js'
import { SESSION_OPTIONS } from '../../src/db/client.js'
import { definedQueries } from '../../src/db/query.js'

export interface PlanNode {
  'Node Type': string
  'Relation Name'?: string
  'Index Name'?: string
  /** A subplan's name: `CTE total`, `InitPlan 3 (returns $3)`. */
  'Subplan Name'?: string
  'Plan Rows': number
  'Actual Loops'?: number
  'Actual Rows'?: number
  'Index Cond'?: string
  Filter?: string
  'Recheck Cond'?: string
  'Rows Removed by Filter'?: number
  'Rows Removed by Join Filter'?: number
  Plans?: PlanNode[]
}

/** The node and every node under it. */
export function* nodes(plan: PlanNode): Generator<PlanNode> {
  yield plan
  for (const child of plan.Plans ?? []) yield* nodes(child)
}

/**
 * The plan of `query` with its parameters (sent apart, on a connection with the service's
 * settings): by default a custom plan, as a named statement's first five runs get; `generic`,
 * the plan it may settle on after them (planned without the values, run with them).
 */
export async function explain(
  url: string,
  query: { sql: string; params: unknown[] },
  analyze: boolean,
  mode: 'custom' | 'generic' = 'custom',
): Promise<PlanNode> {
  const client = new pg.Client({ connectionString: url, options: SESSION_OPTIONS })
  await client.connect()
  try {
    const options = analyze ? 'ANALYZE, FORMAT JSON' : 'FORMAT JSON'
    let statement = query.sql
    if (mode === 'generic') {
      await client.query('set plan_cache_mode = force_generic_plan')
      await client.query(`prepare explained as ${query.sql}`)
      statement = `execute explained(${query.params.map(literal).join(', ')})`
    }
    const params = mode === 'generic' ? [] : query.params
    const { rows } = await client.query<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>(`EXPLAIN (${options}) ${statement}`, params)
    const plan = rows[0]?.['QUERY PLAN'][0].Plan
    if (!plan) throw new Error('no plan')
    return plan
  } finally {
    await client.end()
  }
}

/** The SQL of a named statement of the service (its repositories define them on import). */
export function statementText(name: string): string {
  const found = definedQueries().find((q) => q.name === name)
  if (!found) throw new Error(`no statement ${name}`)
  return found.text
}
