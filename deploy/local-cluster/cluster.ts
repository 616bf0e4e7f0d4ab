// The local cluster (deploy/local-cluster/README.md): on one machine, from Debian's packages, a
// PostgreSQL primary and its streaming replica, PgBouncer (transaction mode) in front of the
// primary, Redis, three engage instances and HAProxy in front of them. Everything lives in
// one folder (CLUSTER_DIR, default .cluster/ in the repository); state.json there holds the
// ports and the process ids, so `status` and `down` work from any later shell, and the drill
// (drill.ts) stops and starts single parts through the same functions.
import { execFileSync, spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { chownSync, closeSync, existsSync, mkdirSync, openSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { join, resolve } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { isAlive } from '../../src/db/embedded.js'

export const REPO = resolve(import.meta.dirname, '../..')
const PG_BIN = '/usr/lib/postgresql/15/bin'

/** Each program the cluster runs, and the Debian package that has it. */
const PROGRAMS = {
  initdb: { path: `${PG_BIN}/initdb`, pkg: 'postgresql-15' },
  postgres: { path: `${PG_BIN}/postgres`, pkg: 'postgresql-15' },
  pg_basebackup: { path: `${PG_BIN}/pg_basebackup`, pkg: 'postgresql-15' },
  psql: { path: `${PG_BIN}/psql`, pkg: 'postgresql-client-15' },
  pgbouncer: { path: '/usr/sbin/pgbouncer', pkg: 'pgbouncer' },
  haproxy: { path: '/usr/sbin/haproxy', pkg: 'haproxy' },
  'redis-server': { path: '/usr/bin/redis-server', pkg: 'redis-server' },
} as const

export const INSTANCES = ['engage-1', 'engage-2', 'engage-3'] as const
export type Part = 'primary' | 'replica' | 'pgbouncer' | 'redis' | (typeof INSTANCES)[number] | 'haproxy'
export const PARTS: Part[] = ['primary', 'replica', 'pgbouncer', 'redis', ...INSTANCES, 'haproxy']

export interface State {
  dir: string
  ports: Record<Part, number>
  /** Running parts' process ids (0: stopped). */
  pids: Partial<Record<Part, number>>
  /** WEBHOOK_SECRET_KEY shared by the instances (they must all decrypt the same secrets). */
  secretKey: string
  /** The checkout an instance runs `dist/server.js` from, when not this one (the previous release, in the drill's rolling upgrade). */
  builds?: Partial<Record<(typeof INSTANCES)[number], string>>
}

/** How long an instance keeps serving after SIGTERM while HAProxy takes it out (2 failed checks at 500 ms). */
export const DRAIN_MS = 2500

export function clusterDir(): string {
  return resolve(process.env.CLUSTER_DIR ?? join(REPO, '.cluster'))
}

export function missingPrograms(): string[] {
  return Object.entries(PROGRAMS)
    .filter(([, program]) => !existsSync(program.path))
    .map(([name, program]) => `${name} (${program.path}): apt-get install -y ${program.pkg}`)
}

function readState(dir: string): State | undefined {
  const file = join(dir, 'state.json')
  return existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as State) : undefined
}

function saveState(state: State): void {
  writeFileSync(join(state.dir, 'state.json'), JSON.stringify(state, null, 2) + '\n')
}

export function loadState(dir = clusterDir()): State {
  const state = readState(dir)
  if (!state) throw new Error(`no cluster in ${dir} (npm run cluster -- up)`)
  return state
}

async function freePort(taken: Set<number>): Promise<number> {
  for (;;) {
    const port = await new Promise<number>((done, fail) => {
      const server = createServer()
      server.once('error', fail)
      server.listen(0, '127.0.0.1', () => {
        const address = server.address()
        server.close(() => {
          done(typeof address === 'object' && address ? address.port : 0)
        })
      })
    })
    // Never the shared server's ports, never one already given to another part.
    if (port !== 5432 && port !== 6379 && !taken.has(port)) {
      taken.add(port)
      return port
    }
  }
}

/** The postgres system user: PostgreSQL and PgBouncer refuse to run as root. */
function runAs(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined
  const id = (flag: string) => Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8' }).trim())
  return { uid: id('-u'), gid: id('-g') }
}

/** A folder the postgres user owns (when run as root), mode 0700 as PostgreSQL wants. */
function ownedFolder(path: string): string {
  mkdirSync(path, { recursive: true, mode: 0o700 })
  const user = runAs()
  if (user) chownSync(path, user.uid, user.gid)
  return path
}

/** Starts a long-running program in its own process group, its output appended to log/<part>.log. */
function launch(state: State, part: Part, command: string, args: string[], options: { env?: NodeJS.ProcessEnv; asPostgres?: boolean; cwd?: string } = {}): number {
  const log = openSync(join(state.dir, 'log', `${part}.log`), 'a')
  const user = options.asPostgres ? runAs() : undefined
  const child = spawn(command, args, {
    cwd: options.cwd ?? REPO,
    detached: true,
    stdio: ['ignore', log, log],
    env: options.env ?? process.env,
    ...(user ?? {}),
  })
  closeSync(log)
  child.unref()
  if (!child.pid) throw new Error(`${part}: could not start ${command}`)
  state.pids[part] = child.pid
  saveState(state)
  return child.pid
}

/** Runs a program to its end (initdb, pg_basebackup, psql); its output goes to log/setup.log. */
function runToEnd(state: State, command: string, args: string[], asPostgres = false): void {
  const log = openSync(join(state.dir, 'log', 'setup.log'), 'a')
  try {
    execFileSync(command, args, { stdio: ['ignore', log, log], ...(asPostgres ? (runAs() ?? {}) : {}) })
  } finally {
    closeSync(log)
  }
}

/** Thrown by a check that knows waiting longer is pointless (the process exited). */
class GaveUp extends Error {}

async function waitFor(what: string, check: () => Promise<boolean> | boolean, timeoutMs = 60_000): Promise<void> {
  const until = Date.now() + timeoutMs
  while (Date.now() < until) {
    const ok = await Promise.resolve()
      .then(check)
      .catch((err: unknown) => {
        if (err instanceof GaveUp) throw err
        return false
      })
    if (ok) return
    await sleep(100)
  }
  throw new Error(`${what} did not come up within ${timeoutMs / 1000} s`)
}

function pgReady(port: number, database = 'postgres'): boolean {
  try {
    execFileSync(`${PG_BIN}/pg_isready`, ['-q', '-h', '127.0.0.1', '-p', String(port), '-U', 'postgres', '-d', database], { stdio: 'ignore' })
    return true
  } catch {
    return false
  }
}

async function httpOk(port: number, path: string): Promise<boolean> {
  const res = await fetch(`http://127.0.0.1:${port}${path}`, { signal: AbortSignal.timeout(2000) })
  await res.body?.cancel()
  return res.ok
}

export function urls(state: State) {
  const { ports } = state
  return {
    primary: `postgres://postgres@127.0.0.1:${ports.primary}/engage`,
    replica: `postgres://postgres@127.0.0.1:${ports.replica}/engage`,
    pgbouncer: `postgres://postgres@127.0.0.1:${ports.pgbouncer}/engage`,
    redis: `redis://127.0.0.1:${ports.redis}`,
    haproxy: `http://127.0.0.1:${ports.haproxy}`,
    instance: (name: (typeof INSTANCES)[number]) => `http://127.0.0.1:${ports[name]}`,
  }
}

// ---- Each part: how it starts (its files made on the first start) ----

function postgresArgs(state: State, part: 'primary' | 'replica'): string[] {
  return [
    '-D', join(state.dir, part),
    '-p', String(state.ports[part]),
    '-c', 'listen_addresses=127.0.0.1',
    '-c', `unix_socket_directories=${join(state.dir, 'run')}`,
    '-c', 'max_connections=200',
    '-c', 'wal_level=replica',
    '-c', 'max_wal_senders=5',
    '-c', 'hot_standby=on',
    '-c', 'shared_buffers=128MB',
  ]
}

async function startPrimary(state: State): Promise<void> {
  const data = join(state.dir, 'primary')
  if (!existsSync(join(data, 'PG_VERSION'))) {
    ownedFolder(data)
    runToEnd(state, PROGRAMS.initdb.path, ['-D', data, '-U', 'postgres', '--auth=trust', '--encoding=UTF8', '--locale=C.UTF-8'], true)
  }
  launch(state, 'primary', PROGRAMS.postgres.path, postgresArgs(state, 'primary'), { asPostgres: true })
  await waitFor('the primary', () => pgReady(state.ports.primary))
  const psql = [PROGRAMS.psql.path, '-h', '127.0.0.1', '-p', String(state.ports.primary), '-U', 'postgres', '-d', 'postgres', '-tAc'] as const
  const exists = execFileSync(psql[0], [...psql.slice(1), "select 1 from pg_database where datname = 'engage'"], { encoding: 'utf8' }).trim()
  if (exists !== '1') runToEnd(state, psql[0], [...psql.slice(1), 'create database engage'])
}

async function startReplica(state: State): Promise<void> {
  const data = join(state.dir, 'replica')
  if (!existsSync(join(data, 'PG_VERSION'))) {
    ownedFolder(data)
    // -R: standby.signal and primary_conninfo written for us; -X stream: the WAL of the copy.
    runToEnd(state, PROGRAMS.pg_basebackup.path, ['-h', '127.0.0.1', '-p', String(state.ports.primary), '-U', 'postgres', '-D', data, '-R', '-X', 'stream', '-c', 'fast'], true)
  }
  launch(state, 'replica', PROGRAMS.postgres.path, postgresArgs(state, 'replica'), { asPostgres: true })
  await waitFor('the replica', () => pgReady(state.ports.replica))
}

async function startPgbouncer(state: State): Promise<void> {
  const dir = ownedFolder(join(state.dir, 'pgbouncer'))
  // Transaction pooling; 3 instances × (10 pooled + 2 pipelined) clients share 30 server connections.
  writeFileSync(
    join(dir, 'pgbouncer.ini'),
    [
      '[databases]',
      // Next to the primary: through its Unix socket, cheaper per statement than loopback TCP.
      `engage = host=${join(state.dir, 'run')} port=${state.ports.primary} dbname=engage`,
      '',
      '[pgbouncer]',
      'listen_addr = 127.0.0.1',
      `listen_port = ${state.ports.pgbouncer}`,
      // Its Unix socket is what an online restart (-R, restartPgbouncer) takes the sockets over through.
      `unix_socket_dir = ${join(state.dir, 'run')}`,
      'auth_type = trust',
      `auth_file = ${join(dir, 'userlist.txt')}`,
      'admin_users = postgres',
      'pool_mode = transaction',
      'default_pool_size = 30',
      'max_client_conn = 1000',
      'server_lifetime = 3600',
      'log_connections = 0',
      'log_disconnections = 0',
      '',
    ].join('\n'),
  )
  writeFileSync(join(dir, 'userlist.txt'), '"postgres" ""\n')
  const user = runAs()
  if (user) for (const file of ['pgbouncer.ini', 'userlist.txt']) chownSync(join(dir, file), user.uid, user.gid)
  launch(state, 'pgbouncer', PROGRAMS.pgbouncer.path, [join(dir, 'pgbouncer.ini')], { asPostgres: true })
  await waitFor('PgBouncer', () => pgReady(state.ports.pgbouncer, 'engage'))
}

async function startRedis(state: State): Promise<void> {
  const dir = join(state.dir, 'redis')
  mkdirSync(dir, { recursive: true })
  // No persistence: a restart starts empty, as a cache that was replaced would.
  launch(state, 'redis', PROGRAMS['redis-server'].path, ['--port', String(state.ports.redis), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir])
  await waitFor('Redis', async () => {
    const { Redis } = await import('ioredis')
    const client = new Redis(state.ports.redis, '127.0.0.1', { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null })
    client.on('error', () => undefined) // not listening yet: the next try
    try {
      await client.connect()
      await client.ping()
      return true
    } finally {
      client.disconnect()
    }
  })
}

export function instanceEnv(state: State, name: (typeof INSTANCES)[number]): NodeJS.ProcessEnv {
  const u = urls(state)
  return {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    NODE_ENV: 'production',
    PORT: String(state.ports[name]),
    HOST: '127.0.0.1',
    DATABASE_URL: u.pgbouncer,
    DB_POOLER: 'transaction',
    DATABASE_DIRECT_URL: u.primary,
    DATABASE_REPLICA_URL: u.replica,
    DB_REPLICA_MAX_LAG_MS: '1000',
    REDIS_URL: u.redis,
    SHUTDOWN_DRAIN_MS: String(DRAIN_MS),
    WEBHOOK_SECRET_KEY: state.secretKey,
    // The drill's webhook receiver listens on 127.0.0.1 over plain http.
    WEBHOOK_ALLOW_PRIVATE: 'true',
    SEED_DEMO: 'false',
    DATA_DIR: join(state.dir, name),
    LOG_LEVEL: 'warn',
  }
}

export async function startInstance(state: State, name: (typeof INSTANCES)[number]): Promise<void> {
  mkdirSync(join(state.dir, name), { recursive: true })
  const pid = launch(state, name, process.execPath, ['dist/server.js'], { env: instanceEnv(state, name), cwd: state.builds?.[name] ?? REPO })
  await waitFor(name, () => {
    if (!isAlive(pid)) throw new GaveUp(`${name} exited (see ${join(state.dir, 'log', `${name}.log`)})`)
    return httpOk(state.ports[name], '/readyz')
  }, 120_000)
}

async function startHaproxy(state: State): Promise<void> {
  const file = join(state.dir, 'haproxy.cfg')
  writeFileSync(
    file,
    [
      'global',
      '  maxconn 4000',
      '  log stdout format raw local0',
      '',
      'defaults',
      '  mode http',
      '  log global',
      // One line per request in log/haproxy.log: which instance, its status, retries (+N: redispatched).
      '  option httplog',
      '  timeout connect 2s',
      '  timeout client 60s',
      '  timeout server 60s',
      // A connection refused or reset before any answer (an instance killed) is tried on
      // another instance; writes carry an Idempotency-Key, so a retried one runs at most once.
      '  retries 3',
      '  option redispatch 1',
      '  retry-on conn-failure empty-response',
      '',
      'frontend api',
      `  bind 127.0.0.1:${state.ports.haproxy}`,
      '  default_backend engage',
      '',
      'backend engage',
      '  balance roundrobin',
      '  option httpchk GET /readyz',
      '  http-check expect status 200',
      // Out after 2 failed checks (1 s, within SHUTDOWN_DRAIN_MS), back after 2 good ones.
      '  default-server inter 500ms fall 2 rise 2',
      ...INSTANCES.map((name) => `  server ${name} 127.0.0.1:${state.ports[name]} check`),
      '',
    ].join('\n'),
  )
  // -db: stay in the foreground (its pid is the one to stop); -W: master-worker.
  launch(state, 'haproxy', PROGRAMS.haproxy.path, ['-W', '-db', '-f', file])
  await waitFor('HAProxy', () => httpOk(state.ports.haproxy, '/readyz'))
}

/** Which checkout the instance runs from at its next start: another build (the previous release's), or this one. */
export function useBuild(state: State, name: (typeof INSTANCES)[number], checkout: string = REPO): void {
  state.builds = { ...state.builds, [name]: checkout }
  saveState(state)
}

/** Starts a part of a cluster that is up (the drill brings one back). */
export async function start(state: State, part: Part): Promise<void> {
  if (isAlive(state.pids[part])) return
  switch (part) {
    case 'primary':
      return startPrimary(state)
    case 'replica':
      return startReplica(state)
    case 'pgbouncer':
      return startPgbouncer(state)
    case 'redis':
      return startRedis(state)
    case 'haproxy':
      return startHaproxy(state)
    default:
      return startInstance(state, part)
  }
}

/**
 * PgBouncer's online restart (-R): a new process takes the listening socket and the client
 * connections over from the running one, which then exits; clients are not disconnected.
 */
export async function restartPgbouncer(state: State): Promise<void> {
  const old = state.pids.pgbouncer
  launch(state, 'pgbouncer', PROGRAMS.pgbouncer.path, ['-R', join(state.dir, 'pgbouncer', 'pgbouncer.ini')], { asPostgres: true })
  await waitFor('the old PgBouncer to hand over', () => !isAlive(old), 30_000)
  await waitFor('PgBouncer', () => pgReady(state.ports.pgbouncer, 'engage'))
}

/** The signal that stops each part cleanly: PostgreSQL's fast shutdown, PgBouncer's safe one. */
function stopSignal(part: Part): NodeJS.Signals {
  return part === 'primary' || part === 'replica' || part === 'pgbouncer' ? 'SIGINT' : 'SIGTERM'
}

function groupAlive(pid: number): boolean {
  try {
    process.kill(-pid, 0)
    return true
  } catch {
    return false
  }
}

/**
 * Stops a part and waits for it to be gone: the signal to its main process (PostgreSQL's
 * postmaster stops its own children), SIGKILL to the whole process group after timeoutMs or
 * for whatever of the group outlives it.
 */
export async function stop(state: State, part: Part, signal: NodeJS.Signals = stopSignal(part), timeoutMs = 30_000): Promise<void> {
  const pid = state.pids[part]
  if (pid) {
    try {
      process.kill(pid, signal)
    } catch {
      // already gone
    }
    const until = Date.now() + timeoutMs
    while (isAlive(pid) && Date.now() < until) await sleep(50)
    for (let tries = 0; groupAlive(pid) && tries < 100; tries++) {
      try {
        process.kill(-pid, 'SIGKILL')
      } catch {
        // gone meanwhile
      }
      await sleep(50)
    }
  }
  state.pids[part] = 0
  saveState(state)
}

// ---- up, status, down ----

/** A fresh folder and free ports for every part, nothing started (bench/cluster.ts starts a few). */
export async function prepare(dir: string): Promise<State> {
  // Only a folder of ours (state.json) or an empty one is cleared: CLUSTER_DIR may be mistyped.
  if (existsSync(dir) && readdirSync(dir).length > 0 && !existsSync(join(dir, 'state.json'))) {
    throw new Error(`${dir} is not empty and holds no cluster (state.json): choose another CLUSTER_DIR`)
  }
  rmSync(dir, { recursive: true, force: true })
  mkdirSync(join(dir, 'log'), { recursive: true, mode: 0o755 })
  ownedFolder(join(dir, 'run'))
  const taken = new Set<number>()
  const ports = {} as Record<Part, number>
  for (const part of PARTS) ports[part] = await freePort(taken)
  const state: State = { dir, ports, pids: {}, secretKey: randomBytes(32).toString('hex') }
  saveState(state)
  return state
}

/** `previous`: a checkout of another release (built) that the instances run from until useBuild moves them. */
export async function up(options: { build?: boolean; log?: (line: string) => void; previous?: string } = {}): Promise<State> {
  const log = options.log ?? ((line: string) => process.stdout.write(`${line}\n`))
  const missing = missingPrograms()
  if (missing.length > 0) throw new Error(`missing programs, install them:\n  ${missing.join('\n  ')}`)
  const dir = clusterDir()
  const existing = readState(dir)
  if (existing && PARTS.some((part) => isAlive(existing.pids[part]))) {
    throw new Error(`a cluster is already running in ${dir} (npm run cluster -- status, or down)`)
  }
  if (options.build !== false) {
    log('building (npm run build)…')
    execFileSync('npm', ['run', 'build'], { cwd: REPO, stdio: ['ignore', 'ignore', 'inherit'] })
  }
  const state = await prepare(dir)
  if (options.previous !== undefined) for (const name of INSTANCES) useBuild(state, name, options.previous)
  try {
    for (const part of PARTS) {
      // The first instance migrates the empty database; the other two start once it is done.
      await start(state, part)
      log(`  ${part.padEnd(10)} 127.0.0.1:${state.ports[part]}  pid ${state.pids[part]}`)
    }
  } catch (err) {
    await down({ log: () => undefined })
    throw err
  }
  log(`up: the API at ${urls(state).haproxy} (HAProxy), files in ${dir}`)
  return state
}

export function status(state: State): { part: Part; port: number; pid: number | undefined; running: boolean }[] {
  return PARTS.map((part) => ({ part, port: state.ports[part], pid: state.pids[part], running: isAlive(state.pids[part]) }))
}

/** Stops every part, front first (HAProxy, instances) and PostgreSQL last. Keeps the files. */
export async function down(options: { log?: (line: string) => void } = {}): Promise<void> {
  const log = options.log ?? ((line: string) => process.stdout.write(`${line}\n`))
  const state = readState(clusterDir())
  if (!state) {
    log('down: no cluster here')
    return
  }
  // Front first (HAProxy, then the instances together), PostgreSQL's primary last.
  const order: Part[][] = [['haproxy'], [...INSTANCES], ['redis'], ['pgbouncer'], ['replica'], ['primary']]
  for (const group of order) {
    await Promise.all(
      group.map(async (part) => {
        const pid = state.pids[part]
        if (!isAlive(pid)) return
        await stop(state, part)
        log(`  ${part.padEnd(10)} stopped (pid ${pid})`)
      }),
    )
  }
  log(`down: nothing running; files kept in ${state.dir}`)
}
