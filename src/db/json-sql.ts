// JSON written by PostgreSQL in the API's own bytes, for records built in SQL: answers sent
// as JSON text (src/http/json-text.ts) and webhook payloads stored verbatim. row_to_json and
// array_to_json write compact JSON, keys in column order; json_build_object and json_agg
// would add spaces.

/** An instant in JSON as the API writes it (toISOString: UTC, milliseconds, `Z`). */
export const isoInstant = (expression: string) => `to_char(${expression} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`

/** A JSON object of the given columns (`expr as name, …`; their names as keys, in order). */
export const jsonObjectOf = (columns: string) => `(select row_to_json(j) from (select ${columns}) j)`

/** A JSON array of objects of the given columns, sorted by `orderBy`; null for no rows. */
export const jsonArrayOf = (columns: string, orderBy: string) =>
  `array_to_json(array_agg((select j from (select ${columns}) j) order by ${orderBy}))`
