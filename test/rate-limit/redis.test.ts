// The Redis-backed limiter on the shared Redis (REDIS_URL), isolated by a unique key prefix.
import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { after, before, test } from 'node:test'
import { describeOrSkip } from '../helpers/suite.js'
import { Redis } from 'ioredis'
import { createRateLimiter, type RateLimitDecision, type RateLimiter } from '../../src/rate-limit/limiter.js'
import { recordingLogger, sleep } from './helpers.js'

const redisUrl = process.env.REDIS_URL
const prefix = `engage:rl:test:${randomUUID()}:`

describeOrSkip('Redis rate limiter', { skip: !redisUrl && 'REDIS_URL not set' }, () => {
  let raw: Redis
  const limiters: RateLimiter[] = []
  const limiter = async (max: number, windowMs: number): Promise<RateLimiter> => {
    const created = await createRateLimiter({ max, windowMs, redisUrl, keyPrefix: prefix, logger: recordingLogger() })
    limiters.push(created)
    assert.equal(created.backend, 'redis')
    return created
  }
  /** Redis's own clock in ms, the one the script uses. */
  const redisNow = async (): Promise<number> => {
    const [seconds, micros] = await raw.time()
    return Number(seconds) * 1000 + Math.floor(Number(micros) / 1000)
  }
  const seed = (key: string, scores: number[]) =>
    raw.zadd(prefix + key, ...scores.flatMap((score, i) => [score, `seed${i}`]))

  before(() => {
    raw = new Redis(redisUrl ?? '')
  })
  after(async () => {
    await Promise.all(limiters.map((l) => l.close()))
    const keys = await raw.keys(`${prefix}*`)
    if (keys.length > 0) await raw.del(...keys)
    await raw.quit()
  })

  test('two instances share one budget: 30 + 30 accepted, the next rejected on either', async () => {
    const a = await limiter(60, 10_000)
    const b = await limiter(60, 10_000)
    const remaining: number[] = []
    for (let i = 0; i < 30; i++) {
      for (const instance of [a, b]) {
        const decision = await instance.consume('shared')
        assert.equal(decision.allowed, true)
        remaining.push(decision.remaining)
      }
    }
    assert.deepEqual(remaining, Array.from({ length: 60 }, (_, i) => 59 - i))
    for (const instance of [a, b]) {
      const rejected = await instance.consume('shared')
      assert.equal(rejected.allowed, false)
      assert.equal(rejected.remaining, 0)
      assert.ok(rejected.resetSeconds >= 1 && rejected.resetSeconds <= 10, `resetSeconds ${rejected.resetSeconds}`)
    }
    assert.equal(await raw.zcard(`${prefix}shared`), 60, 'rejections are not recorded')
  })

  test('answers like the in-process window for the same history', async () => {
    const shared = await limiter(4, 10_000)
    let clock = 0
    const memory = await createRateLimiter({ max: 4, windowMs: 10_000, logger: recordingLogger(), now: () => clock })
    // The same accepted history, relative to "now": 10.5 s, 9.5 s, 5 s and 1 s ago.
    for (const ago of [10_500, 9_500, 5_000, 1_000]) {
      clock = 10_500 - ago
      await memory.consume('k')
    }
    clock = 10_500
    const now = await redisNow()
    await seed('history', [now - 10_500, now - 9_500, now - 5_000, now - 1_000])
    const expected: RateLimitDecision[] = [
      { allowed: true, limit: 4, remaining: 0, resetSeconds: 1 },
      { allowed: false, limit: 4, remaining: 0, resetSeconds: 1 },
    ]
    assert.deepEqual([await memory.consume('k'), await memory.consume('k')], expected)
    assert.deepEqual([await shared.consume('history'), await shared.consume('history')], expected)
    // The entry older than the window was dropped; the rejection was not recorded.
    assert.equal(await raw.zcard(`${prefix}history`), 4)
    await memory.close()
  })

  test('slots free exactly when the oldest leaves, one by one', async () => {
    const shared = await limiter(3, 10_000)
    const now = await redisNow()
    // Oldest leaves 400 ms from now, the next one 10 s later: only one slot frees.
    await seed('sliding', [now - 9_600, now, now])
    assert.equal((await shared.consume('sliding')).allowed, false)
    await sleep(450)
    assert.deepEqual(await shared.consume('sliding'), { allowed: true, limit: 3, remaining: 0, resetSeconds: 10 })
    assert.equal((await shared.consume('sliding')).allowed, false)
  })

  test('keys are independent and expire once idle for a window', async () => {
    const long = await limiter(1, 10_000)
    await long.consume('a')
    assert.equal((await long.consume('a')).allowed, false)
    assert.equal((await long.consume('b')).allowed, true)
    const ttl = await raw.pttl(`${prefix}a`)
    assert.ok(ttl > 9_000 && ttl <= 10_000, `PTTL ${ttl}`)

    const short = await limiter(5, 200)
    await short.consume('brief')
    assert.equal(await raw.exists(`${prefix}brief`), 1)
    await sleep(300)
    assert.equal(await raw.exists(`${prefix}brief`), 0)
  })

  test('concurrent decisions in the same millisecond are all recorded', async () => {
    const a = await limiter(100, 10_000)
    const b = await limiter(100, 10_000)
    const decisions = await Promise.all(Array.from({ length: 120 }, (_, i) => (i % 2 ? a : b).consume('burst')))
    assert.equal(decisions.filter((d) => d.allowed).length, 100)
    assert.equal(await raw.zcard(`${prefix}burst`), 100)
  })
})
