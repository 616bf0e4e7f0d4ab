// A start that fails says why. Each case stages one way the embedded PostgreSQL cannot be
// made or started (a full disk at initdb and at start, a
// cluster of another major version, a stale postmaster.pid, a socket lock held by another
// process) and runs `node dist/server.js` as a user would: it must exit 1 and say what
// failed, the tool's own words and what to do. A case that cannot be staged here is skipped
// with the reason. (A DATA_DIR in a folder only root may enter is no failure any more:
// test/db/embedded-root.test.ts.)
import assert from 'node:assert/strict'
import { execFileSync, spawn, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir, userInfo } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import { startEmbeddedCluster } from '../../src/db/embedded.js'
import { freePort } from '../rate-limit/helpers.js'

const root = new URL('../..', import.meta.url).pathname
const isRoot = userInfo().uid === 0
// Who runs the cluster: as root the `postgres` system user (src/db/embedded.ts), else us.
const clusterUser = () =>
  isRoot
    ? { uid: Number(execFileSync('id', ['-u', 'postgres']).toString()), gid: Number(execFileSync('id', ['-g', 'postgres']).toString()) }
    : {}

interface Ended {
  code: number | null
  stdout: string
  stderr: string
}

/** Starts the server as `npm start` does and waits for it to end (it must, on its own). */
async function startServer(env: Record<string, string>): Promise<Ended> {
  const child: ChildProcess = spawn(process.execPath, ['dist/server.js'], {
    cwd: root,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', LOG_LEVEL: 'warn', SEED_DEMO: 'false', PORT: String(await freePort()), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let stdout = ''
  let stderr = ''
  child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()))
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
  // A start that hangs instead of failing is a failure too (a bound, not a speed goal).
  const hang = setTimeout(() => child.kill('SIGKILL'), 90_000)
  const [code] = (await once(child, 'exit')) as [number | null]
  clearTimeout(hang)
  return { code, stdout, stderr }
}

/** The failure is told: exit 1, what failed, the tool's words, what to do (all matched). */
function assertTold(ended: Ended, expected: { what: RegExp; said: RegExp; todo: RegExp }) {
  const context = `stdout:\n${ended.stdout}\nstderr:\n${ended.stderr}`
  assert.equal(ended.code, 1, context)
  assert.match(ended.stderr, /^engage: could not start/m, context)
  assert.match(ended.stderr, expected.what, context)
  assert.match(ended.stderr, expected.said, context)
  assert.match(ended.stderr, /^What to do: /m, context)
  assert.match(ended.stderr.slice(ended.stderr.indexOf('What to do: ')), expected.todo, context)
}

describe('a start that fails says why', () => {
  // Reachable by the cluster's user (mkdtemp makes 0700 folders; the first case wants one).
  const base = mkdtempSync(join(tmpdir(), 'engage-fail-'))
  chmodSync(base, 0o755)
  const template = join(base, 'template')
  const mounts: string[] = []
  const sleepers: ChildProcess[] = []

  before(async () => {
    // One stopped cluster, copied (owners kept) into the cases that need an existing one.
    const cluster = await startEmbeddedCluster({ dataDir: template })
    await cluster.release()
  })
  after(() => {
    for (const sleeper of sleepers) sleeper.kill('SIGKILL')
    for (const mount of mounts) execFileSync('umount', [mount])
    rmSync(base, { recursive: true, force: true })
  })

  /** A copy of the stopped template cluster as a new DATA_DIR. */
  function existingCluster(name: string, into = base): string {
    const dataDir = join(into, name)
    execFileSync('cp', ['-a', template, dataDir]) // owners and modes kept (PostgreSQL checks both)
    return dataDir
  }

  /** A small file system of its own (tmpfs) to fill, or why there cannot be one here. */
  function smallDisk(name: string, size: string): string | { skip: string } {
    const mount = join(base, name)
    mkdirSync(mount)
    try {
      execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size},mode=755`, 'tmpfs', mount], { stdio: 'pipe' })
    } catch (err) {
      return { skip: `cannot mount a small tmpfs to fill here (${(err as Error).message.split('\n')[0] ?? ''}); needs root with CAP_SYS_ADMIN` }
    }
    mounts.push(mount)
    return mount
  }

  /** Fills a disk to its last page. */
  function fill(disk: string, pagesLeft = 0) {
    const spare = join(disk, 'spare')
    if (pagesLeft > 0) execFileSync('dd', ['if=/dev/zero', `of=${spare}`, 'bs=4k', `count=${pagesLeft}`], { stdio: 'pipe' })
    for (const bs of ['1M', '4k']) {
      try {
        execFileSync('dd', ['if=/dev/zero', `of=${join(disk, `filler-${bs}`)}`, `bs=${bs}`], { stdio: 'pipe' })
      } catch {
        // dd stops at "No space left on device", as intended
      }
    }
    rmSync(spare, { force: true })
  }

  /** A live process of the cluster's user, whose PID a stale file can name. */
  function liveProcessOfClusterUser(): number {
    const sleeper = spawn('sleep', ['600'], { ...clusterUser(), stdio: 'ignore' })
    sleepers.push(sleeper)
    assert.ok(sleeper.pid)
    return sleeper.pid
  }

  test('a DATA_DIR that cannot be created (a file is in the way)', async () => {
    const file = join(base, 'a-file')
    writeFileSync(file, 'not a folder')
    const ended = await startServer({ DATA_DIR: join(file, 'data') })
    assertTold(ended, { what: /could not start: ENOTDIR/, said: /a-file\/data\/secret\.key/, todo: /choose a DATA_DIR this user can create and write/ })
  })

  test('a full disk before the cluster is made (the secret key in DATA_DIR cannot be written), and no half-written key left behind', async (t) => {
    const disk = smallDisk('full-at-key', '1m')
    if (typeof disk !== 'string') {
      t.skip(disk.skip)
      return
    }
    fill(disk)
    const dataDir = join(disk, 'data')
    const ended = await startServer({ DATA_DIR: dataDir })
    assertTold(ended, { what: /could not start: ENOSPC/, said: /no space left on device/, todo: /free space on the disk that holds DATA_DIR .*another disk/ })
    assert.equal(existsSync(join(dataDir, 'secret.key')), false, 'an empty key file would refuse the next start')
  })

  test('a full disk while initdb creates the cluster', async (t) => {
    const disk = smallDisk('full-at-initdb', '12m')
    if (typeof disk !== 'string') {
      t.skip(disk.skip)
      return
    }
    const ended = await startServer({ DATA_DIR: join(disk, 'data') })
    assertTold(ended, {
      what: /initdb could not create the embedded database/,
      said: /No space left on device/,
      todo: new RegExp(`free space on the disk that holds ${disk}/data.*another disk`),
    })
  })

  test('a full disk when the existing cluster starts', async (t) => {
    const disk = smallDisk('full-at-start', '80m')
    if (typeof disk !== 'string') {
      t.skip(disk.skip)
      return
    }
    const dataDir = existingCluster('data', disk)
    writeFileSync(join(dataDir, 'secret.key'), `${'ab'.repeat(32)}\n`) // made by an earlier start
    // One page left: enough for engage's own lock file, not for PostgreSQL's postmaster.pid.
    fill(disk, 1)
    const ended = await startServer({ DATA_DIR: dataDir })
    assertTold(ended, {
      what: /the embedded database in .* did not start/,
      said: /No space left on device/,
      todo: /free space on the disk that holds .*another disk/,
    })
  })

  test('a cluster of another PostgreSQL major version in DATA_DIR', async () => {
    const dataDir = existingCluster('other-version')
    const ours = readFileSync(join(template, 'postgres', 'PG_VERSION'), 'utf8').trim()
    writeFileSync(join(dataDir, 'postgres', 'PG_VERSION'), '15\n')
    const ended = await startServer({ DATA_DIR: dataDir })
    assertTold(ended, {
      what: /the embedded database in .* did not start/,
      said: /initialized by PostgreSQL version 15, which is not compatible with this version 17/,
      todo: new RegExp(`holds a PostgreSQL 15 cluster and this engage runs PostgreSQL ${ours}.*new DATA_DIR.*pg_dump`),
    })
  })

  test('a stale postmaster.pid whose PID a live process of the cluster user now has', async () => {
    const dataDir = existingCluster('stale-pid-live')
    const pid = liveProcessOfClusterUser()
    writeFileSync(join(dataDir, 'postgres', 'postmaster.pid'), `${pid}\n${join(dataDir, 'postgres')}\n`)
    const ended = await startServer({ DATA_DIR: dataDir })
    assertTold(ended, {
      what: new RegExp(`looks running \\(its postmaster.pid names PID ${pid}, a live process\\) but has no socket`),
      said: new RegExp(`server is running \\(PID: ${pid}\\)`),
      todo: /was left by a crash: delete it and start again/,
    })
  })

  test('the socket lock held by another live process', async () => {
    const dataDir = existingCluster('socket-lock')
    const pid = liveProcessOfClusterUser()
    const lockFile = join(dataDir, 'postgres', '.s.PGSQL.5432.lock')
    writeFileSync(lockFile, `${pid}\n`)
    if (isRoot) execFileSync('chown', ['--reference', join(dataDir, 'postgres'), lockFile])
    const ended = await startServer({ DATA_DIR: dataDir })
    assertTold(ended, {
      what: /the embedded database in .* did not start/,
      said: /lock file ".*\.s\.PGSQL\.5432\.lock" already exists/,
      todo: new RegExp(`another process \\(PID ${pid}\\) holds .*\\.s\\.PGSQL\\.5432\\.lock.*delete it and start again`),
    })
  })

  test('a stale postmaster.pid of a process that is gone is no failure: the cluster starts', async () => {
    const dataDir = existingCluster('stale-pid-dead')
    writeFileSync(join(dataDir, 'postgres', 'postmaster.pid'), `2147483646\n${join(dataDir, 'postgres')}\n`)
    const cluster = await startEmbeddedCluster({ dataDir })
    await cluster.release()
  })

  test('a DATABASE_URL server that does not answer', async () => {
    const ended = await startServer({ DATABASE_URL: `postgres://postgres@127.0.0.1:${await freePort()}/engage` })
    assertTold(ended, { what: /could not start: .*ECONNREFUSED/, said: /ECONNREFUSED/, todo: /DATABASE_URL names is running and reachable/ })
  })
})
