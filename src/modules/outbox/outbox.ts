// The transactional outbox. A service announces a change by recording its events in the
// transaction that makes the change: the event exists if and only if the change committed.
// One statement per call, whatever the number of events or subscriptions, and it only
// inserts into api_event_outbox: no counter, no row any other writer touches, so writers of
// one company never wait for each other here. Numbering the events (ids and the company's
// sequence, in the order they become visible) and fanning them out to their deliveries is
// publishing, after the commit (../webhooks/publish.ts), which takes the rows out through the
// fragments at the end of this file.
import type { Db } from '../../db/db.js'
import { defineQuery, run } from '../../db/query.js'
import type { CompanyId } from '../../tenancy.js'
import type { EventType } from './event-types.js'

export interface NewApiEvent {
  type: EventType
  /** The record exactly as the API returns it; for a deletion `{id, deleted_at}`. */
  data: unknown
}

/**
 * The outbox as a CTE, for a write that records its events in its own statement (one round
 * trip): `source` names a CTE of (ord 1..n, type text, data json) rows, `company` and `at`
 * are SQL expressions. Adds the CTE recorded_events (company_id, id, type); no rows, nothing
 * is written.
 */
export const outboxCtes = (source: string, company: string, at: string) =>
  `recorded_events as (
     insert into api_event_outbox (company_id, type, data, created_at)
     select ${company}, e.type, e.data, ${at}
       from ${source} e
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

/** Records events in the caller's transaction (published once it commits). */
export async function recordApiEvents(db: Db, companyId: CompanyId, events: NewApiEvent[], now: Date): Promise<void> {
  if (events.length === 0) return
  // json, not jsonb: the payload keeps the API's key order byte for byte.
  const types = events.map((event) => event.type)
  const data = events.map((event) => JSON.stringify(event.data))
  await run(db, recordEventsQuery, [companyId, types, data, now])
}

export const recordApiEvent = (db: Db, companyId: CompanyId, type: EventType, data: unknown, now: Date) =>
  recordApiEvents(db, companyId, [{ type, data }], now)

// Publishing and the metrics' backlog read and empty the outbox through these fragments, so
// that only this folder names the table (src/db/owners.ts).

/** The oldest `limit` events of every company, as (id, company_id), by the outbox's id index. */
export const outboxOldest = (limit: string) => `select id, company_id from api_event_outbox order by id limit ${limit}`

/** Deletes the events the CTE `batch` (id, company_id) lists, once `condition` holds, returning them whole. */
export const outboxTakeBatch = (batch: string, condition: string) => `delete from api_event_outbox o
      using ${batch} b
      where o.company_id = b.company_id and o.id = b.id and ${condition}
     returning o.*`

/** Deletes a company's oldest `limit` events, once `condition` holds, returning them whole: by the primary key (company_id, id). */
export const outboxTakeCompany = (company: string, limit: string, condition: string) => `delete from api_event_outbox o
      where o.company_id = ${company}
        and o.id in (select id from api_event_outbox where company_id = ${company} order by id limit ${limit})
        and ${condition}
     returning o.*`

/** How many events wait in the outbox, every company's, as a scalar subquery. */
export const OUTBOX_COUNT = '(select count(*)::int from api_event_outbox)'
