// Read-your-writes across instances (src/db/replica.ts): with REDIS_URL, the primary's WAL
// position after a token's write is recorded in Redis too, so whichever instance the token's
// next request reaches (a balancer's round robin) waits for the replica to have replayed it,
// or reads the primary. One GET per API request, only with a replica and Redis both set.
//
// When Redis cannot say (down, slow, or just back and possibly empty after a restart, so a
// position recorded elsewhere may be missing), this instance reads the primary: while Redis
// is away, and for `unsureMs` after it answers again (long enough for a replica within its
// lag bound to have replayed every write acknowledged before).
import { Redis } from 'ioredis'

const COMMAND_TIMEOUT_MS = 300
const RETRY_DELAY_MS = 1000

// Keeps the highest position (16 hex digits compare as text), and the key alive.
const RECORD_SCRIPT = `
local current = redis.call('GET', KEYS[1])
if not current or current < ARGV[1] then
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
else
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
return 1`

/** Past any WAL position: a read that must wait for it goes to the primary. */
export const UNKNOWN_POSITION = 1n << 64n

export interface SharedWritesOptions {
  url: string
  /** Key namespace (tests isolate with it). */
  keyPrefix: string
  /** After Redis failed or came back, how long reads stay on the primary. */
  unsureMs: number
  /** How long a recorded position is kept (it only matters until replayed). */
  ttlMs: number
  onError: (err: Error) => void
}

export class SharedWrites {
  private readonly redis: Redis
  /** Until then (performance.now()), Redis cannot be trusted to hold every instance's writes. */
  private unsureUntil = Number.POSITIVE_INFINITY
  private failing = false

  constructor(private readonly options: SharedWritesOptions) {
    this.redis = new Redis(options.url, {
      commandTimeout: COMMAND_TIMEOUT_MS,
      connectTimeout: 1000,
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      retryStrategy: () => RETRY_DELAY_MS,
      disconnectTimeout: COMMAND_TIMEOUT_MS,
    })
    this.redis.defineCommand('recordWrite', { numberOfKeys: 1, lua: RECORD_SCRIPT })
    const away = (err: Error) => {
      this.unsureUntil = Number.POSITIVE_INFINITY
      this.fail(err)
    }
    this.redis.on('error', away)
    this.redis.on('close', () => {
      away(new Error('Redis connection closed'))
    })
    this.redis.on('ready', () => {
      this.unsureUntil = performance.now() + options.unsureMs
      this.failing = false
    })
  }

  private key(tokenId: number): string {
    return `${this.options.keyPrefix}${tokenId}`
  }

  private fail(err: Error): void {
    if (!this.failing) this.options.onError(err)
    this.failing = true
  }

  /** The token wrote up to `lsn`: every instance's reads for it wait for that position. */
  async record(tokenId: number, lsn: bigint): Promise<void> {
    try {
      const redis = this.redis as Redis & { recordWrite(key: string, lsn: string, ttl: number): Promise<number> }
      await redis.recordWrite(this.key(tokenId), lsn.toString(16).padStart(16, '0'), this.options.ttlMs)
    } catch (err) {
      // Another instance may read the replica without knowing of this write: none of ours
      // may, and the others learn it from their own failures (Redis is the same for all).
      this.unsureUntil = Math.max(this.unsureUntil, performance.now() + this.options.unsureMs)
      this.fail(err as Error)
    }
  }

  /** The token's last write position recorded by any instance: 0 none, UNKNOWN_POSITION when Redis cannot say. */
  async lastWrite(tokenId: number): Promise<bigint> {
    if (performance.now() < this.unsureUntil) return UNKNOWN_POSITION
    try {
      const value = await this.redis.get(this.key(tokenId))
      return value === null ? 0n : BigInt(`0x${value}`)
    } catch (err) {
      this.unsureUntil = Math.max(this.unsureUntil, performance.now() + this.options.unsureMs)
      this.fail(err as Error)
      return UNKNOWN_POSITION
    }
  }

  async close(): Promise<void> {
    if (this.redis.status === 'ready') {
      try {
        await this.redis.quit()
        return
      } catch {
        // QUIT timed out: drop the socket below.
      }
    }
    this.redis.disconnect()
  }
}
