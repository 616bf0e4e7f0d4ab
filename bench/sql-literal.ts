// A parameter as an SQL literal, for EXPLAIN EXECUTE (which takes no bound parameters):
// the bench's plans (scale.ts) and the plan tests (test/helpers/plans.ts).
import pg from 'pg'

/** A value as the text PostgreSQL reads it (pg's own conversion of parameters, in short). */
function asText(value: unknown): string | null {
  if (value === null || value === undefined) return null
  if (value instanceof Date) return value.toISOString()
  if (Array.isArray(value)) return arrayText(value)
  if (typeof value === 'string') return value
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return value.toString()
  return JSON.stringify(value)
}

function arrayText(values: unknown[]): string {
  const items = values.map((v) => {
    const text = asText(v)
    if (text === null) return 'NULL'
    return Array.isArray(v) ? text : `"${text.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`
  })
  return `{${items.join(',')}}`
}

export function literal(value: unknown): string {
  const text = asText(value)
  return text === null ? 'NULL' : pg.escapeLiteral(text)
}
