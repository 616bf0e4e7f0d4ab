// "Last used" of api tokens, and the client addresses they are used from, without a database
// write per request: each authenticated request notes the time and its address in memory (Map
// writes on the API path), and a timer writes the tokens used since the previous flush in one
// statement, once a minute. So a token costs at most one write per minute per process, and
// the statement itself skips tokens another instance recorded less than a minute before.
// An address not seen for a token in 30 days is recorded in the audit log
// (`api_token.used_from_new_address`, with the address, user agent and request id of the
// first request from it since the previous flush), in the flush's transaction.
import { transaction, type Db } from '../../db/db.js'
import { asCompanyId } from '../../tenancy.js'
import type { Origin } from '../../acting.js'
import { recordAudit } from '../audit/index.js'
import { recordTokenUses } from '../api-tokens/index.js'

export const LAST_USED_FLUSH_MS = 60_000
/** Addresses noted per token between two flushes at most (the first ones are kept). */
export const ADDRESSES_PER_FLUSH = 100

/** The first request from an address since the previous flush. */
interface AddressUse {
  at: number
  userAgent: string | null
  requestId: string | null
}

interface Use {
  companyId: number
  at: number
  addresses: Map<string, AddressUse>
}

export class LastUsedTracker {
  private pending = new Map<number, Use>()
  private timer: NodeJS.Timeout | undefined

  constructor(
    private readonly db: Db,
    private readonly onError: (err: unknown) => void,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * Notes a use of the token from the address `ip` (when known); written at the next flush.
   * `origin` is asked only for the first use from an address between two flushes.
   */
  touch(tokenId: number, companyId: number, ip?: string, origin?: () => Origin): void {
    const at = this.now()
    let use = this.pending.get(tokenId)
    if (use) use.at = at
    else {
      use = { companyId, at, addresses: new Map() }
      this.pending.set(tokenId, use)
    }
    if (ip && !use.addresses.has(ip) && use.addresses.size < ADDRESSES_PER_FLUSH) {
      const from = origin?.()
      use.addresses.set(ip, { at, userAgent: from?.userAgent ?? null, requestId: from?.requestId ?? null })
    }
  }

  start(intervalMs = LAST_USED_FLUSH_MS): void {
    this.timer = setInterval(() => {
      this.flush().catch(this.onError)
    }, intervalMs)
    this.timer.unref()
  }

  /**
   * Writes the uses noted since the last flush in one statement, and the audit records of the
   * addresses it found new, in one transaction (a failed write is dropped: "last used" is a hint).
   */
  async flush(): Promise<void> {
    if (this.pending.size === 0) return
    const pending = [...this.pending]
    this.pending = new Map()
    const uses = pending.map(([tokenId, use]) => ({ tokenId, companyId: use.companyId, at: new Date(use.at) }))
    const addresses = pending.flatMap(([tokenId, use]) =>
      [...use.addresses].map(([ip, address]) => ({ ...address, tokenId, companyId: use.companyId, ip, at: new Date(address.at) })),
    )
    const byKey = new Map(addresses.map((address) => [`${String(address.tokenId)} ${address.ip}`, address]))
    await transaction(this.db, async (tx) => {
      const fresh = await recordTokenUses(tx, uses, addresses)
      for (const row of fresh) {
        const use = byKey.get(`${String(row.token_id)} ${row.ip}`)
        if (!use) continue
        await recordAudit(
          tx,
          asCompanyId(row.company_id),
          { actor: { type: 'api_token', id: row.token_id, label: null }, ip: row.ip, userAgent: use.userAgent, requestId: use.requestId },
          { action: 'api_token.used_from_new_address', target: { id: row.token_id, label: row.label } },
          use.at,
        )
      }
    })
  }

  /** Stops the timer and writes what is pending. */
  async stop(): Promise<void> {
    clearInterval(this.timer)
    await this.flush()
  }
}
