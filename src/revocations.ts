// Revocations announced to every server's token cache (NOTIFY on REVOKE_CHANNEL, in the
// transaction that revokes): below the modules, since both auth (tokens, deactivated users)
// and oauth (grants) announce theirs, and the auth plugin listens.
import type { Db } from './db/db.js'
import { defineQuery, run } from './db/query.js'

/**
 * Channel on which revocations are announced, so every server drops its cached entries at
 * once: the payload is a token's hash, `user:<id>` for every token of a deactivated user, or
 * `grant:<id>` for every access token of a revoked OAuth grant.
 */
export const REVOKE_CHANNEL = 'engage_token_revoked'
const USER_PAYLOAD = /^user:(\d+)$/
const GRANT_PAYLOAD = /^grant:(\d+)$/

const announce = defineQuery<never>('auth.announce', 'select pg_notify($1, $2)')

/** Tells every server (LISTEN on REVOKE_CHANNEL) to forget the token; sent when the transaction commits. */
export async function announceRevoked(db: Db, tokenHash: string) {
  await run(db, announce, [REVOKE_CHANNEL, tokenHash])
}

/** Tells every server to forget every cached token of the user (deactivated). */
export async function announceUserRevoked(db: Db, userId: number) {
  await run(db, announce, [REVOKE_CHANNEL, `user:${String(userId)}`])
}

/** Tells every server to forget every cached access token of an OAuth grant (revoked). */
export async function announceGrantRevoked(db: Db, grantId: number) {
  await run(db, announce, [REVOKE_CHANNEL, `grant:${String(grantId)}`])
}

/** What a REVOKE_CHANNEL payload asks to forget. */
export function parseRevocation(payload: string): { userId: number } | { grantId: number } | { tokenHash: string } {
  const user = USER_PAYLOAD.exec(payload)
  if (user) return { userId: Number(user[1]) }
  const grant = GRANT_PAYLOAD.exec(payload)
  return grant ? { grantId: Number(grant[1]) } : { tokenHash: payload }
}
