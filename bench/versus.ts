// npm run bench -- --versus <git ref>: this build and an earlier one side by side in one run,
// for goals stated against "the figure before this work" (issue 27: contact by id within 5 %
// of its figure before access control; issue 40: the contacts figures within 5 % of aba1610's).
// The earlier tree is taken with `git archive` into a temp folder, installed with `npm ci` and
// built; each build serves its own scratch database with its own bench/server.ts ("Bench Co",
// the small size). The contact each one reads is given the same 2 tags and 2 custom fields,
// both databases are analysed, and each scenario's runs alternate (earlier, this, three times)
// so the machine's drift falls on both. Scenarios: a contact by id, the contacts page, a PUT of
// that contact, POST /contacts and a batch of 100 new contacts (BENCH_VERSUS_ONLY=text keeps
// those whose name holds it).
import { execFileSync, spawn, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { mkdtempSync, rmSync } from 'node:fs'
import { cpus, tmpdir } from 'node:os'
import { join } from 'node:path'
import pg from 'pg'
import { connections, infoOf, measure, seconds, type Measured, type RequestShape } from './load.js'

const ROUNDS = 3
/** As `npm run bench`'s write scenario. */
const WRITE_CONNECTIONS = 32

interface Scenario {
  name: string
  path: (info: ServiceInfo) => string
  shape?: () => RequestShape
}

/** Requests of `method` whose body `body(n)` is new for each request n of the run. */
function writes(method: 'POST' | 'PUT', body: (n: number) => unknown): () => RequestShape {
  return () => {
    let n = 0
    const run = Date.now()
    return {
      method,
      connections: WRITE_CONNECTIONS,
      requests: [{ method, setupRequest: (request) => ({ ...request, body: JSON.stringify(body(run + n++)) }) }],
    }
  }
}

const newContact = (n: number) => ({ first_name: 'Versus', last_name: `Number ${String(n)}`, email: `v${String(n)}@versus.example`, business: `Business ${String(n % 20)}`, stage: 'lead' })

const SCENARIOS = ([
  { name: 'GET /contacts/:id', path: (info) => `/api/v1/contacts/${String(info.contactId)}` },
  { name: 'GET /contacts?page=2', path: () => '/api/v1/contacts?page=2' },
  { name: 'PUT /contacts/:id', path: (info) => `/api/v1/contacts/${String(info.contactId)}`, shape: writes('PUT', (n) => ({ first_name: 'Versus', last_name: `Put ${String(n)}`, email: `put${String(n)}@versus.example`, business: 'Versus Co' })) },
  { name: 'POST /contacts', path: () => '/api/v1/contacts', shape: writes('POST', newContact) },
  {
    name: 'POST /contacts/batch (100 new)',
    path: () => '/api/v1/contacts/batch',
    shape: writes('POST', (n) => ({ contacts: Array.from({ length: 100 }, (_, i) => newContact(n * 100 + i)) })),
  },
] satisfies Scenario[]).filter((scenario: Scenario) => scenario.name.includes(process.env.BENCH_VERSUS_ONLY ?? ''))

interface ServiceInfo {
  port: number
  token: string
  companyId: number
  contactId: number
}

interface Build {
  label: string
  dir: string
  database: string
  child?: ChildProcess
  info?: ServiceInfo
}

function databaseUrl(adminUrl: string, name: string): string {
  const url = new URL(adminUrl)
  url.pathname = `/${name}`
  return url.toString()
}

async function serve(build: Build, adminUrl: string): Promise<ServiceInfo> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'bench/server.ts'], {
    cwd: build.dir,
    env: { ...process.env, DATABASE_URL: databaseUrl(adminUrl, build.database), BENCH_ANALYZE: 'true', REDIS_URL: '', DB_POOLER: '', DATABASE_DIRECT_URL: '', DATABASE_REPLICA_URL: '' },
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  build.child = child
  return infoOf<ServiceInfo>(child, `${build.label}'s bench/server.ts`)
}

/** A run and the seconds its build's delivery worker then took to publish what the run's writes recorded. */
type Run = Measured & { drained: number }

// Each write records webhook events that the build's delivery worker publishes after the
// commit (src/modules/webhooks/publish.ts). A run's events still waiting when it ends would be
// published during the next run, the other build's, taking the machine from it: each run
// waits for its build's outbox to empty first, and says how long that took. A build from
// before the outbox (migration 0011) numbered its events in the writing transaction: 0.
async function drained(url: string): Promise<number> {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  const started = Date.now()
  try {
    const { rows: outbox } = await client.query<{ found: boolean }>(`select to_regclass('api_event_outbox') is not null as found`)
    if (outbox[0]?.found !== true) return 0
    for (;;) {
      const { rows } = await client.query<{ waiting: number }>('select count(*)::int as waiting from api_event_outbox')
      if (rows[0]?.waiting === 0) return (Date.now() - started) / 1000
      if (Date.now() - started > 300_000) throw new Error(`${url}: the outbox did not empty within 5 minutes`)
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
  } finally {
    await client.end()
  }
}

/** The contact read gets exactly 2 tags and 2 custom fields, whatever the build's generator gave it; then statistics. */
async function sameContact(url: string, info: ServiceInfo): Promise<void> {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    const params = [info.companyId, info.contactId]
    await client.query('delete from contact_tags where company_id = $1 and contact_id = $2', params)
    await client.query('delete from contact_custom_values where company_id = $1 and contact_id = $2', params)
    await client.query(`insert into contact_tags (company_id, contact_id, tag_id)
                        select $1, $2, id from tags where company_id = $1 order by id limit 2`, params)
    await client.query(`insert into contact_custom_values (company_id, contact_id, custom_field_id, value)
                        select $1, $2, id, 'value' from custom_fields where company_id = $1 order by id limit 2`, params)
    await client.query('vacuum (analyze)')
  } finally {
    await client.end()
  }
}


export async function runVersus(ref: string, adminUrl: string): Promise<void> {
  const commit = execFileSync('git', ['rev-parse', '--short', `${ref}^{commit}`], { encoding: 'utf8' }).trim()
  const head = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim()
  const dir = mkdtempSync(join(tmpdir(), 'engage-bench-versus-'))
  const suffix = String(process.pid)
  const builds: Build[] = [
    { label: `earlier (${commit})`, dir, database: `engage_bench_versus_earlier_${suffix}` },
    { label: `this (${head}, working tree)`, dir: process.cwd(), database: `engage_bench_versus_this_${suffix}` },
  ]
  const admin = new pg.Client({ connectionString: adminUrl })
  await admin.connect()
  try {
    execFileSync('sh', ['-c', `git archive ${commit} | tar -x -C "${dir}"`], { stdio: 'inherit' })
    console.log(`installing and building ${commit} in ${dir}`)
    execFileSync('npm', ['ci', '--no-audit', '--no-fund', '--loglevel=error'], { cwd: dir, stdio: 'inherit' })
    execFileSync('npm', ['run', 'build', '--silent'], { cwd: dir, stdio: 'inherit' })
    for (const build of builds) {
      await admin.query(`CREATE DATABASE ${build.database}`)
      build.info = await serve(build, adminUrl)
      await sameContact(databaseUrl(adminUrl, build.database), build.info)
    }
    const mean = (list: { rps: number }[]) => list.reduce((sum, r) => sum + r.rps, 0) / list.length
    // The rate with the run's publishing counted: its requests over the run and the wait for its outbox.
    const sustained = (list: Run[]) => mean(list.map((r) => ({ rps: (r.rps * seconds) / (seconds + r.drained) })))
    const rows = []
    for (const scenario of SCENARIOS) {
      const runs = new Map<Build, Run[]>(builds.map((build) => [build, []]))
      for (let round = 0; round < ROUNDS; round++) {
        for (const build of builds) {
          const info = build.info
          if (!info) throw new Error(`${build.label} did not start`)
          const measured = await measure(`http://127.0.0.1:${String(info.port)}${scenario.path(info)}`, info.token, build.child?.pid, scenario.shape?.())
          runs.get(build)?.push({ ...measured, drained: await drained(databaseUrl(adminUrl, build.database)) })
        }
      }
      const earlier = mean(runs.get(builds[0] as Build) ?? [])
      for (const build of builds) {
        const list = runs.get(build) ?? []
        const share = Math.round((mean(list) / earlier) * 100)
        rows.push({
          scenario: scenario.name,
          build: build.label,
          [`req/s (mean of ${String(ROUNDS)})`]: Math.round(mean(list)),
          'runs req/s': list.map((r) => Math.round(r.rps)).join(' / '),
          'vs earlier': `${String(share)} %`,
          'goal ≥ 95 %': build === builds[0] ? '' : share >= 95 ? 'yes' : 'NO',
          'then published in s': list.map((r) => r.drained.toFixed(1)).join(' / '),
          'req/s with publishing': Math.round(sustained(list)),
          'p50 ms': list.map((r) => r.p50).join(' / '),
          errors: list.reduce((sum, r) => sum + r.errors, 0),
          'CPU µs/req service / PostgreSQL': list.map((r) => `${String(r.cpu.service)} / ${String(r.cpu.postgres)}`).join(', '),
        })
      }
    }
    console.log(`\nengage bench --versus ${ref}: the contact by id (2 tags, 2 custom fields) and the page, analysed, at ${String(connections)} connections; the writes at ${String(WRITE_CONNECTIONS)}; ${String(seconds)} s per run after a 2 s warm-up, ${String(cpus().length)} cores`)
    console.table(rows)
  } finally {
    for (const build of builds) {
      if (build.child && build.child.exitCode === null) {
        const exited = once(build.child, 'exit')
        build.child.kill('SIGTERM')
        await exited
      }
      await admin.query(`DROP DATABASE IF EXISTS ${build.database} WITH (FORCE)`)
    }
    await admin.end()
    rmSync(dir, { recursive: true, force: true })
  }
}
