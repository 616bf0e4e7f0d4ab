// EXPLAIN of the audit log's page statements at 1 M records of one company (issue 28: a page
// with any filter in at most 20 ms of database time). Run:
//   AUDIT_PLANS_URL=postgres://postgres@127.0.0.1:5432/engage_audit_plans node --import tsx bench/audit-plans.ts
// The database is created (migrated) and filled on first run; never ANALYZEd, so plans are
// those of a server whose statistics are missing (as CI's, with autovacuum off). Each
// statement runs as a prepared statement with plan_cache_mode=force_generic_plan: the plan
// every execution after the fifth may use, whatever the parameters.
import pg from 'pg'
import { openDatabase } from '../src/db/client.js'
import { definedQueries } from '../src/db/query.js'
import '../src/modules/audit/audit.repository.js'

const url = process.env.AUDIT_PLANS_URL ?? 'postgres://postgres@127.0.0.1:5432/engage_audit_plans'
const ROWS = Number(process.env.AUDIT_PLANS_ROWS ?? 1_000_000)

async function ensureDatabase() {
  const admin = new pg.Client({ connectionString: new URL('/postgres', url).toString() })
  await admin.connect()
  const name = new URL(url).pathname.slice(1)
  const { rowCount } = await admin.query('select 1 from pg_database where datname = $1', [name])
  if (rowCount === 0) await admin.query(`create database ${pg.escapeIdentifier(name)}`)
  await admin.end()
  const handle = await openDatabase({ databaseUrl: url })
  await handle.close()
}

// One company of 1 M records over 400 days, 50 users and 200 tokens acting on 2,000
// targets; sign-ins are half, failures 2 %; a second company of 1,000 beside it.
const FILL = `
insert into companies (name) select 'Company ' || g from generate_series(1, 2) g where not exists (select 1 from companies);
insert into audit_events (company_id, occurred_at, action, actor_type, actor_id, actor_label, target_type, target_id,
                          target_label, outcome, reason, ip, user_agent, request_id, changes)
select c, now() - (g::float / $1) * interval '400 days',
       a.action, case when g % 50 = 0 then 'cli' when g % 3 = 0 then 'api_token' else 'user' end,
       case when g % 50 = 0 then null when g % 3 = 0 then g % 200 + 1 else g % 50 + 1 end, 'Someone',
       split_part(a.action, '.', 1), g % 2000 + 1, 'Target',
       case when g % 50 = 7 then 'failure' else 'success' end, case when g % 50 = 7 then 'wrong_password' end,
       '203.0.113.' || (g % 250), 'Mozilla/5.0', md5(g::text), null
  from (select g, case when g <= $1 then (select id from companies order by id limit 1)
                       else (select id from companies order by id offset 1 limit 1) end as c
          from generate_series(1, $1 + 1000) g) s
  cross join lateral (select (array['user.signed_in', 'user.signed_in', 'user.signed_out', 'api_token.created', 'api_token.revoked',
                                    'webhook.changed', 'user.deactivated', 'webhook.deleted', 'user.signed_in', 'user.password_changed'])
                             [(s.g::bigint * 7919) % 10 + 1] as action) a`

async function main() {
  await ensureDatabase()
  const client = new pg.Client({ connectionString: url, options: '-c timezone=UTC -c jit=off -c random_page_cost=1.1' })
  await client.connect()
  const { rows: [count] } = await client.query<{ n: number }>('select count(*)::int as n from audit_events')
  if ((count?.n ?? 0) < ROWS) {
    console.log(`filling ${String(ROWS)} records…`)
    await client.query('truncate audit_events')
    await client.query(FILL.replace(/\$1/g, String(ROWS)))
    await client.query('vacuum (freeze) audit_events') // visibility map, no statistics (VACUUM without ANALYZE)
  }
  const { rows: [company] } = await client.query<{ id: number }>('select min(id)::int as id from companies')
  const companyId = company?.id ?? 1
  await client.query('set plan_cache_mode = force_generic_plan')
  const params = (overrides: Record<number, unknown>) => {
    const p: unknown[] = [companyId, 'infinity', 0, '-infinity', 26, null, null, null, null, null, null, 5000]
    for (const [i, v] of Object.entries(overrides)) p[Number(i) - 1] = v
    return p
  }
  const cases: [string, string, Record<number, unknown>][] = [
    ['no filter', 'audit.pageTime', {}],
    ['until 200 days ago (cursor)', 'audit.pageTime', { 2: new Date(Date.now() - 200 * 86_400_000), 3: 0 }],
    ['since 1 day ago', 'audit.pageTime', { 4: new Date(Date.now() - 86_400_000) }],
    ['outcome=success', 'audit.pageTime', { 11: 'success' }],
    ['outcome=failure', 'audit.pageFailures', { 11: 'failure' }],
    ['action=user.signed_in', 'audit.pageAction', { 6: 'user.signed_in' }],
    ['action=webhook.deleted (10 %)', 'audit.pageAction', { 6: 'webhook.deleted' }],
    ['action=api_token. (prefix)', 'audit.pageTargetType', { 7: 'api_token' }],
    ['target_type=webhook&target_id=17', 'audit.pageTarget', { 7: 'webhook', 8: 17 }],
    ['actor_type=cli', 'audit.pageActorType', { 9: 'cli' }],
    ['actor_type=user&actor_id=7', 'audit.pageActor', { 9: 'user', 10: 7 }],
    ['actor_type=user&actor_id=7&action=user.signed_in&outcome=failure', 'audit.pageActor', { 9: 'user', 10: 7, 6: 'user.signed_in', 11: 'failure' }],
    ['action=user.signed_in&outcome=failure', 'audit.pageAction', { 6: 'user.signed_in', 11: 'failure' }],
    ['target_type=webhook&target_id=17&since 30 days ago', 'audit.pageTarget', { 7: 'webhook', 8: 17, 4: new Date(Date.now() - 30 * 86_400_000) }],
    ['action=api_token.created&actor_type=cli', 'audit.pageAction', { 6: 'api_token.created', 9: 'cli' }],
    ['export batch of 1,000', 'audit.exportBatch', {}],
  ]
  for (const [label, name, overrides] of cases) {
    const query = definedQueries().find((q) => q.name === name)
    if (!query) throw new Error(`no statement ${name}`)
    const values = name === 'audit.exportBatch' ? [companyId, '-infinity', 0, 'infinity', 1000] : params(overrides)
    await client.query(`prepare p as ${query.text}`)
    const literal = values.map((v) => (v === null ? 'null' : v instanceof Date ? `'${v.toISOString()}'` : typeof v === 'number' ? String(v) : `'${v as string}'`))
    // Warm once, then the median of three timings.
    await client.query(`explain (analyze) execute p(${literal.join(', ')})`)
    const runs: { plan: string; ms: number }[] = []
    for (let i = 0; i < 3; i++) {
      const { rows } = await client.query<{ 'QUERY PLAN': string }>(`explain (analyze, buffers) execute p(${literal.join(', ')})`)
      const plan = rows.map((r) => r['QUERY PLAN']).join('\n')
      runs.push({ plan, ms: Number(/Execution Time: ([\d.]+)/.exec(plan)?.[1] ?? NaN) })
    }
    runs.sort((a, b) => a.ms - b.ms)
    const median = runs[1]
    console.log(`\n### ${label} (${name}): ${median?.ms.toFixed(2) ?? '?'} ms\n${median?.plan ?? ''}`)
    await client.query('deallocate p')
  }
  await client.end()
}

await main()
