// The rows of an `updated_since` walk, written once for every walk statement. Its parameters
// are walkParams's (src/http/sync.ts): $1 company, $2 $3 the position (at, id), $4 $5 the
// high-water marks, $6 one more than a page.
import { COMPANY } from './company.js'

/**
 * `where … order by … limit $6` of a walk over the table `alias` ('' for none): its rows after
 * the position and before both marks, in (updated_at, id) order, read from the table's
 * (company_id, updated_at, id) index as one range that stops after $6 rows; `condition`, when
 * given, is one more a row must meet.
 */
export function walkRows(alias: string, condition?: string): string {
  const column = alias === '' ? '' : `${alias}.`
  const also = condition === undefined ? '' : `\n      and ${condition}`
  return `where ${column}company_id = ${COMPANY}
      and (${column}updated_at, ${column}id) > ($2::timestamptz, $3::bigint)
      and ${column}updated_at < least($4::timestamptz, $5::timestamptz)${also}
    order by ${column}updated_at, ${column}id
    limit $6`
}
