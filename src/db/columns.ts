// Many rows sent as one statement's parameters: one array per column, which the statement
// reads back as rows with `unnest($2::bigint[], $3::text[], …)`.

/** One array per key, in the order of `keys` (the order of the statement's parameters). */
export function columns<Row>(rows: readonly Row[], keys: readonly (keyof Row)[]): unknown[][] {
  return keys.map((key) => rows.map((row) => row[key]))
}
