// Contact events are written by the service that makes the change, inside its transaction.
import { columns } from '../../db/columns.js'
import type { Db } from '../../db/db.js'
import { COMPANY } from '../../db/company.js'
import { pageIdsArray, pageParams, rowsByIds, withinTotal } from '../../db/paging.js'
import { defineQuery, run } from '../../db/query.js'
import type { Row } from '../../db/records.js'
import type { CompanyId } from '../../tenancy.js'
import type { ContactEvent, ContactEventKind } from './events.schemas.js'

export interface NewContactEvent {
  contactId: number
  kind: ContactEventKind
  /** Who caused it; null for the admin command line. */
  userId: number | null
  data?: Record<string, unknown>
  occurredAt?: Date
}

/**
 * The head of an insert of contact events, for another module's statement that writes them
 * with its change (one round trip): a select of (company_id, contact_id, kind, user_id, data,
 * occurred_at) follows.
 */
export const INSERT_CONTACT_EVENTS = 'insert into contact_events (company_id, contact_id, kind, user_id, data, occurred_at)'

// Events in the given order (ids ascending), now() where no moment is given.
const insertEvents = defineQuery<never>(
  'events.insert',
  `${INSERT_CONTACT_EVENTS}
   select $1, e.contact_id, e.kind, e.user_id, e.data, coalesce(e.occurred_at, now())
     from unnest($2::bigint[], $3::contact_event_kind[], $4::bigint[], $5::jsonb[], $6::timestamptz[])
          with ordinality as e(contact_id, kind, user_id, data, occurred_at, n)
    order by e.n`,
)

export async function recordContactEvents(db: Db, companyId: CompanyId, events: NewContactEvent[]): Promise<void> {
  if (events.length === 0) return
  await run(db, insertEvents, [
    companyId,
    ...columns(events, ['contactId', 'kind', 'userId']),
    events.map((e) => JSON.stringify(e.data ?? {})),
    events.map((e) => e.occurredAt ?? null),
  ])
}

export const recordContactEvent = (db: Db, companyId: CompanyId, event: NewContactEvent) =>
  recordContactEvents(db, companyId, [event])

/** A contact event as the API shows it (both timestamps are the moment it happened: events never change). */
export type ContactEventRecord = Row<typeof ContactEvent>

// A page of a live contact's events, newest first, with their total, in one statement. The
// contact is checked in it too (one row with live = false when it is not a live contact of the
// company), so the request is one round trip. The company is compared as COMPANY
// (src/db/company.ts says why). The total counts contact_events_contact_idx (company_id,
// contact_id, id) index-only; the page's ids come from the same index, read backwards (newest
// first), or forwards from the oldest for a page in the second half, so the last page costs what
// the first does; then the rows by primary key. A page past the end reads no event.
// $3 limit, $4 offset (src/db/paging.ts).
const PAGE = pageParams(3, 4)

/**
 * The statement of a page of contact $2's events (events.contactPage), `live` the SQL test that
 * it is a live contact of company $1: the contacts module, which owns contacts, writes that test
 * and defines the statement, since this module cannot import it (contacts imports this one).
 */
export const contactEventsPageSql = (live: string) =>
  `with total as materialized (
     select ${live} as live,
            (select count(*) from contact_events
              where company_id = ${COMPANY} and contact_id = $2) as n
   )
   select total.live, total.n as total, p.*
     from total
     left join lateral (
       select e.id, e.contact_id, e.kind, e.user_id, e.data, e.occurred_at,
              e.occurred_at as created_at, e.occurred_at as updated_at
         from ${rowsByIds('contact_events', 'e', COMPANY, pageIdsArray(PAGE, 'total.n', ['id desc', 'id'], (order, limit, offset) => `array(select id from contact_events
                                       where company_id = ${COMPANY} and contact_id = $2
                                       order by ${order} limit ${limit} offset ${offset})`))}
        where ${withinTotal(PAGE, 'total.n')}
          and total.live
        order by e.id desc
     ) p on true`
