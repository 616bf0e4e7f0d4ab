// Exact list totals without counting rows per request: see the `counters` table.
//
// A total is the sum of its rows over `slot`. A counter row is locked from the write that
// adjusts it until COMMIT, so one row per total would line up every writer of a company
// behind one another (docs/performance.md, "4. Writes in one company: the counter row and the
// event sequence"). The writes every contact change makes (the company's and the owner's
// contacts, linked leads, flow contacts) add to the slot of their transaction instead,
// WRITER_SLOT: the one the pool gave its connection (giveCounterSlots), else the backend's
// process id modulo COUNTER_SLOTS. Every other writer adds to slot 0; every reader sums
// (counterTotal).
import type pg from 'pg'
import type { Db, Settings } from './db.js'
import { defineQuery, run } from './query.js'
import type { CompanyId } from '../tenancy.js'

/** Rows a spread total can have. */
export const COUNTER_SLOTS = 16

/**
 * The slot a spread counter write adds to, for the whole transaction: counter_slot()
 * (migrations/0029_counter_slots.sql) reads the slot counterSlotSetting gave the transaction,
 * else takes the backend's process id modulo COUNTER_SLOTS.
 */
export const WRITER_SLOT = 'counter_slot()'

/** The slots of a pool's connections; a connection the pool did not open has none. */
const slots = new WeakMap<pg.PoolClient, number>()

/**
 * Gives each connection of `pool` a slot no other connection of it holds while it lives (the
 * pool keeps fewer than COUNTER_SLOTS). Process ids modulo COUNTER_SLOTS are alike only when
 * the connections were opened one after the other, and two writers in one slot wait for each
 * other's COMMIT. The slots start at a random one, so that the pools of several instances
 * spread over all of them. A slot is free again once its connection has ended; a connection
 * that finds none free (connections closing while as many open) keeps to its process id's.
 */
export function giveCounterSlots(pool: pg.Pool): void {
  const first = Math.floor(Math.random() * COUNTER_SLOTS)
  const taken = new Set<number>()
  pool.on('connect', (client) => {
    for (let i = 0; i < COUNTER_SLOTS; i++) {
      const slot = (first + i) % COUNTER_SLOTS
      if (taken.has(slot)) continue
      taken.add(slot)
      slots.set(client, slot)
      return
    }
  })
  pool.on('remove', (client) => {
    const slot = slots.get(client)
    if (slot !== undefined) taken.delete(slot)
    slots.delete(client)
  })
}

/** The setting that makes WRITER_SLOT the slot of the transaction's connection (TransactionOptions' settings). */
export function counterSlotSetting(client: pg.PoolClient): Settings {
  const slot = slots.get(client)
  return slot === undefined ? {} : { 'engage.counter_slot': String(slot) }
}

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

/** One adjustment of a counter row (the task counters' writes and the contact write planner build lists of them). */
export interface CounterDelta {
  list: string
  key: number
  delta: number
}

/**
 * Deltas merged per counter row, without the zero ones, in (list, key) order: the order in
 * which every writer locks counter rows (lists compare as bytes, as `collate "C"` does).
 */
export function mergedDeltas(deltas: CounterDelta[]): CounterDelta[] {
  const merged = new Map<string, CounterDelta>()
  for (const d of deltas) {
    const id = `${d.list} ${d.key}`
    const row = merged.get(id)
    if (row) row.delta += d.delta
    else merged.set(id, { ...d })
  }
  return [...merged.values()]
    .filter((d) => d.delta !== 0)
    .sort((a, b) => (a.list === b.list ? a.key - b.key : a.list < b.list ? -1 : 1))
}
