import { and, eq, isNull } from 'drizzle-orm'
import type { Database } from '../../db/client.js'
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
  values: { userId: number; tokenHash: string; prefix: string },
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
