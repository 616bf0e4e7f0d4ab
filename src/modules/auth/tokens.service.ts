// api tokens: random, prefixed, shown once; only a SHA-256 hash is stored. A slow hash
// buys nothing for 192 random bits, and a fast one keeps the lookup cheap.
import { createHash, randomBytes } from 'node:crypto'
import { transaction, type Db } from '../../db/db.js'
import { ApiError, invalid, notFound } from '../../errors.js'
import { isStorableText } from '../../http/validation.js'
import { findUserAnyCompany } from '../users/index.js'
import type { Acting, AuditContext } from '../../acting.js'
import { recordAudit } from '../audit/index.js'
import { asCompanyId, type Caller, type CompanyId, type TokenHolder } from '../../tenancy.js'
import { grantsOf, isScope, normalizeScopes, type Scope } from '../../scopes.js'
import { announceRevoked } from '../../revocations.js'
import * as apiTokens from '../api-tokens/index.js'

export const TOKEN_PREFIX = 'eng_'
export const LABEL_MAX_LENGTH = 255

export const hashToken = (token: string) => createHash('sha256').update(token).digest('hex')

export function generateToken(): string {
  return TOKEN_PREFIX + randomBytes(24).toString('base64url')
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

/** The longest a token may live; without an expiry it lives until revoked. */
export const MAX_EXPIRY_DAYS = 365
const DAY_MS = 24 * 60 * 60_000

/** What a new token may do and until when (docs/access-control.md). */
export interface TokenChoice {
  /** The scopes; undefined: full access (the default). */
  scopes?: readonly Scope[] | undefined
  /** Days until it expires, 1..365; undefined: never. */
  expiresInDays?: number | undefined
}

/**
 * A comma-separated list of scopes (`contacts:read,tasks:write`), as the admin command line
 * takes it: each must be in the catalogue, at least one.
 */
export function parseScopes(text: string): Scope[] {
  const names = text.split(',').map((name) => name.trim()).filter((name) => name !== '')
  const unknown = names.filter((name) => !isScope(name))
  if (unknown.length > 0) throw invalid({ scopes: [`has unknown scopes: ${unknown.join(', ')} (see docs/access-control.md)`] })
  if (names.length === 0) throw invalid({ scopes: ["can't be blank"] })
  return names as Scope[]
}

function expiryOf(days: number | undefined, now: Date): Date | null {
  if (days === undefined) return null
  if (!Number.isInteger(days) || days < 1 || days > MAX_EXPIRY_DAYS) {
    throw invalid({ expires_in_days: [`must be a whole number of days from 1 to ${String(MAX_EXPIRY_DAYS)}`] })
  }
  return new Date(now.getTime() + days * DAY_MS)
}

/** How an audit record names a token: its label, else its first characters. */
const tokenLabel = (token: { label: string | null; prefix: string }) => token.label ?? `${token.prefix}…`

const shown = (row: apiTokens.TokenRow) => ({
  id: row.id,
  user_id: row.user_id,
  company_id: row.company_id,
  prefix: row.prefix,
  label: row.label,
  scopes: row.scopes ?? ['*'],
  expires_at: row.expires_at,
  created_at: row.created_at,
})

async function issueToken(db: Db, companyId: CompanyId, userId: number, label: string | null, choice: TokenChoice, context: AuditContext, now: Date) {
  const expiresAt = expiryOf(choice.expiresInDays, now)
  if (choice.scopes !== undefined && choice.scopes.length === 0) throw invalid({ scopes: ["can't be blank"] })
  const scopes = choice.scopes === undefined ? null : normalizeScopes(choice.scopes)
  const token = generateToken()
  const row = await transaction(db, async (tx) => {
    const inserted = await apiTokens.insertToken(tx, companyId, { userId, tokenHash: hashToken(token), prefix: token.slice(0, 12), label, scopes, expiresAt })
    await recordAudit(tx, companyId, context, {
      action: 'api_token.created',
      target: { id: inserted.id, label: tokenLabel(inserted) },
      changes: { user_id: [null, userId], label: [null, label], scopes: [null, scopes ?? ['*']], expires_at: [null, expiresAt?.toISOString() ?? null] },
    })
    return inserted
  })
  return { token, ...shown(row) }
}

/** Admin command line and demo data: a token for any user (full access and no expiry unless chosen). */
export async function createToken(db: Db, acting: Acting, userId: number, choice: TokenChoice = {}) {
  const user = await findUserAnyCompany(db, userId)
  if (!user) throw new ApiError(404, `user ${String(userId)} not found`)
  return issueToken(db, asCompanyId(user.company_id), user.id, null, choice, acting.audit, acting.now)
}

/** The web application: a token for the signed-in user, with an optional label, scopes and expiry. */
export async function createOwnToken(
  db: Db,
  acting: Pick<Caller, 'companyId' | 'userId'> & Acting,
  label: string | undefined,
  choice: TokenChoice = {},
) {
  return issueToken(db, acting.companyId, acting.userId, checkLabel(label), choice, acting.audit, acting.now)
}

/** The caller a live token of an active user acts as, expired or not (the auth plugin checks the expiry). */
export async function findCaller(db: Db, tokenHash: string): Promise<TokenHolder | undefined> {
  const row = await apiTokens.findTokenCaller(db, tokenHash)
  if (!row) return undefined
  return {
    tokenId: row.token_id,
    userId: row.user_id,
    companyId: asCompanyId(row.company_id),
    timezone: row.timezone,
    role: row.role,
    access: {
      kind: row.grant_id === null ? 'personal' : 'oauth',
      scopes: row.scopes,
      grants: row.scopes && grantsOf(row.scopes),
      expiresAt: row.expires_at,
      app: row.app_id === null ? null : { id: row.app_id, name: row.app_name ?? '' },
      grantId: row.grant_id,
    },
  }
}

export async function listOwnTokens(db: Db, companyId: CompanyId, userId: number): Promise<apiTokens.ListedTokenRecord[]> {
  return apiTokens.liveTokensOf(db, companyId, userId)
}

/** One live token of the user; another user's, a revoked or an unknown one is 404. */
export async function findOwnToken(db: Db, companyId: CompanyId, userId: number, id: number) {
  const token = await apiTokens.liveTokenOf(db, companyId, userId, id)
  if (!token) throw notFound()
  return token
}

/** Revokes one of the user's live tokens; every server forgets it at once. Another user's is 404. */
export async function revokeOwnToken(db: Db, acting: Pick<Caller, 'companyId' | 'userId'> & Acting, id: number) {
  return revokeRecorded(db, acting, (tx) => apiTokens.revokeTokenOf(tx, acting.companyId, acting.userId, id, acting.now))
}

/**
 * A revocation in one transaction with its announcement (every server forgets the token) and
 * its audit record; 404 when no live token matched.
 */
async function revokeRecorded<Row extends { id: number; token_hash: string; label: string | null; prefix: string }>(
  db: Db,
  acting: Pick<Caller, 'companyId'> & Acting,
  revoke: (tx: Db) => Promise<Row | undefined>,
) {
  const row = await transaction(db, async (tx) => {
    const revoked = await revoke(tx)
    if (revoked) {
      await announceRevoked(tx, revoked.token_hash)
      await recordAudit(tx, acting.companyId, acting.audit, { action: 'api_token.revoked', target: { id: revoked.id, label: tokenLabel(revoked) } }, acting.now)
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
  if (!user) throw new ApiError(404, `user ${String(userId)} not found`)
  return { data: await apiTokens.liveTokensOf(db, asCompanyId(user.company_id), user.id) }
}

export async function revokeToken(db: Db, acting: Acting, token: string) {
  const { now, audit: context } = acting
  const tokenHash = hashToken(token)
  const row = await transaction(db, async (tx) => {
    const revoked = await apiTokens.revokeTokenByHash(tx, tokenHash, now)
    if (revoked) {
      await announceRevoked(tx, tokenHash)
      await recordAudit(tx, asCompanyId(revoked.company_id), context, { action: 'api_token.revoked', target: { id: revoked.id, label: tokenLabel(revoked) } }, now)
    }
    return revoked
  })
  if (!row) throw new ApiError(404, 'token not found or already revoked')
  return { id: row.id, user_id: row.user_id, company_id: row.company_id, prefix: row.prefix, revoked_at: row.revoked_at }
}

/** "Tokens of this company" (admins): every live token of every user of the company. */
export async function listCompanyTokens(db: Db, companyId: CompanyId) {
  return apiTokens.liveTokensOfCompany(db, companyId)
}

/** One live token of the company; a revoked one or another company's is 404. */
export async function findCompanyToken(db: Db, companyId: CompanyId, id: number) {
  const token = await apiTokens.liveTokenOfCompany(db, companyId, id)
  if (!token) throw notFound()
  return token
}

/** An admin revokes any live token of the company; every server forgets it at once. */
export async function revokeCompanyTokenById(db: Db, acting: Pick<Caller, 'companyId'> & Acting, id: number) {
  return revokeRecorded(db, acting, (tx) => apiTokens.revokeCompanyToken(tx, acting.companyId, id, acting.now))
}

/**
 * The first refusal of an expired token, recorded once whatever the number of requests and
 * instances (`api_token.use_refused`, reason `expired`): the guard column and the record in
 * one transaction. Answers whether this call recorded it.
 */
export async function recordExpiredRefusal(db: Db, caller: Pick<Caller, 'companyId' | 'tokenId'> & Acting): Promise<boolean> {
  const { now, audit: context } = caller
  return transaction(db, async (tx) => {
    const marked = await apiTokens.markTokenExpiryRefusal(tx, caller.companyId, caller.tokenId, now)
    if (!marked) return false
    await recordAudit(tx, caller.companyId, context, { action: 'api_token.use_refused', target: { id: marked.id, label: marked.label }, failure: 'expired' }, now)
    return true
  })
}
