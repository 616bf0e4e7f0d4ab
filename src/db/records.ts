// A record the API returns is defined once, as its TypeBox schema: its TypeScript type is
// `Static<typeof Schema>`, and the SQL that builds it (a select list, a JSON object) names
// the schema's keys in the schema's order, each read from the column of that name unless
// the record says otherwise. test/db/records.test.ts checks every record's SQL against its
// schema: keys, order and types.
import type { Static, TObject, TSchema } from 'typebox'
import { isoInstant, jsonObjectOf } from './json-sql.js'

type Instant<V> = Date extends V ? Exclude<V, string> : V
/**
 * A record as a statement's row gives it: the schema's type, instants (`Timestamp`, a Date or
 * an ISO string for the serializer) as the Dates node-postgres reads.
 */
export type Row<T extends TSchema> = { [K in keyof Static<T>]: Instant<Static<T>[K]> }

/** The expression of a key, given the prefix of the record's row (`c.`, or '' for bare names). */
type Expression = (prefix: string) => string

export interface RecordSql {
  /** The schema's $id, or the name given. */
  readonly name: string
  readonly schema: TObject
  /** `<table> <alias>` and any joins the expressions read: where the records test reads one from. */
  readonly from: string
  /**
   * The select list over `alias` (default: the record's own; '' for bare column names);
   * `instead` reads some keys otherwise in one statement (children aggregated before, say).
   */
  columns(alias?: string, instead?: Record<string, string>): string
  /** The select list for JSON (jsonArrayOf): instants as the API writes them (json-sql.ts). */
  jsonColumns(alias?: string, instead?: Record<string, string>): string
  /** The record as a JSON object over `alias`, `instead` as for columns. */
  json(alias?: string, instead?: Record<string, string>): string
}

const records: RecordSql[] = []

/** Every record defined so far (the records test checks each). */
export function definedRecords(): readonly RecordSql[] {
  return records
}

const idOf = (schema: TObject) => String((schema as { $id?: unknown }).$id)
const isInstant = (schema: unknown) => (schema as { format?: unknown }).format === 'date-time'

/**
 * The SQL of `schema`'s record read from `from` (`<table> <alias>`, joins after it), each key
 * from the column of its name unless `expressions` gives another (which must be keys of the
 * schema).
 */
export function recordSql<T extends TObject>(
  schema: T,
  from: string,
  expressions: Partial<Record<keyof T['properties'] & string, Expression>> = {},
  name?: string,
): RecordSql {
  const keys = Object.keys(schema.properties)
  for (const key of Object.keys(expressions)) {
    if (!keys.includes(key)) throw new Error(`${key} is not a key of the record ${name ?? idOf(schema)}`)
  }
  const own = /^\S+\s+(\w+)/.exec(from)?.[1] ?? ''
  const prefix = (alias: string) => (alias === '' ? '' : `${alias}.`)
  const expression = (key: string, alias: string, instead: Record<string, string> = {}) =>
    instead[key] ?? (expressions as Record<string, Expression | undefined>)[key]?.(prefix(alias)) ?? `${prefix(alias)}${key}`
  /** The schema's keys, once `instead` is known to name only keys of the schema. */
  const checked = (instead: Record<string, string>) => {
    for (const key of Object.keys(instead)) if (!keys.includes(key)) throw new Error(`${key} is not a key of the record ${idOf(schema)}`)
    return keys
  }
  const record: RecordSql = {
    name: name ?? idOf(schema),
    schema,
    from,
    columns: (alias = own, instead: Record<string, string> = {}) =>
      checked(instead)
        .map((key) => {
          const read = expression(key, alias, instead)
          return read === `${prefix(alias)}${key}` ? read : `${read} as ${key}`
        })
        .join(', '),
    jsonColumns: (alias = own, instead: Record<string, string> = {}) =>
      checked(instead)
        .map((key) => {
          const read = expression(key, alias, instead)
          if (isInstant(schema.properties[key])) return `${isoInstant(read)} as ${key}`
          return read === `${prefix(alias)}${key}` ? read : `${read} as ${key}`
        })
        .join(', '),
    json: (alias = own, instead = {}) => jsonObjectOf(record.jsonColumns(alias, instead)),
  }
  records.push(record)
  return record
}
