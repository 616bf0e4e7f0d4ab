// The test run's own embedded cluster (test/helpers/app.ts, without TEST_DATABASE_URL): kept in
// this checkout, so other checkouts and users never share it, and let go on Ctrl-C or SIGTERM,
// so the last test process to go stops it instead of leaving PostgreSQL running.
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { test } from 'node:test'
import { fileURLToPath } from 'node:url'
import { isAlive } from '../../src/db/embedded.js'
import { TEST_CLUSTER_DIR } from '../helpers/app.js'

const root = fileURLToPath(new URL('../../', import.meta.url))

test('the test cluster lives in the checkout, ignored by git', () => {
  assert.ok(TEST_CLUSTER_DIR.startsWith(join(root, 'node_modules')), TEST_CLUSTER_DIR)
  assert.match(readFileSync(join(root, '.gitignore'), 'utf8'), /^node_modules\/?$/m)
})

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  test(`a test process stopped by ${signal} lets the cluster go (and stops it when it was the last)`, async () => {
    const script = [
      "const { backends } = await import('./test/helpers/app.ts')",
      'const { database, drop } = await backends()[0].open()',
      'await database.db.query("select 1")',
      'await drop()',
      "process.stdout.write('ready\\n')",
      'setInterval(() => {}, 1000)',
    ].join('\n')
    const env = { ...process.env }
    delete env.TEST_DATABASE_URL
    delete env.TEST_DATABASE_POOLER_URL
    const child = spawn(process.execPath, ['--import', './test/loader.mjs', '--input-type=module', '-e', script], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] })
    let out = ''
    let err = ''
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()))
    await new Promise<void>((resolve, reject) => {
      child.stdout.on('data', (chunk: Buffer) => {
        out += chunk.toString()
        if (out.includes('ready')) resolve()
      })
      child.once('exit', () => {
        reject(new Error(`the child ended before it was ready: ${err}`))
      })
    })
    const users = join(TEST_CLUSTER_DIR, 'postgres.users')
    assert.ok(readdirSync(users).includes(String(child.pid)), 'registered as a user of the cluster')
    child.kill(signal)
    const [code] = (await once(child, 'exit')) as [number | null]
    assert.equal(code, signal === 'SIGINT' ? 130 : 143, err)
    assert.equal(readdirSync(users).includes(String(child.pid)), false, 'no longer a user')
    const pidFile = join(TEST_CLUSTER_DIR, 'postgres', 'postmaster.pid')
    const others = readdirSync(users).filter((pid) => isAlive(Number(pid)))
    if (others.length === 0) assert.equal(existsSync(pidFile) && isAlive(Number(readFileSync(pidFile, 'utf8').split('\n')[0])), false, 'the last one out stopped PostgreSQL')
  })
}
