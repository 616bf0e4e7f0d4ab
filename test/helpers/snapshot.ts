// "Nothing changed": every row of the named tables as one text per table, to compare
// before and after a request that must be refused. One statement for all the tables (one
// round trip, one snapshot of the database): the suite takes thousands of these.
import { rawRows, sql } from './sql.js'
import type { Db } from '../../src/db/db.js'

export async function tableSnapshot(db: Db, tables: readonly string[]): Promise<Record<string, string>> {
  const columns = tables.map(
    (table, i) => sql`(select string_agg(r::text, E'\n' order by r::text) from ${sql.identifier(table)} r) as ${sql.identifier(`t${String(i)}`)}`,
  )
  const [row] = await rawRows<Record<string, string | null>>(db, sql`select ${sql.join(columns, sql`, `)}`)
  return Object.fromEntries(tables.map((table, i) => [table, row?.[`t${String(i)}`] ?? '']))
}
