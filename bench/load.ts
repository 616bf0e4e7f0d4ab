// One measured run of autocannon on a URL with a bearer token, after a 2 s warm-up
// (BENCH_SECONDS, BENCH_CONNECTIONS): the side-by-side runs of --cluster and --versus. With
// the service's pid it also tells where the machine's CPU went per request: the service, all
// PostgreSQL processes, PgBouncer (/proc, Linux).
import type { ChildProcess } from 'node:child_process'
import { readdirSync, readFileSync } from 'node:fs'
import { createInterface } from 'node:readline'
import autocannon from 'autocannon'

export const seconds = Number(process.env.BENCH_SECONDS ?? 10)
export const connections = Number(process.env.BENCH_CONNECTIONS ?? 50)

export interface Measured {
  rps: number
  p50: number
  p99: number
  errors: number
  /** CPU µs per request: the service, PostgreSQL (every backend), PgBouncer. */
  cpu: { service: number; postgres: number; pgbouncer: number }
}

/** User + system CPU of a process in µs, and its program name; undefined once it is gone. */
export function processCpu(pid: string): { program: string; micros: number } | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    const program = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'))
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    // utime and stime: fields 14 and 15 of stat, 12 and 13 after the program name; in ticks of 10 ms.
    return { program, micros: ((Number(fields[11]) + Number(fields[12])) * 1_000_000) / 100 }
  } catch {
    return undefined
  }
}

/** Every process's user + system CPU in µs, by pid, with its program name. */
function cpuByProcess(): Map<string, { program: string; micros: number }> {
  const found = new Map<string, { program: string; micros: number }>()
  for (const pid of readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue
    const cpu = processCpu(pid)
    if (cpu) found.set(pid, cpu)
  }
  return found
}

/**
 * The CPU each part used between two readings: the service, all PostgreSQL processes,
 * PgBouncer. Summed per process, so that one that ended in between (a backend closed by the
 * pool) takes out nothing: its last CPU is lost, where the difference of two totals went
 * negative; one started in between counts from zero.
 */
function cpuBetween(before: ReturnType<typeof cpuByProcess>, after: ReturnType<typeof cpuByProcess>, servicePid: number | undefined): Measured['cpu'] {
  const totals = { service: 0, postgres: 0, pgbouncer: 0 }
  for (const [pid, now] of after) {
    const then = before.get(pid)
    const used = now.micros - (then?.program === now.program ? then.micros : 0)
    if (Number(pid) === servicePid) totals.service += used
    else if (now.program === 'postgres') totals.postgres += used
    else if (now.program === 'pgbouncer') totals.pgbouncer += used
  }
  return totals
}

/** A request other than a GET of `url`: its method, connections and a body per request. */
export type RequestShape = Omit<autocannon.Options, 'url' | 'headers'>

export async function measure(url: string, token: string, servicePid?: number, shape: RequestShape = {}): Promise<Measured> {
  const options = { url, connections, ...shape, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' } }
  await autocannon({ ...options, duration: 2 })
  const before = cpuByProcess()
  const result = await autocannon({ ...options, duration: seconds })
  const used = cpuBetween(before, cpuByProcess(), servicePid)
  const requests = Math.max(result.requests.total, 1)
  const per = (key: keyof Measured['cpu']) => Math.round(used[key] / requests)
  return {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.errors + result.non2xx,
    cpu: { service: per('service'), postgres: per('postgres'), pgbouncer: per('pgbouncer') },
  }
}

/**
 * A bench process's info: the first JSON line of its output that is not a log record (pino's,
 * with a numeric level); other lines (a warning that PUBLIC_URL is unset, say) go to stderr.
 */
export function infoOf<T>(child: ChildProcess, script: string): Promise<T> {
  if (!child.stdout) throw new Error(`${script}: its output is not piped`)
  const lines = createInterface({ input: child.stdout })
  return new Promise<T>((resolve, reject) => {
    let told = false
    const infoIn = (line: string): T | undefined => {
      try {
        const parsed = JSON.parse(line) as { level?: unknown }
        return typeof parsed.level === 'number' ? undefined : (parsed as T)
      } catch {
        return undefined
      }
    }
    lines.on('line', (line) => {
      const found = told ? undefined : infoIn(line)
      if (found === undefined) {
        process.stderr.write(`${line}\n`)
        return
      }
      told = true
      resolve(found)
    })
    lines.on('close', () => {
      reject(new Error(`${script} ended before it said how to reach it`))
    })
  })
}
