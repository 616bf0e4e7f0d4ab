// Lists filtered by whether each record is linked to another (leads to a contact,
// transcriptions to a task): the query flags `with_<link>` and `without_<link>`, and the
// filter they choose.
import { Type, type TLiteral, type TOptional } from 'typebox'
import { exclusiveFlags } from './validation.js'

/** Which records: all of them, those linked, or those not linked. */
export type LinkFilter = 'all' | 'with' | 'without'

type Flag<Link extends string> = `with_${Link}` | `without_${Link}`

/** The two flags of a list of `records` that may be linked to a `link`: `with_contact`, `without_contact`. */
export function linkFlags<Link extends string>(link: Link, records: string) {
  return {
    [`with_${link}`]: Type.Optional(Type.Literal(true, { description: `only ${records} linked to a ${link}` })),
    [`without_${link}`]: Type.Optional(Type.Literal(true, { description: `only ${records} linked to no ${link}` })),
  } as { [F in Flag<Link>]: TOptional<TLiteral<true>> }
}

/** The filter a query's flags choose; both at once is a 422. */
export function linkFilter<Link extends string>(query: { [F in Flag<Link>]?: true | undefined }, link: Link): LinkFilter {
  const linked: Flag<Link> = `with_${link}`
  const unlinked: Flag<Link> = `without_${link}`
  exclusiveFlags(query, linked, unlinked)
  if (query[linked]) return 'with'
  if (query[unlinked]) return 'without'
  return 'all'
}
