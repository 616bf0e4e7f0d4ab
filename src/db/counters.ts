// Exact list totals without counting rows per request: see the `counters` table.
import { and, eq, sql } from 'drizzle-orm'
import type { Database } from './client.js'
import { counters } from './schema.js'
import type { CompanyId } from '../tenancy.js'

/** Adds `delta` to a total; call it inside the transaction that adds or removes the rows. */
export async function adjustCounter(db: Database, companyId: CompanyId, list: string, key: number, delta: number) {
  if (delta === 0) return
  await db
    .insert(counters)
    .values({ companyId, list, key, value: delta })
    .onConflictDoUpdate({
      target: [counters.companyId, counters.list, counters.key],
      set: { value: sql`${counters.value} + ${delta}` },
    })
}

export async function readCounter(db: Database, companyId: CompanyId, list: string, key = 0): Promise<number> {
  const [row] = await db
    .select({ value: counters.value })
    .from(counters)
    .where(and(eq(counters.companyId, companyId), eq(counters.list, list), eq(counters.key, key)))
  return row?.value ?? 0
}
