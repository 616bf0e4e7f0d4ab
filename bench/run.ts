// npm run bench: throughput, latency and memory of the full stack over real HTTP, next to
// bare Fastify + pg handlers. The server runs in its own process; autocannon drives it from
// this one. DATABASE_URL picks PostgreSQL (the meaningful setting; default: a scratch
// database on 127.0.0.1); BENCH_SECONDS and BENCH_CONNECTIONS tune the runs. Contact by id
// and the contacts page (issue 26's goals) run in alternating rounds against their yardsticks,
// first on the database never analysed, then after VACUUM (ANALYZE); then everything.
//
// npm run bench -- --scale [--regenerate] [--no-company-stats]: the scale scenarios instead
// (bench/scale.ts); --no-company-stats tries them without statistics on company_id.
// npm run bench -- --webhooks: writes without and with webhook subscriptions (bench/webhooks.ts).
// npm run bench -- --cluster: reads directly and through PgBouncer + a replica (bench/cluster.ts).
// npm run bench -- --versus <ref>: contact by id, this build beside an earlier one (bench/versus.ts).
import { spawn, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { readFileSync } from 'node:fs'
import { cpus } from 'node:os'
import { infoOf, processCpu } from './load.js'
import autocannon from 'autocannon'
import pg from 'pg'

const seconds = Number(process.env.BENCH_SECONDS ?? 10)
const connections = Number(process.env.BENCH_CONNECTIONS ?? 50)
const writeConnections = 32
const adminUrl = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres'

interface Started<T> {
  child: ChildProcess
  info: T
}

async function start<T>(script: string, env: Record<string, string>): Promise<Started<T>> {
  // BENCH_CPU_PROF=<folder>: each process writes a V8 CPU profile there when it stops.
  const profile = process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : []
  const child = spawn(process.execPath, [...profile, '--import', 'tsx', script], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  return { child, info: await infoOf<T>(child, script) }
}

async function stop(child: ChildProcess) {
  const exited = once(child, 'exit')
  child.kill('SIGTERM')
  await exited
}

function rssOf(pid: number | undefined): string {
  if (!pid) return '?'
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8')
    return (/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? '?') + ' kB'
  } catch {
    return '?'
  }
}

/** CPU time (user + system) a process has used, in microseconds (/proc, Linux). */
function cpuMicros(pid: number | undefined): number {
  return (pid ? processCpu(String(pid))?.micros : undefined) ?? NaN
}

/** Which yardstick a scenario is held against, and the share of its throughput it must keep. */
interface Goal {
  against: 'row' | 'page' | 'ten companies'
  percent: number
}

interface Row {
  scenario: string
  rps: number
  /** Node CPU of the serving process per request, in µs. */
  cpu: number
  p50: number
  p99: number
  errors: number
  non2xx: number
  goal?: Goal
}

type Options = Omit<autocannon.Options, 'url'>

/** BENCH_ONLY=text runs only the scenarios whose name contains it (and both yardsticks). */
const only = process.env.BENCH_ONLY

async function measure(scenario: string, url: string, server: ChildProcess, options: Options = {}, goal?: Goal, duration = seconds): Promise<Row> {
  if (only !== undefined && !scenario.includes(only) && !scenario.startsWith('baseline')) {
    return { scenario, rps: NaN, cpu: NaN, p50: NaN, p99: NaN, errors: 0, non2xx: 0 }
  }
  // A short warm-up so JIT and pools settle, then the measured run.
  await autocannon({ url, connections, ...options, duration: 2 })
  const cpuBefore = cpuMicros(server.pid)
  const result = await autocannon({ url, connections, ...options, duration })
  const cpu = (cpuMicros(server.pid) - cpuBefore) / Math.max(result.requests.total, 1)
  return {
    scenario,
    rps: Math.round(result.requests.average),
    cpu: Math.round(cpu),
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.errors,
    non2xx: result.non2xx,
    ...(goal ? { goal } : {}),
  }
}

/** POST /contacts with a new email each time, spread round-robin over the given tokens. */
function contactWrites(tokens: string[]): Options {
  let n = 0
  const run = Date.now()
  return {
    connections: writeConnections,
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    requests: [
      {
        method: 'POST',
        setupRequest: (request) => {
          const i = n++
          return {
            ...request,
            headers: { ...request.headers, authorization: `Bearer ${tokens[i % tokens.length] ?? ''}` },
            body: JSON.stringify({
              first_name: 'Writer',
              last_name: `Number ${i}`,
              email: `w${run}.${i}@writes.example`,
              // BENCH_WRITE_BUSINESS=false leaves the business out (tells its upsert's row locks apart).
              ...(process.env.BENCH_WRITE_BUSINESS === 'false' ? {} : { business: `Business ${i % 20}` }),
              stage: 'lead',
            }),
          }
        },
      },
    ],
  }
}

interface ServiceInfo {
  port: number
  token: string
  /** An OAuth access token (1 hour) of the same user, contacts:read. */
  oauthToken: string
  writeTokens: string[]
  companyId: number
  userId: number
  memberId: number
  contactId: number
  flowId: number
}

/** VACUUM (ANALYZE) of the bench database: the statistics the second half runs with. */
async function analyze(url: string) {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    await client.query('vacuum (analyze)')
  } finally {
    await client.end()
  }
}

/** Rounds per state for issue 26's goals, and the seconds of each run in them. */
const ROUNDS = 3
const roundSeconds = Number(process.env.BENCH_ROUND_SECONDS ?? 6)

interface GoalRuns {
  row: () => Promise<Row>
  contact: () => Promise<Row>
  page: () => Promise<Row>
  contactsPage: () => Promise<Row>
}

/** One share per round: each read against the yardstick run just before it, so that the VM's
 * drift over a run (10-20 %) falls on both sides of the ratio. */
async function goalRounds(state: string, runs: GoalRuns): Promise<{ contact: number[]; page: number[] }> {
  const contact: number[] = []
  const page: number[] = []
  for (let round = 1; round <= ROUNDS; round++) {
    const row = await runs.row()
    const read = await runs.contact()
    const rows = await runs.page()
    const list = await runs.contactsPage()
    contact.push(Math.round((read.rps / row.rps) * 100))
    page.push(Math.round((list.rps / rows.rps) * 100))
    console.error(`${state}, round ${String(round)}: one row ${String(row.rps)}, contact ${String(read.rps)} req/s ` +
      `(${String(contact.at(-1))} %); 25 rows ${String(rows.rps)}, page ${String(list.rps)} req/s (${String(page.at(-1))} %)`)
  }
  return { contact, page }
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? NaN

function goalRow(scenario: string, percent: number, against: string, fresh: number[], analysed: number[]) {
  const met = (shares: number[]) => (median(shares) >= percent ? 'yes' : `NO (${String(median(shares))} %)`)
  return {
    scenario,
    goal: `≥ ${String(percent)} % of ${against}`,
    'never analysed (rounds)': shares(fresh),
    median: `${String(median(fresh))} %`,
    met: met(fresh),
    'analysed (rounds)': shares(analysed),
    'median ': `${String(median(analysed))} %`,
    'met ': met(analysed),
  }
}

const shares = (values: number[]) => values.map((v) => `${String(v)} %`).join(', ')

async function sideBySide() {
  const dbName = `engage_bench_${Date.now()}`
  const admin = new pg.Client({ connectionString: adminUrl })
  await admin.connect()
  await admin.query(`CREATE DATABASE ${dbName}`)
  const benchUrl = new URL(adminUrl)
  benchUrl.pathname = `/${dbName}`

  const rows: Row[] = []
  let service: Started<ServiceInfo> | undefined
  let baseline: Started<{ port: number }> | undefined
  try {
    service = await start<ServiceInfo>('bench/server.ts', { DATABASE_URL: benchUrl.toString() })
    baseline = await start<{ port: number }>('bench/baseline.ts', { DATABASE_URL: benchUrl.toString() })
    const s = service.info
    const options: Options = { headers: { authorization: `Bearer ${s.token}` } }
    const api = `http://127.0.0.1:${s.port}/api/v1`
    const bare = `http://127.0.0.1:${baseline.info.port}`
    const served = service.child
    const bareServer = baseline.child
    const read = (scenario: string, path: string, goal?: Goal, duration = seconds) => measure(scenario, `${api}${path}`, served, options, goal, duration)
    const list = (scenario: string, path: string, percent = 40) => read(scenario, path, { against: 'page', percent })

    // Issue 26's two goals first on the database as written, never analysed (autovacuum is
    // off, as on the CI's PostgreSQL, or the minute after a bulk import), then after
    // VACUUM (ANALYZE), each in alternating rounds; then the full table.
    const rounds = (state: string) => goalRounds(state, {
      row: () => measure('baseline: bare fastify + pg, one row by id', `${bare}/row/${s.userId}`, bareServer, {}, undefined, roundSeconds),
      contact: () => read(`GET /api/v1/contacts/:id, ${state}`, `/contacts/${s.contactId}`, undefined, roundSeconds),
      page: () => measure('baseline: bare fastify + pg, 25 contact rows', `${bare}/page/${s.companyId}`, bareServer, {}, undefined, roundSeconds),
      contactsPage: () => read(`GET /api/v1/contacts?page=2, ${state}`, '/contacts?page=2', undefined, roundSeconds),
    })
    // Unless BENCH_ONLY leaves out both of their reads.
    const roundsRun = only === undefined || ['GET /api/v1/contacts/:id', 'GET /api/v1/contacts?page=2'].some((name) => name.includes(only))
    const fresh = roundsRun ? await rounds('never analysed') : undefined
    await analyze(benchUrl.toString())
    const analysed = roundsRun ? await rounds('analysed') : undefined

    rows.push(await measure('baseline: bare fastify + pg, one row by id', `${bare}/row/${s.userId}`, baseline.child))
    rows.push(await measure('baseline: bare fastify + pg, 25 contact rows', `${bare}/page/${s.companyId}`, baseline.child))
    rows.push(await measure('GET /healthz (no auth, no I/O)', `http://127.0.0.1:${s.port}/healthz`, served))
    rows.push(await read('GET /api/v1/users/authorize_api', '/users/authorize_api', { against: 'row', percent: 100 }))
    rows.push(await read('GET /api/v1/users?page=1', '/users?page=1', { against: 'row', percent: 80 }))
    rows.push(await read('GET /api/v1/contacts/:id', `/contacts/${s.contactId}`, { against: 'row', percent: 100 }))
    // The same read with an OAuth access token: its grant and app come with the one token lookup.
    rows.push(await measure('GET /api/v1/contacts/:id (OAuth access token)', `${api}/contacts/${s.contactId}`, served,
      { headers: { authorization: `Bearer ${s.oauthToken}` } }, { against: 'row', percent: 100 }))
    rows.push(await list('GET /api/v1/contacts?page=2 (25 with 2 tags, 2 fields)', '/contacts?page=2', 60))
    rows.push(await list('GET /api/v1/contacts?page=1&user_id', `/contacts?page=1&user_id=${s.memberId}`))
    rows.push(await list('GET /api/v1/contacts/:id/events?page=1', `/contacts/${s.contactId}/events?page=1`))
    rows.push(await list('GET /api/v1/custom_fields', '/custom_fields'))
    rows.push(await list('GET /api/v1/tags', '/tags'))
    rows.push(await list('GET /api/v1/flows?page=1', '/flows?page=1'))
    rows.push(await list('GET /api/v1/tasks?page=1', '/tasks?page=1'))
    rows.push(await list('GET /api/v1/tasks?page=1&assigned_to_id&status=overdue', `/tasks?page=1&assigned_to_id=${s.memberId}&status=overdue`))
    rows.push(await list('GET /api/v1/leads?page=1&user_id', `/leads?page=1&user_id=${s.memberId}`))
    rows.push(await list('GET /api/v1/meet_transcriptions?page=1&user_id&company_id', `/meet_transcriptions?page=1&user_id=${s.memberId}&company_id=${s.companyId}`))
    rows.push(await list('GET /api/v1/whatsapp_messages?page=1&contact_id', `/whatsapp_messages?page=1&contact_id=${s.contactId}`))
    rows.push(await list('GET /api/v1/whatsapp_messages/chats?page=1&contact_id', `/whatsapp_messages/chats?page=1&contact_id=${s.contactId}`))
    // The yardsticks again after the reads: the machine's speed drifts by 10-20 % over a
    // run, and the shares are taken against the mean of the two measurements.
    rows.push(await measure('baseline: bare fastify + pg, one row by id (again)', `${bare}/row/${s.userId}`, baseline.child))
    rows.push(await measure('baseline: bare fastify + pg, 25 contact rows (again)', `${bare}/page/${s.companyId}`, baseline.child))
    const [first] = s.writeTokens
    rows.push(await measure(`POST /api/v1/contacts, ${writeConnections} connections, ten companies`, `${api}/contacts`, served, contactWrites(s.writeTokens)))
    rows.push(await measure(`POST /api/v1/contacts, ${writeConnections} connections, one company`, `${api}/contacts`, served,
      contactWrites(first ? [first] : []), { against: 'ten companies', percent: 90 }))

    /** The mean req/s of the runs of a scenario in `runs` (a yardstick runs twice). */
    const rps = (prefix: string, among: Row[] = rows) => {
      const runs = among.filter((r) => r.scenario.startsWith(prefix) && !Number.isNaN(r.rps))
      return runs.reduce((sum, r) => sum + r.rps, 0) / runs.length
    }
    const yardsticksOf = (among: Row[]) => ({
      row: rps('baseline: bare fastify + pg, one row', among),
      page: rps('baseline: bare fastify + pg, 25', among),
      'ten companies': rps('POST /api/v1/contacts, 32 connections, ten', among),
    })
    const yardstick = yardsticksOf(rows)
    const share = (r: Row, against: keyof typeof yardstick, sticks = yardstick) => Math.round((r.rps / sticks[against]) * 100)
    console.log(`\nengage bench: ${connections} connections (writes ${writeConnections}), ${seconds} s per scenario after a 2 s warm-up,` +
      ` ${cpus().length} cores, PostgreSQL ${adminUrl.replace(/\/\/.*@/, '//…@')}`)
    console.table(
      rows.filter((r) => !Number.isNaN(r.rps)).map((r) => ({
        scenario: r.scenario,
        'req/s': r.rps,
        'vs one row': `${share(r, 'row')} %`,
        'vs 25 rows': `${share(r, 'page')} %`,
        goal: r.goal ? `≥ ${r.goal.percent} % of ${r.goal.against}` : '',
        met: r.goal ? (share(r, r.goal.against) >= r.goal.percent ? 'yes' : `NO (${share(r, r.goal.against)} %)`) : '',
        'CPU µs/req': r.cpu,
        'p50 ms': r.p50,
        'p99 ms': r.p99,
        errors: r.errors + r.non2xx,
      })),
    )
    console.log(`service RSS after the runs: ${rssOf(served.pid)}`)
    if (fresh && analysed) {
      console.log(`\nWithout statistics and with (issue 26): ${String(ROUNDS)} alternating rounds of ${String(roundSeconds)} s, ` +
        'each share against the yardstick run just before it; the median decides')
      console.table([
        goalRow('GET /api/v1/contacts/:id', 100, 'one row', fresh.contact, analysed.contact),
        goalRow('GET /api/v1/contacts?page=2 (25 with 2 tags, 2 fields)', 60, '25 rows', fresh.page, analysed.page),
      ])
    }
    if (only === undefined || 'batch'.includes(only)) {
      const { measureBatch, printBatch } = await import('./batch.js')
      printBatch(await measureBatch(api, s.writeTokens, writeConnections, seconds), writeConnections)
    }
  } finally {
    if (service) await stop(service.child)
    if (baseline) await stop(baseline.child)
    await admin.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`)
    await admin.end()
  }
}

const args = process.argv.slice(2)
const versus = args.indexOf('--versus')
if (versus >= 0) {
  const ref = args[versus + 1]
  if (!ref) throw new Error('--versus needs a git ref: npm run bench -- --versus <ref>')
  const { runVersus } = await import('./versus.js')
  await runVersus(ref, adminUrl)
} else if (args.includes('--cluster')) {
  const { runCluster } = await import('./cluster.js')
  await runCluster()
} else if (args.includes('--webhooks')) {
  const { runWebhooks } = await import('./webhooks.js')
  await runWebhooks()
} else if (args.includes('--scale')) {
  const { runScale } = await import('./scale.js')
  await runScale({ regenerate: args.includes('--regenerate'), companyStats: !args.includes('--no-company-stats') })
} else {
  await sideBySide()
}
