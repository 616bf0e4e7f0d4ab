// The shared sliding window: one sorted set per key (score = accept time in ms) decided by
// one Lua script, so check-and-add is atomic across every instance of the service. Time
// comes from Redis TIME inside the script, so instances with skewed clocks still agree.
import { randomBytes } from 'node:crypto'
import type { Redis, Result } from 'ioredis'
import type { RateLimitDecision } from './decision.js'
import { resetSecondsFrom } from './sliding-window.js'

// KEYS[1]: the key's sorted set. ARGV: max, windowMs, a member suffix unique to this call.
// Returns { allowed (0/1), accepted requests now in the window, ms until a slot frees }.
const SLIDING_WINDOW_LUA = `
local max = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
local count = redis.call('ZCARD', KEYS[1])
local allowed = 0
if count < max then
  redis.call('ZADD', KEYS[1], now, string.format('%d', now) .. ':' .. ARGV[3])
  -- The entry just added is the newest, so the set is idle (and gone) one window later.
  redis.call('PEXPIRE', KEYS[1], window)
  count = count + 1
  allowed = 1
end
local msUntilFree = 0
if count > 0 then
  msUntilFree = tonumber(redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')[2]) + window - now
end
return { allowed, count, msUntilFree }
`

const COMMAND = 'engageSlidingWindow'

declare module 'ioredis' {
  interface RedisCommander<Context> {
    engageSlidingWindow(
      key: string,
      max: number,
      windowMs: number,
      memberSuffix: string,
    ): Result<[allowed: number, count: number, msUntilFree: number], Context>
  }
}

export class RedisWindow {
  // Members must be unique even for two accepts in the same millisecond on many instances.
  readonly #instanceId = randomBytes(6).toString('base64url')
  #sequence = 0

  constructor(
    private readonly redis: Redis,
    readonly max: number,
    readonly windowMs: number,
    readonly keyPrefix: string,
  ) {
    // defineCommand sends EVALSHA, falling back to EVAL once per connection (NOSCRIPT).
    redis.defineCommand(COMMAND, { numberOfKeys: 1, lua: SLIDING_WINDOW_LUA })
  }

  async consume(key: string): Promise<RateLimitDecision> {
    const suffix = `${this.#instanceId}:${(this.#sequence++).toString(36)}`
    const [allowed, count, msUntilFree] = await this.redis.engageSlidingWindow(
      this.keyPrefix + key,
      this.max,
      this.windowMs,
      suffix,
    )
    return {
      allowed: allowed === 1,
      limit: this.max,
      remaining: Math.max(0, this.max - count),
      resetSeconds: resetSecondsFrom(msUntilFree),
    }
  }
}
