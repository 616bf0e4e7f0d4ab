// Reading the audit log's rows in tests, and the records an action left.
import assert from 'node:assert/strict'
import type { Db } from '../../src/db/db.js'
import { sql, rawRows } from '../helpers/sql.js'

/** A row of audit_events as the table stores it. */
export interface StoredRow {
  company_id: number
  id: number
  occurred_at: Date
  action: string
  actor_type: string
  actor_id: number | null
  actor_label: string | null
  on_behalf_of_id: number | null
  on_behalf_of_label: string | null
  target_type: string
  target_id: number | null
  target_label: string | null
  outcome: 'success' | 'failure'
  reason: string | null
  ip: string | null
  user_agent: string | null
  request_id: string | null
  changes: Record<string, unknown> | null
}

export async function allAuditRows(db: Db): Promise<StoredRow[]> {
  return rawRows<StoredRow>(db, sql`select * from audit_events order by id`)
}

/**
 * Runs `action` and answers the audit rows it wrote (of any company). Records of new client
 * addresses are left out unless `flushed`: the last-used flush writes them on its own timer,
 * which may fire while any action runs. With `waited`, rows are read again until there is one,
 * for a second at most: a refused sign-in's records are written just after its answer.
 */
export async function recordsOf(db: Db, action: () => Promise<unknown>, flushed = false, waited = false): Promise<StoredRow[]> {
  const [before] = await rawRows<{ id: number }>(db, sql`select coalesce(max(id), 0)::bigint as id from audit_events`)
  await action()
  const until = Date.now() + 1000
  for (;;) {
    const rows = await rawRows<StoredRow>(db, sql`select * from audit_events where id > ${before?.id ?? 0} order by id`)
    const kept = flushed ? rows : rows.filter((row) => row.action !== 'api_token.used_from_new_address')
    if (!waited || kept.length > 0 || Date.now() > until) return kept
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
}

/** Exactly one record (waited for, as `recordsOf` does), and it is this one (fields not named are not checked). */
export async function onlyRecord(db: Db, action: () => Promise<unknown>, expected: Partial<StoredRow>): Promise<StoredRow> {
  const rows = await recordsOf(db, action, false, true)
  assert.equal(rows.length, 1, `one record, got ${JSON.stringify(rows.map((r) => r.action))}`)
  const [row] = rows
  if (!row) throw new Error('no row')
  const picked = Object.fromEntries(Object.keys(expected).map((key) => [key, row[key as keyof StoredRow]]))
  assert.deepEqual(picked, expected)
  return row
}
