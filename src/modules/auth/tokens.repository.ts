import type { Db } from '../../db/db.js'
import { defineQuery, run, runOne } from '../../db/query.js'
import type { apiTokens } from '../../db/schema.js'
import { asCompanyId, type Caller, type CompanyId } from '../../tenancy.js'

type TokenRow = typeof apiTokens.$inferSelect

// The api_tokens row with the schema's (camelCase) names.
const TOKEN_ROW = `company_id as "companyId", id, user_id as "userId", token_hash as "tokenHash", prefix, label,
                   last_used_at as "lastUsedAt", revoked_at as "revokedAt", created_at as "createdAt", updated_at as "updatedAt"`

// Every request with a token not cached yet: the token by api_tokens_token_hash_key, its
// user and company by primary key.
const callerByTokenHash = defineQuery<{ tokenId: number; userId: number; companyId: number; timezone: string }>(
  'auth.callerByTokenHash',
  `select t.id as "tokenId", t.user_id as "userId", t.company_id as "companyId", c.timezone
     from api_tokens t
     join users u on u.company_id = t.company_id and u.id = t.user_id
     join companies c on c.id = t.company_id
    where t.token_hash = $1 and t.revoked_at is null and u.active = true
    limit 1`,
)

/** The caller a live token of an active user acts as, or undefined. */
export async function findCallerByTokenHash(db: Db, tokenHash: string): Promise<Caller | undefined> {
  const row = await runOne(db, callerByTokenHash, [tokenHash])
  return row && { ...row, companyId: asCompanyId(row.companyId) }
}

const insertTokenStatement = defineQuery<TokenRow>(
  'auth.insertToken',
  `insert into api_tokens (company_id, user_id, token_hash, prefix, label)
   values ($1, $2, $3, $4, $5)
   returning ${TOKEN_ROW}`,
)

export async function insertToken(
  db: Db,
  companyId: CompanyId,
  values: { userId: number; tokenHash: string; prefix: string; label?: string | null },
) {
  const row = await runOne(db, insertTokenStatement, [companyId, values.userId, values.tokenHash, values.prefix, values.label ?? null])
  if (!row) throw new Error('insert returned no row')
  return row
}

// By api_tokens_token_hash_key.
const revokeByHash = defineQuery<TokenRow>(
  'auth.revokeByHash',
  `update api_tokens set revoked_at = $2, updated_at = $2
    where token_hash = $1 and revoked_at is null
    returning ${TOKEN_ROW}`,
)

export async function revokeTokenByHash(db: Db, tokenHash: string, at: Date) {
  return runOne(db, revokeByHash, [tokenHash, at])
}

/** A live token as its holder sees it: never the token itself, only its first characters. */
export interface ListedToken {
  id: number
  label: string | null
  prefix: string
  created_at: Date
  last_used_at: Date | null
}

const LISTED_COLUMNS = 'id, label, prefix, created_at, last_used_at'

// The web page and `token list`: a user's live tokens, from api_tokens_company_user_idx.
const tokensOfUser = defineQuery<ListedToken>(
  'auth.tokensOfUser',
  `select ${LISTED_COLUMNS} from api_tokens
    where company_id = $1 and user_id = $2 and revoked_at is null
    order by id`,
)

export async function liveTokensOf(db: Db, companyId: CompanyId, userId: number): Promise<ListedToken[]> {
  return run(db, tokensOfUser, [companyId, userId])
}

// One live token of the user (the revoke confirmation), by primary key: another user's or
// a revoked one is not found.
const tokenOfUser = defineQuery<ListedToken>(
  'auth.tokenOfUser',
  `select ${LISTED_COLUMNS} from api_tokens
    where company_id = $1 and id = $2 and user_id = $3 and revoked_at is null`,
)

export async function liveTokenOf(db: Db, companyId: CompanyId, userId: number, id: number) {
  return runOne(db, tokenOfUser, [companyId, id, userId])
}

// Revoke by id, only the user's own live token (primary key); the hash is returned so the
// revocation can be announced to every server's cache.
const revokeOfUser = defineQuery<ListedToken & { token_hash: string }>(
  'auth.revokeOfUser',
  `update api_tokens set revoked_at = $4, updated_at = $4
    where company_id = $1 and id = $2 and user_id = $3 and revoked_at is null
    returning ${LISTED_COLUMNS}, token_hash`,
)

export async function revokeTokenOf(db: Db, companyId: CompanyId, userId: number, id: number, at: Date) {
  return runOne(db, revokeOfUser, [companyId, id, userId, at])
}

// "Last used", written in one statement for every token used since the last flush (at most
// once a minute per process), by primary key. The condition skips a write when another
// instance recorded a use less than a minute before.
const touchTokens = defineQuery<never>(
  'auth.touchTokens',
  `update api_tokens t set last_used_at = u.at
     from unnest($1::bigint[], $2::bigint[], $3::timestamptz[]) as u(company_id, id, at)
    where t.company_id = u.company_id and t.id = u.id
      and (t.last_used_at is null or t.last_used_at < u.at - interval '1 minute')`,
)

export async function recordTokenUses(db: Db, uses: { companyId: number; tokenId: number; at: Date }[]) {
  await run(db, touchTokens, [uses.map((u) => u.companyId), uses.map((u) => u.tokenId), uses.map((u) => u.at)])
}
