// "Last used" of api tokens without a database write per request: each authenticated
// request notes the time in memory (a Map write on the API path), and a timer writes the
// tokens used since the previous flush in one statement, once a minute. So a token costs at
// most one write per minute per process, and the statement itself skips tokens another
// instance recorded less than a minute before.
import type { Db } from '../../db/db.js'
import { recordTokenUses } from './tokens.repository.js'

export const LAST_USED_FLUSH_MS = 60_000

interface Use {
  companyId: number
  at: number
}

export class LastUsedTracker {
  private pending = new Map<number, Use>()
  private timer: NodeJS.Timeout | undefined

  constructor(
    private readonly db: Db,
    private readonly onError: (err: unknown) => void,
    private readonly now: () => number = Date.now,
  ) {}

  /** Notes a use of the token; written at the next flush. */
  touch(tokenId: number, companyId: number): void {
    const use = this.pending.get(tokenId)
    if (use) use.at = this.now()
    else this.pending.set(tokenId, { companyId, at: this.now() })
  }

  start(intervalMs = LAST_USED_FLUSH_MS): void {
    this.timer = setInterval(() => {
      this.flush().catch(this.onError)
    }, intervalMs)
    this.timer.unref()
  }

  /** Writes the uses noted since the last flush in one statement (a failed write is dropped: "last used" is a hint). */
  async flush(): Promise<void> {
    if (this.pending.size === 0) return
    const uses = [...this.pending].map(([tokenId, use]) => ({ tokenId, companyId: use.companyId, at: new Date(use.at) }))
    this.pending = new Map()
    await recordTokenUses(this.db, uses)
  }

  /** Stops the timer and writes what is pending. */
  async stop(): Promise<void> {
    clearInterval(this.timer)
    await this.flush()
  }
}
