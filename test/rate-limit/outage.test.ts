// Redis going away and coming back, on private redis-servers this file starts and kills.
import assert from 'node:assert/strict'
import { once } from 'node:events'
import { createServer, type AddressInfo, type Socket } from 'node:net'
import { test, type TestContext } from 'node:test'
import { describeOrSkip } from '../helpers/suite.js'
import { createRateLimiter, type RateLimiter } from '../../src/rate-limit/limiter.js'
import {
  freePort,
  hasRedisServer,
  inspector,
  recordingLogger,
  sleep,
  startRedis,
  waitFor,
  type PrivateRedis,
} from './helpers.js'

const keyPrefix = 'outage:'

/** Consumes and checks the answer came back quickly, whatever Redis is doing. */
async function timedConsume(limiter: RateLimiter, key: string) {
  const started = performance.now()
  const decision = await limiter.consume(key)
  const elapsed = performance.now() - started
  assert.ok(elapsed < 1_000, `consume took ${Math.round(elapsed)} ms`)
  return decision
}

async function privateRedis(t: TestContext, port: number): Promise<PrivateRedis> {
  const server = await startRedis(port)
  t.after(() => server.kill())
  return server
}

async function limiterOn(t: TestContext, redisUrl: string, max: number) {
  const logger = recordingLogger()
  const started = performance.now()
  const limiter = await createRateLimiter({ max, windowMs: 60_000, redisUrl, keyPrefix, logger })
  t.after(() => limiter.close())
  return { limiter, logger, startupMs: performance.now() - started }
}

describeOrSkip('Redis outage', { skip: !hasRedisServer && 'redis-server is not on PATH', concurrency: true }, () => {
  test('killed mid-run: answers in process, warns once, goes back to Redis when it restarts', async (t) => {
    const port = await freePort()
    const server = await privateRedis(t, port)
    const { limiter, logger } = await limiterOn(t, server.url, 3)
    assert.equal(limiter.backend, 'redis')
    for (let i = 0; i < 3; i++) assert.equal((await timedConsume(limiter, 'k')).allowed, true)
    assert.equal((await timedConsume(limiter, 'k')).allowed, false)

    await server.kill()
    // The in-process window starts empty, so 'k' has its budget again: proof it answers.
    const during: boolean[] = []
    for (let i = 0; i < 4; i++) during.push((await timedConsume(limiter, 'k')).allowed)
    assert.deepEqual(during, [true, true, true, false])
    assert.equal(limiter.backend, 'memory')
    // Reconnect attempts keep failing meanwhile; still one warning, and answers stay quick.
    for (let i = 0; i < 15; i++) {
      await timedConsume(limiter, 'other')
      await sleep(100)
    }
    assert.equal(logger.count('warn'), 1)

    const restarted = await privateRedis(t, port)
    assert.ok(await waitFor(() => limiter.backend === 'redis', 5_000), 'back on Redis within 5 s')
    // The restarted server has no data: a fresh budget there, while memory has none left.
    assert.deepEqual(await timedConsume(limiter, 'k'), { allowed: true, limit: 3, remaining: 2, resetSeconds: 60 })
    const raw = inspector(t, restarted.url)
    assert.equal(await raw.zcard(`${keyPrefix}k`), 1)
    assert.equal(logger.count('warn'), 1)
    assert.equal(logger.count('info'), 2, 'connected, then back')
  })

  test('unreachable at start: resolves within ~1 s in memory, switches once Redis appears', async (t) => {
    const port = await freePort()
    const { limiter, logger, startupMs } = await limiterOn(t, `redis://127.0.0.1:${port}`, 2)
    assert.ok(startupMs < 1_500, `createRateLimiter took ${Math.round(startupMs)} ms`)
    assert.equal(limiter.backend, 'memory')
    assert.equal((await timedConsume(limiter, 'k')).allowed, true)
    assert.equal((await timedConsume(limiter, 'k')).allowed, true)
    assert.equal((await timedConsume(limiter, 'k')).allowed, false)
    assert.equal(logger.count('warn'), 1)
    assert.equal(logger.count('info'), 0)

    await privateRedis(t, port)
    assert.ok(await waitFor(() => limiter.backend === 'redis', 5_000), 'on Redis within 5 s')
    assert.equal((await timedConsume(limiter, 'k')).remaining, 1)
    assert.equal(logger.count('info'), 1)
  })

  test('a server that accepts connections but never answers: nothing hangs', async (t) => {
    const sockets = new Set<Socket>()
    const silent = createServer((socket) => sockets.add(socket))
    silent.listen(0, '127.0.0.1')
    await once(silent, 'listening')
    t.after(() => {
      for (const socket of sockets) socket.destroy()
      silent.close()
    })
    const { port } = silent.address() as AddressInfo
    const { limiter, logger, startupMs } = await limiterOn(t, `redis://127.0.0.1:${port}`, 1)
    assert.ok(startupMs < 1_500, `createRateLimiter took ${Math.round(startupMs)} ms`)
    assert.equal(limiter.backend, 'memory')
    assert.equal((await timedConsume(limiter, 'k')).allowed, true)
    assert.equal((await timedConsume(limiter, 'k')).allowed, false)
    assert.equal(logger.count('warn'), 1)
    assert.ok(sockets.size > 0, 'the limiter did connect')
  })

  test('stalled (commands time out): answers in process, then tries Redis again', async (t) => {
    const server = await privateRedis(t, await freePort())
    const { limiter, logger } = await limiterOn(t, server.url, 1)
    const raw = inspector(t, server.url)
    assert.equal((await timedConsume(limiter, 'k')).allowed, true)
    assert.equal((await timedConsume(limiter, 'k')).allowed, false)

    await raw.client('PAUSE', 1_500, 'ALL')
    assert.equal((await timedConsume(limiter, 'k')).allowed, true, 'in-process window answered')
    assert.equal(limiter.backend, 'memory')
    // The connection never dropped: recovery comes from a trial decision once the pause ends.
    assert.ok(
      await waitFor(async () => {
        await timedConsume(limiter, 'probe')
        return limiter.backend === 'redis'
      }, 5_000),
      'back on Redis within 5 s',
    )
    assert.equal((await timedConsume(limiter, 'k')).allowed, false, 'Redis still holds the budget used before')
    assert.equal(logger.count('warn'), 1)
    assert.equal(logger.count('info'), 2)
  })
})
