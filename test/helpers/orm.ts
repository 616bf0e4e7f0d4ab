// Tests check and arrange rows with Drizzle's query builder over the app's own pool (or a
// transaction's client): assertions and fixtures only. The service itself reaches the
// database through src/db (defineQuery + run, transaction), never through Drizzle.
import type { SQL } from 'drizzle-orm'
import { drizzle, type NodePgDatabase } from 'drizzle-orm/node-postgres'
import type { Db } from '../../src/db/db.js'
import * as schema from '../../src/db/schema.js'

export type TestDb = NodePgDatabase<typeof schema>

const orms = new WeakMap<Db, TestDb>()

/** Drizzle over a Db, for a test's own reads and writes. */
export function orm(db: Db): TestDb {
  let found = orms.get(db)
  if (!found) {
    found = drizzle({ client: db, schema })
    orms.set(db, found)
  }
  return found
}

/** Rows of a raw SQL statement, as the driver gives them: snake_case names. */
export async function rawRows<T>(db: Db, query: SQL): Promise<T[]> {
  const result = (await orm(db).execute(query)) as { rows: T[] }
  return result.rows
}
