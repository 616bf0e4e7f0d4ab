// The database goes away under a running server (a TCP proxy in front of PostgreSQL is
// cut): requests get 503 with Retry-After, quickly, and the server recovers by itself.
import assert from 'node:assert/strict'
import { once } from 'node:events'
import { createServer, connect, type Server, type Socket } from 'node:net'
import { test } from 'node:test'
import { describeOrSkip } from '../helpers/suite.js'
import { buildApp } from '../../src/app.js'
import { openDatabase } from '../../src/db/client.js'
import { tenant } from '../helpers/factories.js'
import { backends, testConfig } from '../helpers/app.js'
import { freePort, waitFor } from '../rate-limit/helpers.js'

class Proxy {
  private server: Server | undefined
  private readonly sockets = new Set<Socket>()

  constructor(
    readonly port: number,
    private readonly target: { host: string; port: number },
  ) {}

  async start() {
    this.server = createServer((client) => {
      const upstream = connect(this.target.port, this.target.host)
      for (const socket of [client, upstream]) {
        this.sockets.add(socket)
        socket.on('close', () => this.sockets.delete(socket))
        socket.on('error', () => socket.destroy())
      }
      client.pipe(upstream).pipe(client)
    })
    this.server.listen(this.port, '127.0.0.1')
    await once(this.server, 'listening')
  }

  async stop() {
    for (const socket of this.sockets) socket.destroy()
    const server = this.server
    if (server) await new Promise((resolve) => server.close(resolve))
  }
}

const postgres = backends().find((b) => b.name === 'postgres')

describeOrSkip('database outage', { skip: !postgres && 'TEST_DATABASE_URL not set' }, () => {
  test('503 while PostgreSQL is unreachable, served again when it is back', async () => {
    if (!postgres) return
    const { url, drop } = await postgres.open()
    if (!url) throw new Error('no database url')
    const direct = new URL(url)
    const proxy = new Proxy(await freePort(), { host: direct.hostname, port: Number(direct.port || 5432) })
    await proxy.start()
    const viaProxy = new URL(url)
    viaProxy.host = `127.0.0.1:${proxy.port}`
    const database = await openDatabase({ databaseUrl: viaProxy.toString(), migrate: false })
    const app = await buildApp(testConfig(), { database })
    try {
      const acme = await tenant(database.db)
      const call = () => app.inject({ url: '/api/v1/users/authorize_api', headers: acme.auth })
      assert.equal((await call()).statusCode, 200)

      await proxy.stop()
      const started = Date.now()
      const down = await call()
      assert.equal(down.statusCode, 503)
      assert.deepEqual(down.json().error, { status: 503, message: 'Service unavailable', code: 'service_unavailable', request_id: down.headers['x-request-id'] })
      assert.ok(Number(down.headers['retry-after']) >= 1)
      assert.ok(Date.now() - started < 5000, 'answered within the connection timeout, no hang')
      const notReady = await app.inject({ url: '/readyz' })
      assert.equal(notReady.statusCode, 503)
      assert.equal((await app.inject({ url: '/healthz' })).statusCode, 200)

      await proxy.start()
      assert.ok(await waitFor(async () => (await call()).statusCode === 200, 10_000), 'recovered')
      assert.equal((await app.inject({ url: '/readyz' })).statusCode, 200)
    } finally {
      await app.close()
      await database.close()
      await proxy.stop()
      await drop()
    }
  })
})
