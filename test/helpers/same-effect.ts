// Does a workspace form do exactly what its API operation does? Two twin companies are set
// up alike; the API call runs on one, the web form on the other, and what each changed is
// compared: the rows of the company's tables (contacts, tags, tasks, enrollments, users, …),
// the contact events, the audit records and the webhook events (with a subscription to record them). Ids, company ids, times and
// who acted (an api token against a signed-in user, with their address and request id)
// differ between twins by nature and are left out; everything else must be equal.
import assert from 'node:assert/strict'
import type { Db } from '../../src/db/db.js'
import type { CompanyId } from '../../src/tenancy.js'
import { rawRows, sql } from './sql.js'

/** Every table a workspace write may touch, each with a company_id column. */
export const EFFECT_TABLES = [
  'contacts',
  'contact_tags',
  'contact_custom_values',
  'businesses',
  'tasks',
  'flows',
  'flow_steps',
  'flow_enrollments',
  'leads',
  'meet_transcriptions',
  'users',
  'user_invites',
  'contact_events',
  'audit_events',
] as const

/** Webhook events: recorded in the outbox in the write's transaction, then moved to api_events, so both are read as one list. */
const WEBHOOK_EVENTS = 'webhook events'

/** Columns whose values differ between twins by nature: ids, times, who acted and from where. */
const VOLATILE = /^(id|.*_id|.*_ids|.*_at|.*_on|token_hash|sync_at|sequence)$/
/** Who acted and from where: an api token and a signed-in user differ here whatever was done. */
const ACTOR = /^(actor_.*|ip|user_agent|request_id)$/
const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}/

/** A row or a JSON value without what differs between twins, as text with sorted keys. */
function normalise(value: unknown, key = ''): unknown {
  if (ACTOR.test(key)) return '…'
  if (VOLATILE.test(key)) return value === null ? null : Array.isArray(value) ? value.map(() => '…') : '…'
  if (typeof value === 'string' && ISO_TIME.test(value)) return 'time'
  if (Array.isArray(value)) return value.map((item) => normalise(item))
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.keys(value).sort().map((name) => [name, normalise((value as Record<string, unknown>)[name], name)]))
  }
  return value
}

export type Effects = Record<string, string[]>

/** The company's rows of every table of EFFECT_TABLES, normalised, as sorted text. */
export async function effectsOf(db: Db, companyId: CompanyId): Promise<Effects> {
  const effects: Effects = {}
  for (const table of EFFECT_TABLES) {
    const rows = await rawRows<{ row: unknown }>(db, sql`select to_jsonb(t) as row from ${sql.identifier(table)} t where t.company_id = ${companyId}`)
    effects[table] = rows.map(({ row }) => JSON.stringify(normalise(row))).sort()
  }
  const events = await rawRows<{ row: unknown }>(db, sql`
    select json_build_object('type', type, 'data', data) as row from api_events where company_id = ${companyId}
    union all
    select json_build_object('type', type, 'data', data) from api_event_outbox where company_id = ${companyId}`)
  effects[WEBHOOK_EVENTS] = events.map(({ row }) => JSON.stringify(normalise(row))).sort()
  return effects
}

/** What changed between two snapshots: per table, the rows that went and the rows that came. */
export function changes(before: Effects, after: Effects): Record<string, { gone: string[]; came: string[] }> {
  const diff: Record<string, { gone: string[]; came: string[] }> = {}
  for (const table of [...EFFECT_TABLES, WEBHOOK_EVENTS]) {
    const was = [...(before[table] ?? [])]
    const came: string[] = []
    for (const row of after[table] ?? []) {
      const at = was.indexOf(row)
      if (at === -1) came.push(row)
      else was.splice(at, 1)
    }
    if (was.length > 0 || came.length > 0) diff[table] = { gone: was, came }
  }
  return diff
}

/**
 * Runs `api` on the company `twins.api` and `web` on `twins.web` (set up alike by the caller),
 * and asserts both changed the same rows, events, audit records and webhook events. Returns
 * what changed, for further checks (a write that changed nothing proves nothing: it fails).
 */
export async function assertSameEffect(
  db: Db,
  twins: { api: CompanyId; web: CompanyId },
  act: { api: () => Promise<unknown>; web: () => Promise<unknown> },
): Promise<Record<string, { gone: string[]; came: string[] }>> {
  const beforeApi = await effectsOf(db, twins.api)
  const beforeWeb = await effectsOf(db, twins.web)
  await act.api()
  await act.web()
  const byApi = changes(beforeApi, await effectsOf(db, twins.api))
  const byWeb = changes(beforeWeb, await effectsOf(db, twins.web))
  assert.notDeepEqual(byApi, {}, 'the API call changed something')
  assert.deepEqual(byWeb, byApi, 'the workspace form changed exactly what the API call changed')
  return byApi
}
