import { and, eq, isNull } from 'drizzle-orm'
import type { Database } from '../../db/client.js'
import { defineQuery, run, runOne } from '../../db/query.js'
import { apiTokens, companies, users } from '../../db/schema.js'
import { asCompanyId, type Caller, type CompanyId } from '../../tenancy.js'

/** The caller a live token of an active user acts as, or undefined. */
export async function findCallerByTokenHash(db: Database, tokenHash: string): Promise<Caller | undefined> {
  const [row] = await db
    .select({
      tokenId: apiTokens.id,
      userId: apiTokens.userId,
      companyId: apiTokens.companyId,
      timezone: companies.timezone,
    })
    .from(apiTokens)
    .innerJoin(users, and(eq(users.companyId, apiTokens.companyId), eq(users.id, apiTokens.userId)))
    .innerJoin(companies, eq(companies.id, apiTokens.companyId))
    .where(and(eq(apiTokens.tokenHash, tokenHash), isNull(apiTokens.revokedAt), eq(users.active, true)))
    .limit(1)
  return row && { ...row, companyId: asCompanyId(row.companyId) }
}

export async function insertToken(
  db: Database,
  companyId: CompanyId,
  values: { userId: number; tokenHash: string; prefix: string; label?: string | null },
) {
  const [row] = await db.insert(apiTokens).values({ companyId, ...values }).returning()
  if (!row) throw new Error('insert returned no row')
  return row
}

export async function revokeTokenByHash(db: Database, tokenHash: string, at: Date) {
  const [row] = await db
    .update(apiTokens)
    .set({ revokedAt: at, updatedAt: at })
    .where(and(eq(apiTokens.tokenHash, tokenHash), isNull(apiTokens.revokedAt)))
    .returning()
  return row
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

export async function liveTokensOf(db: Database, companyId: CompanyId, userId: number): Promise<ListedToken[]> {
  return run(db, tokensOfUser, [companyId, userId])
}

// One live token of the user (the revoke confirmation), by primary key: another user's or
// a revoked one is not found.
const tokenOfUser = defineQuery<ListedToken>(
  'auth.tokenOfUser',
  `select ${LISTED_COLUMNS} from api_tokens
    where company_id = $1 and id = $2 and user_id = $3 and revoked_at is null`,
)

export async function liveTokenOf(db: Database, companyId: CompanyId, userId: number, id: number) {
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

export async function revokeTokenOf(db: Database, companyId: CompanyId, userId: number, id: number, at: Date) {
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

export async function recordTokenUses(db: Database, uses: { companyId: number; tokenId: number; at: Date }[]) {
  await run(db, touchTokens, [uses.map((u) => u.companyId), uses.map((u) => u.tokenId), uses.map((u) => u.at)])
}
