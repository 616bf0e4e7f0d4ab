// api tokens: random, prefixed, shown once; only a SHA-256 hash is stored. A slow hash
// buys nothing for 192 random bits, and a fast one keeps the lookup cheap.
import { createHash, randomBytes } from 'node:crypto'
import { sql } from 'drizzle-orm'
import type { Database } from '../../db/client.js'
import { ApiError } from '../../errors.js'
import { findUserAnyCompany } from '../users/users.repository.js'
import { asCompanyId } from '../../tenancy.js'
import { insertToken, revokeTokenByHash } from './tokens.repository.js'

export const TOKEN_PREFIX = 'eng_'
/** Channel on which revocations are announced, so every server drops its cached entry at once. */
export const REVOKE_CHANNEL = 'engage_token_revoked'

export const hashToken = (token: string) => createHash('sha256').update(token).digest('hex')

export function generateToken(): string {
  return TOKEN_PREFIX + randomBytes(24).toString('base64url')
}

export async function createToken(db: Database, userId: number) {
  const user = await findUserAnyCompany(db, userId)
  if (!user) throw new ApiError(404, `user ${userId} not found`)
  const token = generateToken()
  const row = await insertToken(db, asCompanyId(user.companyId), {
    userId: user.id,
    tokenHash: hashToken(token),
    prefix: token.slice(0, 12),
  })
  return {
    token,
    id: row.id,
    user_id: row.userId,
    company_id: row.companyId,
    prefix: row.prefix,
    created_at: row.createdAt,
  }
}

export async function revokeToken(db: Database, token: string, now = new Date()) {
  const tokenHash = hashToken(token)
  const row = await db.transaction(async (tx) => {
    const revoked = await revokeTokenByHash(tx, tokenHash, now)
    if (revoked) await tx.execute(sql`select pg_notify(${REVOKE_CHANNEL}, ${tokenHash})`)
    return revoked
  })
  if (!row) throw new ApiError(404, 'token not found or already revoked')
  return { id: row.id, user_id: row.userId, company_id: row.companyId, prefix: row.prefix, revoked_at: row.revokedAt }
}
