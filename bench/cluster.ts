// npm run bench -- --cluster: the same reads directly on PostgreSQL and through PgBouncer
// (transaction mode) with the lists on a streaming replica, side by side in one run. A
// primary, its replica and PgBouncer are started as the local cluster starts them
// (deploy/local-cluster/cluster.ts) in a temp folder; two services (bench/server.ts, each
// with its own "Bench Co" of the same size) run on the same primary: one with DATABASE_URL
// on PostgreSQL itself, one with DATABASE_URL on PgBouncer, DB_POOLER=transaction and
// DATABASE_REPLICA_URL; a third, direct with DB_PREPARED_STATEMENTS=false, shows what the
// statements would cost unnamed (as they were sent behind PgBouncer 1.18 before
// src/db/pooler-statements.ts). The runs alternate (direct, unnamed,
// cluster, twice) so the machine's drift falls on all; each figure is the mean of its two
// runs. Goal (issue 29): through the cluster within 20 % of direct.
import { spawn, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { mkdtempSync, rmSync } from 'node:fs'
import { cpus, tmpdir } from 'node:os'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { prepare, start, stop, urls, type Part } from '../deploy/local-cluster/cluster.js'
import { connections, measure, seconds, type Measured } from './load.js'

interface ServiceInfo {
  port: number
  token: string
  contactId: number
}

async function service(env: Record<string, string>): Promise<{ child: ChildProcess; info: ServiceInfo }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'bench/server.ts'], {
    env: { ...process.env, BENCH_ANALYZE: 'true', REDIS_URL: '', DB_POOLER: '', DATABASE_DIRECT_URL: '', DATABASE_REPLICA_URL: '', ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  const [line] = (await once(createInterface({ input: child.stdout }), 'line')) as [string]
  return { child, info: JSON.parse(line) as ServiceInfo }
}

export async function runCluster(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'engage-bench-cluster-'))
  const state = await prepare(dir)
  const parts: Part[] = ['primary', 'replica', 'pgbouncer']
  const services: ChildProcess[] = []
  try {
    for (const part of parts) await start(state, part)
    const u = urls(state)
    const direct = await service({ DATABASE_URL: u.primary })
    services.push(direct.child)
    // The same statements unnamed: what named statements behind the pooler save.
    const unnamed = await service({ DATABASE_URL: u.primary, DB_PREPARED_STATEMENTS: 'false' })
    services.push(unnamed.child)
    const cluster = await service({ DATABASE_URL: u.pgbouncer, DB_POOLER: 'transaction', DATABASE_DIRECT_URL: u.primary, DATABASE_REPLICA_URL: u.replica })
    services.push(cluster.child)
    const scenarios = [
      { name: 'GET /api/v1/contacts/:id', path: (s: ServiceInfo) => `/api/v1/contacts/${s.contactId}` },
      { name: 'GET /api/v1/contacts?page=1', path: () => '/api/v1/contacts?page=1' },
    ]
    const rows: Record<string, string | number>[] = []
    for (const scenario of scenarios) {
      const runs = { direct: [] as Measured[], unnamed: [] as Measured[], cluster: [] as Measured[] }
      for (let round = 0; round < 2; round++) {
        for (const [label, s] of [['direct', direct], ['unnamed', unnamed], ['cluster', cluster]] as const) {
          runs[label].push(await measure(`http://127.0.0.1:${s.info.port}${scenario.path(s.info)}`, s.info.token, s.child.pid))
        }
      }
      const mean = (list: { rps: number }[]) => list.reduce((sum, r) => sum + r.rps, 0) / list.length
      const through = { direct: 'PostgreSQL directly', unnamed: 'PostgreSQL directly, unnamed statements', cluster: 'PgBouncer (transaction) + replica' }
      for (const label of ['direct', 'unnamed', 'cluster'] as const) {
        const list = runs[label]
        const share = Math.round((mean(list) / mean(runs.direct)) * 100)
        rows.push({
          scenario: scenario.name,
          through: through[label],
          'req/s (mean of 2)': Math.round(mean(list)),
          'runs req/s': list.map((r) => Math.round(r.rps)).join(' / '),
          'vs direct': label === 'direct' ? '' : `${share} %`,
          'goal ≥ 80 %': label === 'cluster' ? (share >= 80 ? 'yes' : 'NO') : '',
          'p50 ms': list.map((r) => r.p50).join(' / '),
          'p99 ms': list.map((r) => r.p99).join(' / '),
          errors: list.reduce((sum, r) => sum + r.errors, 0),
          'CPU µs/req service / PostgreSQL / PgBouncer': list.map((r) => `${String(r.cpu.service)} / ${String(r.cpu.postgres)} / ${String(r.cpu.pgbouncer)}`).join(', '),
        })
      }
    }
    console.log(`\nengage bench --cluster: ${connections} connections, ${seconds} s per run after a 2 s warm-up, ${cpus().length} cores; PostgreSQL 15 primary + streaming replica, PgBouncer 1.18`)
    console.table(rows)
  } finally {
    for (const child of services) {
      const exited = once(child, 'exit')
      child.kill('SIGTERM')
      await exited
    }
    for (const part of [...parts].reverse()) await stop(state, part)
    rmSync(dir, { recursive: true, force: true })
  }
}
