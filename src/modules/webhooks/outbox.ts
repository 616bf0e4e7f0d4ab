// The transactional outbox. A service announces a change by calling recordEvents with the
// transaction that makes the change, as its last statement before COMMIT: the event exists
// if and only if the change committed. One statement per call, whatever the number of
// events or subscriptions:
// - takes the company's next sequence numbers from its counters row ('events', 0), the hot
//   row, which is why this must run last (the lock is held until COMMIT);
// - inserts the events, and nothing more: the delivery worker fans each one out to a
//   pending webhook_deliveries row per enabled subscription whose `events` name its type (or
//   '*'), claiming events not yet fanned out with SKIP LOCKED (webhooks.delivery.repository).
//   So a write costs the same with no subscription or twenty (one row, one counter).
import type { Database } from '../../db/client.js'
import { defineQuery, run } from '../../db/query.js'
import type { CompanyId } from '../../tenancy.js'
import type { EventType } from './event-types.js'

export interface NewApiEvent {
  type: EventType
  /** The record exactly as the API returns it; for a deletion `{id, deleted_at}`. */
  data: unknown
}

/**
 * The outbox as CTEs, for a write that records its events in its own statement (one round
 * trip): `source` names a CTE of (ord 1..n, type text, data json) rows, `company` and `at`
 * are SQL expressions. No rows, nothing is written and the counter is not touched. `after`
 * names CTEs (with a RETURNING) that must have written everything before the event counter
 * row is locked: the statement's other counters, so that it is locked last, as everywhere.
 * Adds the CTEs event_sequence and recorded_events (id).
 */
export const outboxCtes = (source: string, company: string, at: string, after: string[] = []) =>
  `event_sequence as (
     insert into counters (company_id, list, key, value)
     select ${company}, 'events', 0, count(*) from ${source}
     having count(*) > 0${after.map((name) => ` and (select count(*) from ${name}) >= 0`).join('')}
     on conflict (company_id, list, key) do update set value = counters.value + excluded.value
     returning value
   ), recorded_events as (
     insert into api_events (company_id, sequence, type, data, created_at)
     select ${company}, s.value - (select count(*) from ${source}) + e.ord, e.type, e.data, ${at}
     from ${source} e, event_sequence s
     order by e.ord
     returning company_id, id, type
   )`

const recordEventsQuery = defineQuery<{ id: number }>(
  'outbox.record',
  `with input as (
     select e.ord, e.type, e.data::json as data
     from unnest($2::text[], $3::text[]) with ordinality as e(type, data, ord)
   ), ${outboxCtes('input', '$1::bigint', '$4::timestamptz')}
   select id from recorded_events`,
)

/**
 * Records events in the caller's transaction, as its last statement before COMMIT (it
 * locks the company's event counter).
 */
export async function recordEvents(db: Database, companyId: CompanyId, events: NewApiEvent[], now: Date): Promise<void> {
  if (events.length === 0) return
  // json, not jsonb: the payload keeps the API's key order byte for byte.
  const types = events.map((event) => event.type)
  const data = events.map((event) => JSON.stringify(event.data))
  await run(db, recordEventsQuery, [companyId, types, data, now])
}

export const recordEvent = (db: Database, companyId: CompanyId, type: EventType, data: unknown, now: Date) =>
  recordEvents(db, companyId, [{ type, data }], now)
