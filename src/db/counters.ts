// Exact list totals without counting rows per request: see the `counters` table.
import { and, eq, inArray, sql } from 'drizzle-orm'
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

export interface CounterDelta {
  list: string
  key: number
  delta: number
}

/**
 * Several adjustments in one statement: merged per row, and applied in (list, key) order so
 * that concurrent transactions lock the counter rows they share in the same order.
 */
export async function adjustCounters(db: Database, companyId: CompanyId, deltas: CounterDelta[]) {
  const merged = new Map<string, CounterDelta>()
  for (const d of deltas) {
    const id = `${d.list} ${d.key}`
    const row = merged.get(id)
    if (row) row.delta += d.delta
    else merged.set(id, { ...d })
  }
  const rows = [...merged.values()]
    .filter((d) => d.delta !== 0)
    .sort((a, b) => (a.list === b.list ? a.key - b.key : a.list < b.list ? -1 : 1))
  if (rows.length === 0) return
  await db
    .insert(counters)
    .values(rows.map((d) => ({ companyId, list: d.list, key: d.key, value: d.delta })))
    .onConflictDoUpdate({
      target: [counters.companyId, counters.list, counters.key],
      set: { value: sql`${counters.value} + excluded.value` },
    })
}

/** The values of one list for several keys (a key without a row is 0). */
export async function readCounters(db: Database, companyId: CompanyId, list: string, keys: number[]): Promise<Map<number, number>> {
  const values = new Map<number, number>()
  if (keys.length === 0) return values
  const rows = await db
    .select({ key: counters.key, value: counters.value })
    .from(counters)
    .where(and(eq(counters.companyId, companyId), eq(counters.list, list), inArray(counters.key, keys)))
  for (const row of rows) values.set(row.key, row.value)
  return values
}

/** Part of a total split by a yes/no property: every row, those with it, those without. */
export type SplitPart = 'all' | 'with' | 'without'

/**
 * A total split by a yes/no property from two counters of one key: `all` rows, and those
 * `with` the property; those without are all − with (e.g. a user's leads with a contact).
 */
export async function readSplitCounter(
  db: Database,
  companyId: CompanyId,
  lists: { all: string; with: string },
  key: number,
  part: SplitPart,
): Promise<number> {
  const rows = await db
    .select({ list: counters.list, value: counters.value })
    .from(counters)
    .where(and(eq(counters.companyId, companyId), inArray(counters.list, [lists.all, lists.with]), eq(counters.key, key)))
  const all = rows.find((r) => r.list === lists.all)?.value ?? 0
  const withIt = rows.find((r) => r.list === lists.with)?.value ?? 0
  if (part === 'with') return withIt
  if (part === 'without') return all - withIt
  return all
}
