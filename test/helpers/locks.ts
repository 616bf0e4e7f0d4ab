// Lock races on purpose: a row written by another transaction and kept uncommitted, and a
// wait until some statement of this database waits for a lock behind it.
import { sql, rawRows } from './sql.js'
import { transaction, type Db } from '../../src/db/db.js'

/**
 * Runs `write` in a transaction of its own and keeps it uncommitted; the returned function
 * rolls it back and resolves once it has ended.
 */
export async function holdUncommitted(db: Db, write: (tx: Db) => Promise<unknown>): Promise<() => Promise<void>> {
  let release!: () => void
  let held!: () => void
  const gate = new Promise<void>((resolve) => (release = resolve))
  const holding = new Promise<void>((resolve) => (held = resolve))
  const done = transaction(db, async (tx) => {
    await write(tx)
    held()
    await gate
    throw new Error('rolled back on purpose')
  }).catch(() => undefined)
  await holding
  return async () => {
    release()
    await done
  }
}

/** Until `waiting` statements of this database wait for a lock; throws naming `who` if they do not within about 2 s. */
export async function waitForLockWait(db: Db, who: string, waiting = 1): Promise<void> {
  for (let i = 0; i < 200; i++) {
    const [row] = await rawRows<{ n: number }>(
      db,
      sql`select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'`,
    )
    if ((row?.n ?? 0) >= waiting) return
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
  throw new Error(`${who} never waited`)
}

/** Deadlocks PostgreSQL has detected in this database (backends report within a second of going idle). */
export async function deadlockCount(db: Db): Promise<number | undefined> {
  const [row] = await rawRows<{ n: number }>(db, sql`select deadlocks::int as n from pg_stat_database where datname = current_database()`)
  return row?.n
}
