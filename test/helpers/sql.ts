// Tests arrange and check rows with plain SQL on the app's pool (or a transaction's client):
// a tagged template whose values become parameters, run through node-postgres as is. The
// service's own statements go through src/db (defineQuery + run), never through this.
import type { Db } from '../../src/db/db.js'

type Part = { text: string } | { value: unknown }

/** A piece of SQL with its values kept apart from its text until it runs. */
export class Sql {
  constructor(readonly parts: readonly Part[]) {}

  /** The text with $1, $2, … and the values in that order. */
  render(): { text: string; values: unknown[] } {
    const values: unknown[] = []
    let text = ''
    for (const part of this.parts) {
      if ('text' in part) text += part.text
      else text += `$${String(values.push(part.value))}`
    }
    return { text, values }
  }
}

/**
 * sql`select … where id = ${id}`: each value is one parameter (an array is one array
 * parameter: `= any(${ids})`); a nested sql`…` is spliced in with its own values.
 */
export function sql(strings: TemplateStringsArray, ...values: unknown[]): Sql {
  const parts: Part[] = []
  strings.forEach((text, i) => {
    parts.push({ text })
    if (i >= values.length) return
    const value = values[i]
    if (value instanceof Sql) parts.push(...value.parts)
    else parts.push({ value })
  })
  return new Sql(parts)
}

/** Text spliced in as it is: whole migrations, or a column list the test wrote itself. */
sql.raw = (text: string): Sql => new Sql([{ text }])

/** A quoted identifier (a table or column name chosen by the test). */
sql.identifier = (name: string): Sql => sql.raw(`"${name.replaceAll('"', '""')}"`)

/** The fragments with `separator` between them. */
sql.join = (fragments: readonly Sql[], separator: Sql): Sql =>
  new Sql(fragments.flatMap((fragment, i) => (i === 0 ? fragment.parts : [...separator.parts, ...fragment.parts])))

/** Rows of a statement, as the driver gives them: snake_case names unless the SQL aliases them. */
export async function rawRows<T>(db: Db, query: Sql): Promise<T[]> {
  const { text, values } = query.render()
  const result = await db.query(text, values)
  return result.rows as T[]
}

/** Runs a statement (or several, when it has no values: a migration's text) for its effect. */
export async function execute(db: Db, query: Sql): Promise<void> {
  const { text, values } = query.render()
  await (values.length === 0 ? db.query(text) : db.query(text, values))
}
