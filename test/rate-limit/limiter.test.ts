// The in-process limiter, with an injected clock: exact sliding-window semantics.
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { createRateLimiter, type RateLimitDecision, type RateLimiter } from '../../src/rate-limit/limiter.js'
import { SlidingWindow } from '../../src/rate-limit/sliding-window.js'
import { recordingLogger } from './helpers.js'

interface Clocked {
  limiter: RateLimiter
  at: (time: number) => void
}

async function memoryLimiter(max = 60, windowMs = 10_000): Promise<Clocked> {
  let time = 0
  const limiter = await createRateLimiter({ max, windowMs, logger: recordingLogger(), now: () => time })
  return {
    limiter,
    at: (t) => {
      time = t
    },
  }
}

const decision = (allowed: boolean, limit: number, remaining: number, resetSeconds: number): RateLimitDecision => ({
  allowed,
  limit,
  remaining,
  resetSeconds,
})

describe('in-process rate limiter', () => {
  test('defaults: 60 accepted, the 61st rejected with remaining 0 and a Retry-After ≥ 1', async () => {
    const { limiter } = await memoryLimiter()
    assert.equal(limiter.backend, 'memory')
    for (let i = 1; i <= 60; i++) {
      assert.deepEqual(await limiter.consume('k'), decision(true, 60, 60 - i, 10))
    }
    const rejected = await limiter.consume('k')
    assert.deepEqual(rejected, decision(false, 60, 0, 10))
    await limiter.close()
  })

  test('the window slides: slots free one by one exactly when the oldest request leaves', async () => {
    const { limiter, at } = await memoryLimiter()
    for (let i = 0; i < 60; i++) {
      at(i * 100)
      assert.equal((await limiter.consume('k')).allowed, true)
    }
    at(9_999)
    assert.deepEqual(await limiter.consume('k'), decision(false, 60, 0, 1))
    // At 10 000 the request of time 0 leaves (window is (t - 10 000, t]): exactly one slot.
    at(10_000)
    assert.deepEqual(await limiter.consume('k'), decision(true, 60, 0, 1))
    assert.deepEqual(await limiter.consume('k'), decision(false, 60, 0, 1))
    at(10_099)
    assert.equal((await limiter.consume('k')).allowed, false)
    at(10_100)
    assert.equal((await limiter.consume('k')).allowed, true)
    assert.equal((await limiter.consume('k')).allowed, false)
    // No burst at any edge: over the next window, one slot per 100 ms, never more.
    let accepted = 0
    for (let t = 10_101; t < 20_000; t += 10) {
      at(t)
      if ((await limiter.consume('k')).allowed) accepted++
    }
    assert.equal(accepted, 58)
    await limiter.close()
  })

  test('rejected requests do not use up the budget', async () => {
    const { limiter, at } = await memoryLimiter(2, 1_000)
    at(0)
    await limiter.consume('k')
    await limiter.consume('k')
    at(500)
    for (let i = 0; i < 100; i++) assert.equal((await limiter.consume('k')).allowed, false)
    at(1_000)
    assert.deepEqual(await limiter.consume('k'), decision(true, 2, 1, 1))
    assert.deepEqual(await limiter.consume('k'), decision(true, 2, 0, 1))
    assert.equal((await limiter.consume('k')).allowed, false)
    await limiter.close()
  })

  test('remaining counts the window ending now; resetSeconds is until the oldest leaves', async () => {
    const { limiter, at } = await memoryLimiter(5, 10_000)
    at(0)
    assert.deepEqual(await limiter.consume('k'), decision(true, 5, 4, 10))
    at(2_500)
    assert.deepEqual(await limiter.consume('k'), decision(true, 5, 3, 8)) // oldest frees in 7.5 s
    at(9_001)
    assert.deepEqual(await limiter.consume('k'), decision(true, 5, 2, 1)) // oldest frees in 0.999 s
    at(10_000)
    assert.deepEqual(await limiter.consume('k'), decision(true, 5, 2, 3)) // 0 left; 2 500 oldest
    at(30_000)
    assert.deepEqual(await limiter.consume('k'), decision(true, 5, 4, 10)) // all left
    await limiter.close()
  })

  test('keys are independent', async () => {
    const { limiter } = await memoryLimiter(3, 10_000)
    for (let i = 0; i < 3; i++) await limiter.consume('a')
    assert.equal((await limiter.consume('a')).allowed, false)
    assert.deepEqual(await limiter.consume('b'), decision(true, 3, 2, 10))
    assert.equal((await limiter.consume('a')).allowed, false)
    await limiter.close()
  })

  test('matches a brute-force model over random traffic (ring growth and wrap-around)', () => {
    let seed = 42 // mulberry32: reproducible traffic
    const random = () => {
      seed = (seed + 0x6d2b79f5) | 0
      let x = Math.imul(seed ^ (seed >>> 15), seed | 1)
      x ^= x + Math.imul(x ^ (x >>> 7), x | 61)
      return ((x ^ (x >>> 14)) >>> 0) / 4_294_967_296
    }
    for (let round = 0; round < 20; round++) {
      const max = 1 + Math.floor(random() * 40)
      const windowMs = 1 + Math.floor(random() * 2_000)
      const window = new SlidingWindow(max, windowMs)
      const accepted = new Map<string, number[]>()
      let time = 0
      for (let i = 0; i < 3_000; i++) {
        time += Math.floor(random() * (windowMs / 10 + 1))
        const key = `k${Math.floor(random() * 3)}`
        const inWindow = (accepted.get(key) ?? []).filter((t) => t > time - windowMs)
        const allowed = inWindow.length < max
        if (allowed) inWindow.push(time)
        accepted.set(key, inWindow)
        const oldest = inWindow[0]
        const expected = decision(
          allowed,
          max,
          max - inWindow.length,
          oldest === undefined ? 0 : Math.ceil((oldest + windowMs - time) / 1000),
        )
        assert.deepEqual(window.consume(key, time), expected, `round ${round}, step ${i}`)
      }
    }
  })

  test('idle keys are evicted once their newest request has left the window', () => {
    const window = new SlidingWindow(5, 10_000)
    for (let i = 0; i < 1_000; i++) window.consume(`idle${i}`, 0)
    window.consume('busy', 5_000)
    window.sweep(9_999)
    assert.equal(window.keyCount, 1_001)
    window.sweep(10_000)
    assert.equal(window.keyCount, 1)
    window.sweep(15_000)
    assert.equal(window.keyCount, 0)
    // An evicted key starts with its whole budget, as it would have anyway.
    assert.deepEqual(window.consume('idle0', 15_000), decision(true, 5, 4, 10))
  })

  // Measured on the window itself: under the test runner each await costs more than a decision.
  test('costs O(1) per decision, however large max is', () => {
    const window = new SlidingWindow(50_000, 10_000)
    const keys = Array.from({ length: 1_000 }, (_, i) => `key${i}`)
    const started = performance.now()
    // 'hot' is tried 8 times a millisecond, so it is full from 6.25 s on and then slides.
    let hot = window.consume('hot', 0)
    for (let i = 1; i < 200_000; i++) {
      hot = window.consume('hot', i >> 3)
      window.consume(keys[i % keys.length] ?? '', i >> 3)
    }
    const elapsed = performance.now() - started
    assert.equal(hot.remaining, 0)
    assert.equal(window.consume('hot', 199_999 >> 3).allowed, false)
    assert.ok(elapsed < 500, `400 000 decisions took ${Math.round(elapsed)} ms`)
  })

  test('rejects nonsensical options', async () => {
    const logger = recordingLogger()
    await assert.rejects(createRateLimiter({ max: 0, windowMs: 1_000, logger }), RangeError)
    await assert.rejects(createRateLimiter({ max: 1.5, windowMs: 1_000, logger }), RangeError)
    await assert.rejects(createRateLimiter({ max: 1, windowMs: 0, logger }), RangeError)
  })
})
