// "Nothing changed": every row of the named tables as one text per table, to compare
// before and after a request that must be refused.
import { sql } from 'drizzle-orm'
import { rawRows } from './orm.js'
import type { Db } from '../../src/db/db.js'

export async function tableSnapshot(db: Db, tables: readonly string[]): Promise<Record<string, string>> {
  const state: Record<string, string> = {}
  for (const table of tables) {
    const [row] = await rawRows<{ rows: string | null }>(
      db,
      sql`select string_agg(r::text, E'\n' order by r::text) as rows from ${sql.identifier(table)} r`,
    )
    state[table] = row?.rows ?? ''
  }
  return state
}
