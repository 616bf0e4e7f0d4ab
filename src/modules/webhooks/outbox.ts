// The transactional outbox. A service announces a change by calling recordEvents with the
// transaction that makes the change, as its last statement before COMMIT: the event exists
// if and only if the change committed. One statement per call, whatever the number of
// events or subscriptions:
// - takes the company's next sequence numbers from its counters row ('events', 0), the hot
//   row, which is why this must run last (the lock is held until COMMIT);
// - inserts the events;
// - fans each one out to a pending webhook_deliveries row per enabled subscription whose
//   `events` name its type (or '*'); the delivery worker picks those up.
import type { Database } from '../../db/client.js'
import { defineQuery, run } from '../../db/query.js'
import type { CompanyId } from '../../tenancy.js'
import type { EventType } from './event-types.js'

export interface NewApiEvent {
  type: EventType
  /** The record exactly as the API returns it; for a deletion `{id, deleted_at}`. */
  data: unknown
}

const recordEventsQuery = defineQuery<{ id: number }>(
  'outbox.record',
  `with input as (
     select e.ord, e.type, e.data::json as data
     from unnest($2::text[], $3::text[]) with ordinality as e(type, data, ord)
   ), sequence as (
     insert into counters (company_id, list, key, value) values ($1::bigint, 'events', 0, cardinality($2::text[]))
     on conflict (company_id, list, key) do update set value = counters.value + excluded.value
     returning value
   ), recorded as (
     insert into api_events (company_id, sequence, type, data, created_at)
     select $1::bigint, sequence.value - cardinality($2::text[]) + input.ord, input.type, input.data, $4::timestamptz
     from input, sequence
     order by input.ord
     returning company_id, id, type
   ), fanned_out as (
     insert into webhook_deliveries (company_id, subscription_id, event_id, next_attempt_at, created_at)
     select recorded.company_id, s.id, recorded.id, $4::timestamptz, $4::timestamptz
     from recorded
     join webhook_subscriptions s
       on s.company_id = recorded.company_id and s.enabled
      and (recorded.type = any (s.events) or '*' = any (s.events))
   )
   select id from recorded`,
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
