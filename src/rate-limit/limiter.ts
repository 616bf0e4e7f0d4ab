// Rate limiting: at most `max` accepted requests per key in any window of `windowMs`
// (exact sliding window). With a Redis URL the windows are shared by every instance;
// while Redis does not answer, each instance falls back to its own in-process windows.
import { performance } from 'node:perf_hooks'
import { Redis } from 'ioredis'
import { RedisWindow } from './redis-window.js'
import { SlidingWindow } from './sliding-window.js'
import type { RateLimitDecision } from './decision.js'

export type { RateLimitDecision } from './decision.js'

export interface RateLimiterLogger {
  info(obj: object, msg: string): void
  warn(obj: object, msg: string): void
}

export interface RateLimiterOptions {
  max: number
  windowMs: number
  /** When set: shared state in Redis, in-process fallback. */
  redisUrl?: string | undefined
  /** Redis key prefix, default 'engage:rl:'. */
  keyPrefix?: string
  /** pino-compatible (obj, msg). */
  logger: RateLimiterLogger
  /** Clock for the in-process window (tests inject it); default Date.now. */
  now?: () => number
}

export interface RateLimiter {
  consume(key: string): Promise<RateLimitDecision>
  /** Which one answers right now (for /readyz-style reporting and tests). */
  readonly backend: 'memory' | 'redis'
  /** Quit Redis, clear timers. */
  close(): Promise<void>
}

const DEFAULT_KEY_PREFIX = 'engage:rl:'
// A decision must never wait long on Redis: past this it is answered in process.
const COMMAND_TIMEOUT_MS = 300
// Reconnect attempts, and trial decisions after Redis failed while still connected.
const RETRY_DELAY_MS = 1000
// How long createRateLimiter waits for the first connection before starting in memory.
const CONNECT_WAIT_MS = 1000

/** Resolves once Redis is connected, or failed to connect within ~1 s (then in memory, still retrying). */
export async function createRateLimiter(options: RateLimiterOptions): Promise<RateLimiter> {
  const { max, windowMs } = options
  if (!Number.isInteger(max) || max < 1) throw new RangeError(`rate limit max must be a whole number ≥ 1, got ${max}`)
  if (!Number.isFinite(windowMs) || windowMs <= 0) throw new RangeError(`rate limit windowMs must be > 0, got ${windowMs}`)
  const now = options.now ?? Date.now
  const memory = new SlidingWindow(max, windowMs)
  // Sweeping every window (within 1 s..1 min) keeps memory bounded by the keys active lately.
  const sweep = setInterval(() => {
    memory.sweep(now())
  }, Math.min(Math.max(windowMs, 1000), 60_000))
  sweep.unref()

  if (!options.redisUrl) {
    return {
      backend: 'memory',
      consume: (key) => Promise.resolve(memory.consume(key, now())),
      close: () => {
        clearInterval(sweep)
        return Promise.resolve()
      },
    }
  }
  const limiter = new RedisBackedLimiter(options.redisUrl, options, memory, now, sweep)
  await limiter.connected()
  return limiter
}

class RedisBackedLimiter implements RateLimiter {
  readonly #redis: Redis
  readonly #store: RedisWindow
  #state: 'connecting' | 'up' | 'down' = 'connecting'
  #closing = false
  // While down but connected (timeouts, server errors), one decision a second tries Redis.
  #nextTrialAt = 0

  constructor(
    redisUrl: string,
    private readonly options: RateLimiterOptions,
    private readonly memory: SlidingWindow,
    private readonly now: () => number,
    private readonly sweep: NodeJS.Timeout,
  ) {
    this.#redis = new Redis(redisUrl, {
      commandTimeout: COMMAND_TIMEOUT_MS,
      connectTimeout: CONNECT_WAIT_MS,
      // Fail at once while disconnected rather than queue: the fallback answers instead.
      enableOfflineQueue: false,
      // Commands in flight when the connection drops fail then and are never resent: a
      // resent decision would count a request that the fallback already answered.
      maxRetriesPerRequest: 0,
      autoResendUnfulfilledCommands: false,
      retryStrategy: () => RETRY_DELAY_MS,
      // close() while Redis is down leaves a timer this long holding the process open.
      disconnectTimeout: COMMAND_TIMEOUT_MS,
    })
    this.#store = new RedisWindow(this.#redis, options.max, options.windowMs, options.keyPrefix ?? DEFAULT_KEY_PREFIX)
    // Without an 'error' listener ioredis prints (or throws) on every failed reconnect;
    // here only the transitions are logged, once each.
    this.#redis.on('error', (err: Error) => {
      this.#markDown(err)
    })
    this.#redis.on('close', () => {
      this.#markDown(new Error('connection closed'))
    })
    this.#redis.on('ready', () => {
      this.#markUp()
    })
  }

  get backend(): 'memory' | 'redis' {
    return this.#state === 'up' ? 'redis' : 'memory'
  }

  connected(): Promise<void> {
    return new Promise((resolve) => {
      const settle = () => {
        clearTimeout(timer)
        this.#redis.off('ready', settle)
        this.#redis.off('error', settle)
        if (this.#state === 'connecting') this.#markDown(new Error(`no answer within ${CONNECT_WAIT_MS} ms`))
        resolve()
      }
      const timer = setTimeout(settle, CONNECT_WAIT_MS)
      this.#redis.once('ready', settle)
      this.#redis.once('error', settle)
    })
  }

  async consume(key: string): Promise<RateLimitDecision> {
    if (this.#shouldTryRedis()) {
      try {
        const decision = await this.#store.consume(key)
        this.#markUp()
        return decision
      } catch (err) {
        this.#markDown(err)
      }
    }
    return this.memory.consume(key, this.now())
  }

  async close(): Promise<void> {
    this.#closing = true
    clearInterval(this.sweep)
    if (this.#redis.status === 'ready') {
      try {
        await this.#redis.quit()
        return
      } catch {
        // QUIT timed out: drop the socket below instead.
      }
    }
    this.#redis.disconnect()
  }

  #shouldTryRedis(): boolean {
    if (this.#state === 'up') return true
    if (this.#redis.status !== 'ready' || performance.now() < this.#nextTrialAt) return false
    this.#nextTrialAt = performance.now() + RETRY_DELAY_MS
    return true
  }

  #markUp(): void {
    if (this.#state === 'up' || this.#closing) return
    this.#state = 'up'
    this.options.logger.info({ backend: 'redis' }, 'rate limiter: using Redis, limits shared by all instances')
  }

  #markDown(err: unknown): void {
    if (this.#state === 'down' || this.#closing) return
    this.#state = 'down'
    this.#nextTrialAt = performance.now() + RETRY_DELAY_MS
    this.options.logger.warn(
      { backend: 'memory', reason: err instanceof Error ? err.message : String(err) },
      'rate limiter: Redis unavailable, limiting in process until it is back',
    )
  }
}
