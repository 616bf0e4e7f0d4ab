// Exact list totals without counting rows per request: see the `counters` table.
import { sql } from 'drizzle-orm'
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

/** One adjustment of a counter row (the task counters' writes build lists of them). */
export interface CounterDelta {
  list: string
  key: number
  delta: number
}
