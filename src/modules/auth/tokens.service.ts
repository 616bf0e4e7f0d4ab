// api tokens: random, prefixed, shown once; only a SHA-256 hash is stored. A slow hash
// buys nothing for 192 random bits, and a fast one keeps the lookup cheap.
import { createHash, randomBytes } from 'node:crypto'
import { transaction, type Db } from '../../db/db.js'
import { defineQuery, run } from '../../db/query.js'
import { ApiError, invalid, notFound } from '../../errors.js'
import { isStorableText } from '../../http/validation.js'
import { findUserAnyCompany } from '../users/users.repository.js'
import { SYSTEM_CONTEXT, type AuditContext } from '../audit/audit.context.js'
import { recordAudit } from '../audit/audit.service.js'
import { asCompanyId, type CompanyId } from '../../tenancy.js'
import { insertToken, liveTokenOf, liveTokensOf, revokeTokenByHash, revokeTokenOf, type ListedToken } from './tokens.repository.js'

export const TOKEN_PREFIX = 'eng_'
/**
 * Channel on which revocations are announced, so every server drops its cached entries at
 * once: the payload is a token's hash, or `user:<id>` for every token of a deactivated user.
 */
export const REVOKE_CHANNEL = 'engage_token_revoked'
const USER_PAYLOAD = /^user:(\d+)$/

export const LABEL_MAX_LENGTH = 255

export const hashToken = (token: string) => createHash('sha256').update(token).digest('hex')

export function generateToken(): string {
  return TOKEN_PREFIX + randomBytes(24).toString('base64url')
}

const announce = defineQuery<never>('auth.announce', 'select pg_notify($1, $2)')

/** Tells every server (LISTEN on REVOKE_CHANNEL) to forget the token; sent when the transaction commits. */
async function announceRevoked(db: Db, tokenHash: string) {
  await run(db, announce, [REVOKE_CHANNEL, tokenHash])
}

/** Tells every server to forget every cached token of the user (deactivated). */
export async function announceUserRevoked(db: Db, userId: number) {
  await run(db, announce, [REVOKE_CHANNEL, `user:${String(userId)}`])
}

/** What a REVOKE_CHANNEL payload asks to forget. */
export function parseRevocation(payload: string): { userId: number } | { tokenHash: string } {
  const user = USER_PAYLOAD.exec(payload)
  return user ? { userId: Number(user[1]) } : { tokenHash: payload }
}

/** A label as its holder typed it: optional, at most 255 characters, no control characters. */
export function checkLabel(label: string | undefined): string | null {
  const trimmed = label?.trim() ?? ''
  if (trimmed === '') return null
  if (!isStorableText(trimmed) || /\p{Cc}/u.test(trimmed)) throw invalid({ label: ['contains control characters'] })
  if (Array.from(trimmed).length > LABEL_MAX_LENGTH) {
    throw invalid({ label: [`is too long (maximum is ${String(LABEL_MAX_LENGTH)} characters)`] })
  }
  return trimmed
}

/** How an audit record names a token: its label, else its first characters. */
const tokenLabel = (token: { label: string | null; prefix: string }) => token.label ?? `${token.prefix}…`

async function issueToken(db: Db, companyId: CompanyId, userId: number, label: string | null, context: AuditContext) {
  const token = generateToken()
  const row = await transaction(db, async (tx) => {
    const inserted = await insertToken(tx, companyId, { userId, tokenHash: hashToken(token), prefix: token.slice(0, 12), label })
    await recordAudit(tx, companyId, context, {
      action: 'api_token.created',
      target: { id: inserted.id, label: tokenLabel(inserted) },
      changes: { user_id: [null, userId], label: [null, label] },
    })
    return inserted
  })
  return {
    token,
    id: row.id,
    user_id: row.userId,
    company_id: row.companyId,
    prefix: row.prefix,
    label: row.label,
    created_at: row.createdAt,
  }
}

/** Admin command line and demo data: a token for any user. */
export async function createToken(db: Db, userId: number, context: AuditContext = SYSTEM_CONTEXT) {
  const user = await findUserAnyCompany(db, userId)
  if (!user) throw new ApiError(404, `user ${userId} not found`)
  return issueToken(db, asCompanyId(user.companyId), user.id, null, context)
}

/** The web application: a token for the signed-in user, with an optional label. */
export async function createOwnToken(db: Db, companyId: CompanyId, userId: number, label: string | undefined, context: AuditContext = SYSTEM_CONTEXT) {
  return issueToken(db, companyId, userId, checkLabel(label), context)
}

export async function listOwnTokens(db: Db, companyId: CompanyId, userId: number): Promise<ListedToken[]> {
  return liveTokensOf(db, companyId, userId)
}

/** One live token of the user; another user's, a revoked or an unknown one is 404. */
export async function findOwnToken(db: Db, companyId: CompanyId, userId: number, id: number) {
  const token = await liveTokenOf(db, companyId, userId, id)
  if (!token) throw notFound()
  return token
}

/** Revokes one of the user's live tokens; every server forgets it at once. Another user's is 404. */
export async function revokeOwnToken(db: Db, companyId: CompanyId, userId: number, id: number, now: Date, context: AuditContext = SYSTEM_CONTEXT) {
  const row = await transaction(db, async (tx) => {
    const revoked = await revokeTokenOf(tx, companyId, userId, id, now)
    if (revoked) {
      await announceRevoked(tx, revoked.token_hash)
      await recordAudit(tx, companyId, context, { action: 'api_token.revoked', target: { id: revoked.id, label: tokenLabel(revoked) } }, now)
    }
    return revoked
  })
  if (!row) throw notFound()
  const { token_hash: _, ...token } = row
  return token
}

/** `token list`: a user's live tokens, never the tokens themselves. */
export async function listTokensOfUser(db: Db, userId: number) {
  const user = await findUserAnyCompany(db, userId)
  if (!user) throw new ApiError(404, `user ${userId} not found`)
  return { data: await liveTokensOf(db, asCompanyId(user.companyId), user.id) }
}

export async function revokeToken(db: Db, token: string, now = new Date(), context: AuditContext = SYSTEM_CONTEXT) {
  const tokenHash = hashToken(token)
  const row = await transaction(db, async (tx) => {
    const revoked = await revokeTokenByHash(tx, tokenHash, now)
    if (revoked) {
      await announceRevoked(tx, tokenHash)
      await recordAudit(tx, asCompanyId(revoked.companyId), context, { action: 'api_token.revoked', target: { id: revoked.id, label: tokenLabel(revoked) } }, now)
    }
    return revoked
  })
  if (!row) throw new ApiError(404, 'token not found or already revoked')
  return { id: row.id, user_id: row.userId, company_id: row.companyId, prefix: row.prefix, revoked_at: row.revokedAt }
}
