// Graceful in a fleet: on SIGTERM the process (node dist/server.js, as `npm start` runs it)
// answers /readyz 503 at once, keeps serving every other request for SHUTDOWN_DRAIN_MS (the
// time a load balancer needs to take it out of rotation), then closes as before: exit 0.
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { after, before, describe, test } from 'node:test'
import pg from 'pg'
import { backends, TEST_SECRET_KEY, type Backend } from './helpers/app.js'
import { tenant, type Tenant } from './helpers/factories.js'
import { freePort } from './rate-limit/helpers.js'

const root = new URL('..', import.meta.url).pathname
/** Far longer than the few requests the test sends during it: the drain outlasts them. */
const DRAIN_MS = 5000

for (const backend of backends()) {
  describe(`SIGTERM with SHUTDOWN_DRAIN_MS (${backend.name})`, () => {
    let opened: Awaited<ReturnType<Backend['open']>>
    let owner: Tenant
    before(async () => {
      opened = await backend.open()
      owner = await tenant(opened.database.db)
    })
    after(async () => {
      await opened.drop()
    })

    test('/readyz 503 at once, other requests still served, then exit 0', async () => {
      const port = await freePort()
      const child = spawn(process.execPath, ['dist/server.js'], {
        cwd: root,
        env: {
          PATH: process.env.PATH ?? '',
          DATABASE_URL: opened.url,
          PORT: String(port),
          HOST: '127.0.0.1',
          SEED_DEMO: 'false',
          LOG_LEVEL: 'warn',
          WEBHOOK_SECRET_KEY: TEST_SECRET_KEY,
          SHUTDOWN_DRAIN_MS: String(DRAIN_MS),
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      })
      let stderr = ''
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
      const exited = once(child, 'exit') as Promise<[number | null]>
      const base = `http://127.0.0.1:${String(port)}`
      try {
        for (let ready = false; !ready; ) {
          if (child.exitCode !== null) assert.fail(`exited early: ${stderr}`)
          ready = await fetch(`${base}/readyz`).then((res) => res.status === 200, () => false)
          if (!ready) await new Promise((resolve) => setTimeout(resolve, 100))
        }

        child.kill('SIGTERM')
        // At once: the first /readyz after the signal reaches the process says 503.
        let readyz: Response
        do {
          readyz = await fetch(`${base}/readyz`)
        } while (readyz.status === 200)
        assert.equal(readyz.status, 503)
        assert.equal(readyz.headers.get('retry-after'), '5')
        assert.equal(readyz.headers.get('connection'), 'close')
        const body = (await readyz.json()) as { error: { code: string; message: string } }
        assert.equal(body.error.code, 'service_unavailable')
        assert.equal(body.error.message, 'Service unavailable')

        // Still serving, database included, reads and writes.
        const me = await fetch(`${base}/api/v1/users/authorize_api`, { headers: owner.auth })
        assert.equal(me.status, 200)
        assert.equal(me.headers.get('connection'), 'close')
        const created = await fetch(`${base}/api/v1/contacts`, {
          method: 'POST',
          headers: { ...owner.auth, 'content-type': 'application/json' },
          body: JSON.stringify({ first_name: 'Drained', email: 'drained@example.com' }),
        })
        assert.equal(created.status, 201)
        const { id } = (await created.json()) as { id: number }
        assert.equal((await fetch(`${base}/healthz`)).status, 200)
        assert.equal(child.exitCode, null, 'still running during the drain')

        const [code] = await exited
        assert.equal(code, 0, stderr)
        const client = new pg.Client({ connectionString: opened.url })
        await client.connect()
        const { rows } = await client.query('select first_name from contacts where id = $1', [id]).finally(() => client.end())
        assert.deepEqual(rows, [{ first_name: 'Drained' }])
        await assert.rejects(fetch(`${base}/healthz`), 'closed after the drain')
      } finally {
        if (child.exitCode === null) child.kill('SIGKILL')
      }
    })
  })
}
