// npm run bench: throughput, latency and memory of the full stack over real HTTP, next to a
// bare Fastify + pg baseline. The server runs in its own process; autocannon drives it
// from this one. DATABASE_URL picks PostgreSQL (the meaningful setting; default: a scratch
// database on 127.0.0.1); BENCH_SECONDS and BENCH_CONNECTIONS tune the runs.
import { spawn, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { readFileSync } from 'node:fs'
import { createInterface } from 'node:readline'
import autocannon from 'autocannon'
import pg from 'pg'

const seconds = Number(process.env.BENCH_SECONDS ?? 10)
const connections = Number(process.env.BENCH_CONNECTIONS ?? 50)
const adminUrl = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres'

interface Started<T> {
  child: ChildProcess
  info: T
}

async function start<T>(script: string, env: Record<string, string>): Promise<Started<T>> {
  const child = spawn(process.execPath, ['--import', 'tsx', script], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  const [line] = (await once(createInterface({ input: child.stdout }), 'line')) as [string]
  return { child, info: JSON.parse(line) as T }
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
  if (!pid) return NaN
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? []
    // utime and stime are fields 14 and 15 of stat, 12 and 13 after the command name.
    return ((Number(fields[11]) + Number(fields[12])) * 1_000_000) / 100
  } catch {
    return NaN
  }
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
}

async function measure(
  scenario: string,
  url: string,
  server: ChildProcess,
  headers: Record<string, string> = {},
): Promise<Row> {
  // A short warm-up so JIT and pools settle, then the measured run.
  await autocannon({ url, connections, duration: 2, headers })
  const cpuBefore = cpuMicros(server.pid)
  const result = await autocannon({ url, connections, duration: seconds, headers })
  const cpu = (cpuMicros(server.pid) - cpuBefore) / Math.max(result.requests.total, 1)
  return {
    scenario,
    rps: Math.round(result.requests.average),
    cpu: Math.round(cpu),
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.errors,
    non2xx: result.non2xx,
  }
}

const dbName = `engage_bench_${Date.now()}`
const admin = new pg.Client({ connectionString: adminUrl })
await admin.connect()
await admin.query(`CREATE DATABASE ${dbName}`)
const benchUrl = new URL(adminUrl)
benchUrl.pathname = `/${dbName}`

const rows: Row[] = []
const service = await start<{ port: number; token: string; userId: number; contactId: number }>('bench/server.ts', {
  DATABASE_URL: benchUrl.toString(),
})
const baseline = await start<{ port: number }>('bench/baseline.ts', { DATABASE_URL: benchUrl.toString() })
try {
  const auth = { authorization: `Bearer ${service.info.token}` }
  const api = `http://127.0.0.1:${service.info.port}/api/v1`
  const served = service.child
  rows.push(await measure('baseline: bare fastify + pg, one row by id', `http://127.0.0.1:${baseline.info.port}/row/${service.info.userId}`, baseline.child))
  rows.push(await measure('GET /healthz (no auth, no I/O)', `http://127.0.0.1:${service.info.port}/healthz`, served))
  rows.push(await measure('GET /api/v1/users/authorize_api', `${api}/users/authorize_api`, served, auth))
  rows.push(await measure('GET /api/v1/users?page=1', `${api}/users?page=1`, served, auth))
  rows.push(await measure('GET /api/v1/contacts/:id', `${api}/contacts/${service.info.contactId}`, served, auth))
  rows.push(await measure('GET /api/v1/contacts?page=1 (25 with tags)', `${api}/contacts?page=1`, served, auth))
  console.log(`\nengage bench: ${connections} connections, ${seconds} s per scenario, PostgreSQL ${adminUrl.replace(/\/\/.*@/, '//…@')}`)
  const base = rows[0]?.rps ?? 1
  console.table(
    rows.map((r) => ({
      scenario: r.scenario,
      'req/s': r.rps,
      'vs baseline': `${Math.round((r.rps / base) * 100)} %`,
      'CPU µs/req': r.cpu,
      'p50 ms': r.p50,
      'p99 ms': r.p99,
      errors: r.errors + r.non2xx,
    })),
  )
  console.log(`service RSS after the runs: ${rssOf(service.child.pid)}`)
} finally {
  await stop(service.child)
  await stop(baseline.child)
  await admin.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`)
  await admin.end()
}
