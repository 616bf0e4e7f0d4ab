// The restore drill on the embedded default, as an operator runs it: the server on DATA_DIR
// takes its own backups (BACKUP_DIR, BACKUP_EVERY), keeps the newest BACKUP_KEEP and shows
// the last one on /readyz; the newest is restored with the admin command line into an empty
// DATA_DIR, and a server started there answers the demo token with the same contacts.
import assert from 'node:assert/strict'
import { spawn, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { chmodSync, mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, describe, test } from 'node:test'
import { spawnAdmin } from '../helpers/cli.js'
import { freePort } from '../rate-limit/helpers.js'

const root = new URL('../..', import.meta.url).pathname

interface Server {
  child: ChildProcess
  output: () => string
}

function startServer(env: Record<string, string>): Server {
  const child = spawn(process.execPath, ['dist/server.js'], {
    cwd: root,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', LOG_LEVEL: 'warn', ...env },
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let out = ''
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()))
  child.stderr.on('data', (chunk: Buffer) => (out += chunk.toString()))
  return { child, output: () => out }
}

async function until<T>(what: string, server: Server, check: () => Promise<T | undefined>, ms = 120_000): Promise<T> {
  const deadline = Date.now() + ms
  while (Date.now() < deadline) {
    if (server.child.exitCode !== null) throw new Error(`the server exited while waiting for ${what}: ${server.output()}`)
    const found = await check().catch(() => undefined)
    if (found !== undefined) return found
    await new Promise((resolve) => setTimeout(resolve, 250))
  }
  throw new Error(`${what}: not in time. ${server.output()}`)
}

async function stop(server: Server): Promise<void> {
  if (server.child.exitCode !== null) return
  const exited = once(server.child, 'exit')
  if (server.child.pid) process.kill(-server.child.pid, 'SIGTERM')
  await exited
}

describe('scheduled backups on the embedded database', () => {
  // Reachable by the cluster's own user when the tests run as root.
  const folder = mkdtempSync(join(tmpdir(), 'engage-scheduled-'))
  chmodSync(folder, 0o755)
  const servers: Server[] = []
  after(async () => {
    for (const server of servers) await stop(server)
    rmSync(folder, { recursive: true, force: true })
  })

  test('the server backs itself up, and the newest backup restores into an empty DATA_DIR', async () => {
    const backups = join(folder, 'backups')
    const port = await freePort()
    const first = startServer({ PORT: String(port), DATA_DIR: join(folder, 'data'), BACKUP_DIR: backups, BACKUP_EVERY: '2s', BACKUP_KEEP: '2', LOG_LEVEL: 'info' })
    servers.push(first)
    const token = await until('the demo token', first, async () => /^\s+(eng_\S+)$/m.exec(first.output())?.[1])
    const base = `http://127.0.0.1:${String(port)}`
    const auth = { authorization: `Bearer ${token}` }
    await until('the server listening', first, async () => ((await fetch(`${base}/healthz`)).ok ? true : undefined))
    const count = async (url: string) => ((await (await fetch(`${base}${url}`, { headers: auth })).json()) as { meta: { total_count: number } }).meta.total_count
    const contacts = await count('/api/v1/contacts?page=1&per_page=1')
    assert.ok(contacts > 0, 'the demo company has contacts')

    // Three backups taken: only the newest two are kept, and /readyz names the last.
    await until('three backups', first, async () => {
      const ready = (await (await fetch(`${base}/readyz`)).json()) as { backup?: { last_at: string | null; size_bytes: number | null; ok: boolean } }
      const names = readdirSync(backups).filter((name) => name.endsWith('.backup'))
      return ready.backup?.ok && names.length === 2 && first.output().split('backup written').length > 3 ? ready : undefined
    })
    await stop(first)
    const names = readdirSync(backups).filter((name) => name.endsWith('.backup')).sort()
    assert.equal(names.length, 2)
    assert.ok(names.every((name) => /^engage-\d{8}T\d{6}Z\.backup$/.test(name)), names.join(', '))
    assert.deepEqual(readdirSync(backups).filter((name) => name.endsWith('.partial')), [])

    const restoredDir = join(folder, 'restored')
    const newest = join(backups, names.at(-1) ?? '')
    const restore = await spawnAdmin(['restore', '--from', newest, '--json'], { DATA_DIR: restoredDir })
    assert.equal(restore.code, 0, restore.stderr)
    assert.ok((JSON.parse(restore.stdout) as { rows: number }).rows > contacts)

    const secondPort = await freePort()
    // The backup has no secret key: the demo token works all the same (only a hash is kept).
    const second = startServer({ PORT: String(secondPort), DATA_DIR: restoredDir, SEED_DEMO: 'true' })
    servers.push(second)
    const secondBase = `http://127.0.0.1:${String(secondPort)}`
    await until('the restored server', second, async () => ((await fetch(`${secondBase}/healthz`)).ok ? true : undefined))
    const me = await fetch(`${secondBase}/api/v1/users/authorize_api`, { headers: auth })
    assert.equal(me.status, 200, 'the demo token works on the restored database')
    const restoredCount = ((await (await fetch(`${secondBase}/api/v1/contacts?page=1&per_page=1`, { headers: auth })).json()) as { meta: { total_count: number } }).meta.total_count
    assert.equal(restoredCount, contacts)
    assert.doesNotMatch(second.output(), /Demo data loaded/, 'a restored database is not seeded again')
    await stop(second)
  })
})
