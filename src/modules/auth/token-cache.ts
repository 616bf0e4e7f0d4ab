// Token → caller, kept in process so a request does not cost a query for its token.
// Staleness is bounded by the TTL; a revocation or a user's deactivation is announced with
// NOTIFY and drops the entries at once (a renamed company's entry lives out its TTL).
import type { TokenHolder } from '../../tenancy.js'

export const TOKEN_CACHE_TTL_MS = 10_000
const MAX_ENTRIES = 10_000

export class TokenCache {
  private readonly entries = new Map<string, { caller: TokenHolder; expires: number }>()

  constructor(
    private readonly ttlMs = TOKEN_CACHE_TTL_MS,
    private readonly now: () => number = Date.now,
  ) {}

  get(tokenHash: string): TokenHolder | undefined {
    const entry = this.entries.get(tokenHash)
    if (!entry) return undefined
    if (entry.expires <= this.now()) {
      this.entries.delete(tokenHash)
      return undefined
    }
    return entry.caller
  }

  set(tokenHash: string, caller: TokenHolder): void {
    if (this.entries.size >= MAX_ENTRIES) {
      // Maps iterate in insertion order: drop the oldest entry.
      const oldest = this.entries.keys().next().value
      if (oldest !== undefined) this.entries.delete(oldest)
    }
    this.entries.set(tokenHash, { caller, expires: this.now() + this.ttlMs })
  }

  delete(tokenHash: string): void {
    this.entries.delete(tokenHash)
  }

  /** Forgets every token of a user (deactivated). User ids are unique across companies. */
  deleteUser(userId: number): void {
    for (const [tokenHash, entry] of this.entries) {
      if (entry.caller.userId === userId) this.entries.delete(tokenHash)
    }
  }

  /** Forgets every access token of an OAuth grant (revoked by its user, its app or reuse detection). */
  deleteGrant(grantId: number): void {
    for (const [tokenHash, entry] of this.entries) {
      if (entry.caller.access.grantId === grantId) this.entries.delete(tokenHash)
    }
  }

  clear(): void {
    this.entries.clear()
  }
}
