// A counter's total is the sum of its slot rows (src/db/counters.ts).
import { sql, rawRows } from './sql.js'
import type { Db } from '../../src/db/db.js'
import { COUNTER_SLOTS } from '../../src/db/counters.js'
import { holdUncommitted } from './locks.js'

/** The total of one counter (0 when it has no row). */
export async function counterValue(db: Db, companyId: number, list: string, key = 0): Promise<number> {
  const [row] = await rawRows<{ value: number }>(db, sql`
    select coalesce(sum(value), 0)::int as value from counters where company_id = ${companyId} and list = ${list} and key = ${key}`)
  return row?.value ?? 0
}

/**
 * Locks every slot row of a counter in a transaction kept open (the missing ones created at
 * 0 first), so that any write adjusting it waits; the returned function releases them.
 */
export async function holdCounter(db: Db, companyId: number, list: string, key = 0): Promise<() => Promise<void>> {
  await rawRows(db, sql`
    insert into counters (company_id, list, key, slot, value)
    select ${companyId}, ${list}, ${key}, s, 0 from generate_series(0, ${COUNTER_SLOTS - 1}) s
    on conflict do nothing`)
  return holdUncommitted(db, (tx) =>
    rawRows(tx, sql`select value from counters where company_id = ${companyId} and list = ${list} and key = ${key} for update`))
}
