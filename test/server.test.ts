// The process as a user starts it: `npm start` on a fresh embedded database says what it
// does and prints a demo token that works over real HTTP; SIGTERM to the process group
// closes it with exit 0; a port in use or a bad setting is one line on stderr and exit 1.
import assert from 'node:assert/strict'
import { spawn, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { connect, createServer } from 'node:net'
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, describe, test } from 'node:test'
import { freePort } from './rate-limit/helpers.js'

const root = new URL('..', import.meta.url).pathname

interface Started {
  child: ChildProcess
  output: () => string
  stderr: () => string
}

function npmStart(env: Record<string, string>): Started {
  const child = spawn('npm', ['start'], {
    cwd: root,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', LOG_LEVEL: 'warn', ...env },
    detached: true, // its own process group, as a terminal or a supervisor would run it
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let out = ''
  let err = ''
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()))
  child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()))
  return { child, output: () => out, stderr: () => err }
}

async function waitForHealth(port: number, started: Started) {
  const deadline = Date.now() + 60_000
  while (Date.now() < deadline) {
    if (started.child.exitCode !== null) throw new Error(`exited early: ${started.stderr()}`)
    try {
      const res = await fetch(`http://127.0.0.1:${port}/healthz`)
      if (res.ok) return
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 200))
  }
  throw new Error(`not healthy in time: ${started.stderr()}`)
}

/** stderr without npm's own lines (`npm warn …` about the machine's npm config). */
const ownLines = (stderr: string) => stderr.split('\n').filter((line) => line !== '' && !/^npm (warn|notice) /.test(line))

async function stop(started: Started): Promise<number | null> {
  const exited = once(started.child, 'exit')
  if (started.child.pid) process.kill(-started.child.pid, 'SIGTERM')
  const [code] = (await exited) as [number | null]
  return code
}

describe('npm start', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'engage-start-'))
  after(() => {
    rmSync(dataDir, { recursive: true, force: true })
  })

  test('demo data and a working token on first start; SIGTERM exits 0; no new demo on restart', async () => {
    const port = await freePort()
    const first = npmStart({ DATA_DIR: dataDir, PORT: String(port) })
    await waitForHealth(port, first)
    const token = /eng_[A-Za-z0-9_-]+/.exec(first.output())?.[0]
    assert.ok(token, `token printed: ${first.output()}`)
    const said = first.output().split('\n').filter((line) => line.startsWith('engage: '))
    assert.deepEqual(said, [`engage: preparing the database in ${join(dataDir, 'postgres')} (first start only)…`, 'engage: loading demo data…'])
    assert.match(first.output(), /curl http:\/\/localhost:\d+\/api\/v1\/users\/authorize_api -H "Authorization: Bearer eng_/)

    const res = await fetch(`http://127.0.0.1:${port}/api/v1/users/authorize_api`, {
      headers: { authorization: `Bearer ${token}` },
    })
    assert.equal(res.status, 200)
    const body = (await res.json()) as { user: { role: string }; company: { name: string } }
    assert.equal(body.company.name, 'Acme Sales')
    assert.equal(body.user.role, 'admin')
    assert.equal(res.headers.get('x-ratelimit-limit'), '60')
    assert.ok(res.headers.get('x-request-id'))

    assert.equal(await stop(first), 0)

    // Not a terminal: the log is JSON lines, and the health probes (polled above) are not in it at info.
    const second = npmStart({ DATA_DIR: dataDir, PORT: String(port), LOG_LEVEL: 'info' })
    await waitForHealth(port, second)
    assert.doesNotMatch(second.output(), /eng_/)
    assert.doesNotMatch(second.output(), /^engage: /m, 'nothing to say on a later start')
    const logLines = second.output().split('\n').filter((line) => line.startsWith('{'))
    assert.ok(logLines.some((line) => (JSON.parse(line) as { msg: string }).msg.startsWith('Server listening at ')), second.output())
    assert.doesNotMatch(second.output(), /healthz/)
    const again = await fetch(`http://127.0.0.1:${port}/api/v1/users/authorize_api?api_token=${token}`)
    assert.equal(again.status, 200)

    // A request in flight when SIGINT reaches the process group (node gets it twice: directly
    // and forwarded by npm) is still answered from the database, and npm exits 0.
    const payload = JSON.stringify({ first_name: 'In', last_name: 'Flight', email: 'in.flight@example.com' })
    const socket = connect(port, '127.0.0.1')
    await once(socket, 'connect')
    let answer = ''
    socket.on('data', (chunk: Buffer) => {
      answer += chunk.toString()
      if (answer.includes('}')) socket.end()
    })
    socket.write(
      `POST /api/v1/contacts HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${token}\r\n` +
        `Content-Type: application/json\r\nContent-Length: ${String(payload.length)}\r\n\r\n${payload.slice(0, 10)}`,
    )
    await new Promise((resolve) => setTimeout(resolve, 200))
    const exited = once(second.child, 'exit')
    if (second.child.pid) process.kill(-second.child.pid, 'SIGINT')
    await new Promise((resolve) => setTimeout(resolve, 300))
    socket.write(payload.slice(10)) // the rest of the body, after the signal
    await once(socket, 'close')
    assert.match(answer, /^HTTP\/1\.1 201 /, answer)
    const [code] = (await exited) as [number | null]
    assert.equal(code, 0, second.stderr())
  })

  test('a signal while the first start prepares the database: exit 0, nothing left running', async () => {
    const fresh = mkdtempSync(join(tmpdir(), 'engage-start-'))
    try {
      const started = npmStart({ DATA_DIR: fresh, PORT: String(await freePort()) })
      const deadline = Date.now() + 30_000
      while (!started.output().includes('preparing the database') && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 20))
      }
      assert.match(started.output(), /engage: preparing the database in .* \(first start only\)/)
      assert.equal(await stop(started), 0, started.output() + started.stderr())
      assert.deepEqual(readdirSync(join(fresh, 'postgres.users')), [], 'the cluster was released')
      assert.equal(existsSync(join(fresh, 'postgres', 'postmaster.pid')), false, 'the cluster was stopped')
    } finally {
      rmSync(fresh, { recursive: true, force: true })
    }
  })

  test('a port in use: one line on stderr, exit code 1, the database released', async () => {
    const taken = createServer()
    taken.listen(0, '0.0.0.0')
    await once(taken, 'listening')
    const port = (taken.address() as { port: number }).port
    try {
      const started = npmStart({ DATA_DIR: dataDir, PORT: String(port) })
      const [code] = (await once(started.child, 'exit')) as [number | null]
      assert.equal(code, 1)
      assert.deepEqual(ownLines(started.stderr()), [`engage: port ${String(port)} is already in use (set PORT to another)`])
      assert.equal(existsSync(join(dataDir, 'postgres', 'postmaster.pid')), false, 'the cluster was stopped')
    } finally {
      taken.close()
    }
  })

  test('a bad setting: a clear message and exit code 1', async () => {
    const started = npmStart({ DATA_DIR: dataDir, PORT: 'eighty' })
    const [code] = (await once(started.child, 'exit')) as [number | null]
    assert.equal(code, 1)
    assert.deepEqual(ownLines(started.stderr()), ['engage: PORT must be a whole number from 0 to 65535, got "eighty"'])
  })
})
