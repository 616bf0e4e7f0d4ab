// Reading timestamptz columns exactly. Drizzle turns PostgreSQL's text into a Date with the
// Date constructor, whose legacy parser reads years 0001-0099 as 2001-2099 (and gives up
// on offsets with seconds); epoch milliseconds computed by PostgreSQL have neither problem.
import { sql, type SQL } from 'drizzle-orm'
import type { AnyPgColumn } from 'drizzle-orm/pg-core'

type InstantOf<C extends AnyPgColumn> = C['_']['notNull'] extends true ? Date : Date | null

/** The column as a Date, exact for every year PostgreSQL stores (select it in place of the column). */
export const exactInstant = <C extends AnyPgColumn>(column: C): SQL<InstantOf<C>> =>
  sql`round(extract(epoch from ${column}) * 1000)::float8`.mapWith((ms: number | null) => (ms === null ? null : new Date(ms))) as SQL<InstantOf<C>>
