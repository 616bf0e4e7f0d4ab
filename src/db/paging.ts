// Pages of a list, written once for every list statement: the window's placeholders, the
// "forwards, or backwards from the total" choice of a page's ids, and the unwrapping of a
// page statement's rows (the records with the total on each, or one row with the total
// and nulls past the end). The SQL builders run at module load, when statements are
// defined; nothing here assembles SQL per request.
import type { Db } from './db.js'
import { run, type Query } from './query.js'
import type { CompanyId } from '../tenancy.js'

/** The rows a page statement reads: its `limit` and `offset` values (src/http/pagination.ts makes them). */
export interface PageSlice {
  limit: number
  offset: number
}

/**
 * A page's placeholders in a statement: `limit` ($n, per_page, 1..100) and `offset` ($m,
 * (page − 1) × per_page), always compared and read as bigint: the offset passes 2^31 long
 * before `page` reaches its bound (2^53 − 1), and an `integer` parameter would refuse it.
 */
export interface PagePlaceholders {
  readonly limit: string
  readonly offset: string
}

export const pageParams = (limit: number, offset: number): PagePlaceholders => ({
  limit: `$${String(limit)}`,
  offset: `$${String(offset)}::bigint`,
})

/** `limit … offset …` for a list read from its start in its order (lists of a handful to thousands). */
export const limitOffset = (page: PagePlaceholders): string => `limit ${page.limit} offset ${page.offset}`

/** `(offset) < (total)`: whether the page has any record. */
export const withinTotal = (page: PagePlaceholders, total: string): string => `${page.offset} < ${total}`

/**
 * Forwards from the start for a page of the first half, else backwards from the total. The
 * backwards limit is never negative, whichever order PostgreSQL evaluates the guard in.
 */
function forwardsOrBackwards<Order>(
  page: PagePlaceholders,
  total: string,
  orders: readonly [forwards: Order, backwards: Order],
  ids: (order: Order, limit: string, offset: string) => string,
): string {
  const { limit, offset } = page
  return `when ${offset} < ${total} - ${offset} then ${ids(orders[0], limit, offset)}
                 else ${ids(orders[1], `greatest(least(${limit}, ${total} - ${offset}), 0)`, `greatest(${total} - ${offset} - ${limit}, 0)`)}`
}

/**
 * The ids of a page as an array expression (for `id = any(…)`), given the list's exact
 * `total` (an SQL expression) and `ids(order, limit, offset)`, an ARRAY(…) of ids read in
 * `order` from an index. A page of the first half reads in the list's order (`orders[0]`);
 * one of the second half reads backwards (`orders[1]`) from the total, so the last page costs
 * what the first does (an OFFSET walks every entry it skips); a page past the end reads
 * nothing (`'{}'`), whatever its number. `empty` is a further condition for no page (the
 * subject is missing); `first` a `when … then …` branch tried before all of these.
 */
export function pageIds<Order>(
  page: PagePlaceholders,
  total: string,
  orders: readonly [forwards: Order, backwards: Order],
  ids: (order: Order, limit: string, offset: string) => string,
  options: { empty?: string; first?: string } = {},
): string {
  return `case ${options.first ? `${options.first}\n                 ` : ''}when ${options.empty ? `${options.empty} or ` : ''}${page.offset} >= ${total} then '{}'::bigint[]
                 ${forwardsOrBackwards(page, total, orders, ids)}
            end`
}

/**
 * `column = any(<the page's ids>) and offset < total`, as pageIds, for a LEFT JOIN LATERAL
 * whose page is skipped whole past the end (a one-time filter). For a total the statement
 * does not materialize, which every mention reads again (a counter's slot rows).
 */
export function pageIdsWithin<Order>(
  column: string,
  page: PagePlaceholders,
  total: string,
  orders: readonly [forwards: Order, backwards: Order],
  ids: (order: Order, limit: string, offset: string) => string,
): string {
  return `${column} = any(case ${forwardsOrBackwards(page, total, orders, ids)}
            end)
            and ${withinTotal(page, total)}`
}

/** pageIdsWithin's array of the page's ids alone, for rowsByIds (with `withinTotal` as the one-time filter). */
export function pageIdsArray<Order>(
  page: PagePlaceholders,
  total: string,
  orders: readonly [forwards: Order, backwards: Order],
  ids: (order: Order, limit: string, offset: string) => string,
): string {
  return `case ${forwardsOrBackwards(page, total, orders, ids)}
            end`
}

/**
 * FROM items reading each id of `ids` (a bigint[] expression) by `table`'s primary key
 * (company_id, id), as `alias`. One lookup per id, kept from being flattened into a join by
 * its LIMIT, so the id is the index's condition whatever the statistics: `id = any(ids)`
 * beside the company can be planned as a walk over the company's rows filtering on the ids
 * (docs/performance.md, "Plans without statistics").
 */
export const rowsByIds = (table: string, alias: string, company: string, ids: string): string =>
  `unnest(${ids}) as page_ids(page_id)
          cross join lateral (select * from ${table} where company_id = ${company} and id = page_ids.page_id limit 1) ${alias}`

/** A page and the list's total. */
export interface Page<T> {
  total: number
  rows: T[]
}

/**
 * What a page statement answers: every row carries the page's columns (`total`, and `Extra`
 * such as `found`) and a record; past the end, one row with the page's columns and null for
 * the record's (the LEFT JOIN's sentinel), `key` among them.
 */
export type PageRow<T, Extra = unknown, Key extends string = 'id'> = { total: number } & Extra & ({ [K in Key]: null } | T)

/**
 * The reader of a page of one parent's records (a contact's events, a webhook's deliveries)
 * with `statement` ($1 company, $2 the parent, $3 limit, $4 offset): undefined when the
 * statement's `parent` column says there is no such parent; that column and the total are
 * taken off each record.
 */
export function childPageReader<T, Parent extends string>(statement: Query<PageRow<T, { [P in Parent]: boolean }>>, parent: Parent) {
  return async (db: Db, companyId: CompanyId, parentId: number, page: PageSlice): Promise<Page<T> | undefined> => {
    const rows = await run(db, statement, [companyId, parentId, page.limit, page.offset])
    return (rows[0] as Record<string, unknown> | undefined)?.[parent] ? unwrapPage(rows, 'id', [parent, 'total']) : undefined
  }
}

/**
 * The reader of a page of one user's records (a user's leads, transcriptions) with one
 * statement per filter (`statements`, each $1 company, $2 the user, $3 limit, $4 offset): the
 * records and the filter's total.
 */
export function userPageReader<T, Filter extends string>(statements: Readonly<Record<Filter, Query<PageRow<T>>>>) {
  return async (db: Db, companyId: CompanyId, userId: number, filter: Filter, page: PageSlice): Promise<Page<T>> =>
    unwrapPage(await run(db, statements[filter], [companyId, userId, page.limit, page.offset]))
}

/**
 * The total and the records of a page statement's rows. `key` is a record column that is
 * never null; `drop` lists the page's columns to take off each record, where a record goes
 * out by a path that would show them (the others' serializers leave unknown keys out).
 */
export function unwrapPage<T, Extra = unknown, Key extends string = 'id'>(
  rows: readonly PageRow<T, Extra, Key>[],
  key: Key = 'id' as Key,
  drop: readonly string[] = [],
): Page<T> {
  const first = rows[0] as Record<string, unknown> | undefined
  if (first === undefined) return { total: 0, rows: [] }
  const total = first.total as number
  if (first[key] === null) return { total, rows: [] }
  if (drop.length === 0) return { total, rows: rows as unknown as T[] }
  return { total, rows: rows.map((row) => Object.fromEntries(Object.entries(row).filter(([column]) => !drop.includes(column))) as T) }
}
