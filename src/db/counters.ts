// Exact list totals without counting rows per request: see the `counters` table.
//
// A total is the sum of its rows over `slot`. A counter row is locked from the write that
// adjusts it until COMMIT, so one row per total would line up every writer of a company
// behind one another (docs/performance.md, "4. Writes in one company: the counter row and the
// event sequence"). The writes every contact change makes (the company's and the owner's
// contacts, linked leads, flow contacts) add to the slot of their database connection
// instead, WRITER_SLOT: a pool's connections have consecutive process ids, so up to
// COUNTER_SLOTS of them write side by side. Every other writer adds to slot 0; every reader
// sums (counterTotal).
import type { Db } from './db.js'
import { defineQuery, run } from './query.js'
import type { CompanyId } from '../tenancy.js'

/** Rows a spread total can have. */
export const COUNTER_SLOTS = 16

/** The slot a spread counter write adds to: one per database connection, for the whole transaction. */
export const WRITER_SLOT = `(pg_backend_pid() % ${String(COUNTER_SLOTS)})::smallint`

/** The total of one counter as a scalar subquery: `company`, `list` and `key` are SQL expressions. */
export const counterTotal = (company: string, list: string, key: string) =>
  `coalesce((select sum(value) from counters where company_id = ${company} and list = ${list} and key = ${key}), 0)::bigint`

/** The counter rows, for a statement that reads them otherwise (sums of several lists, key ranges). */
export const COUNTER_ROWS = '(select company_id, list, key, slot, value from counters)'

/**
 * Adds to counter rows, by primary key (company_id, list, key, slot): `rows` selects
 * (company_id, list, key, value), or with `slot` (company_id, list, key, slot, value); the
 * slot is 0 unless given. A statement or a CTE's body.
 */
export const addToCounters = (rows: string, options: { slot?: boolean } = {}) =>
  `insert into counters (company_id, list, key${options.slot ? ', slot' : ''}, value)
     ${rows.trim()}
     on conflict (company_id, list, key, slot) do update set value = counters.value + excluded.value`

// Slot 0 of a total, by primary key (company_id, list, key, slot).
const adjust = defineQuery<never>(
  'counters.adjust',
  `insert into counters (company_id, list, key, value)
   values ($1, $2, $3, $4)
       on conflict (company_id, list, key, slot) do update set value = counters.value + excluded.value`,
)

/** Adds `delta` to a total (slot 0); call it inside the transaction that adds or removes the rows. */
export async function adjustCounter(db: Db, companyId: CompanyId, list: string, key: number, delta: number) {
  if (delta === 0) return
  await run(db, adjust, [companyId, list, key, delta])
}

/** One adjustment of a counter row (the task counters' writes build lists of them). */
export interface CounterDelta {
  list: string
  key: number
  delta: number
}
