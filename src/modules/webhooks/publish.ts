// Publishing: events recorded by committed writes (api_event_outbox, see ../outbox/outbox.ts) move
// into api_events, where the event log and the deliveries read them. A move gives each
// event its id and its company's next sequence number (the counters row ('events', 0)), and
// makes its pending deliveries, one per enabled subscription of the company whose `events`
// name its type (or '*': every type but audit records, which go only to subscriptions that
// name them), due since the event was recorded: one statement.
//
// Why after the commit: numbering in the writing transaction meant holding the company's
// sequence row from the write to its COMMIT, and every writer of the company queued behind
// it (docs/performance.md, "4. Writes in one company: the counter row and the event
// sequence"). Publishing keeps the promise the numbering made (docs/webhooks.md): within a
// company, ids and sequence numbers increase in the order events become visible, so a poll
// by after_id never finds an event behind one it has read. A move holds the company's
// publishing lock (an advisory lock, to COMMIT) and takes only what its snapshot shows
// committed; an event committed meanwhile waits for the next move, and gets a higher number.
// The statement's snapshot is older than its lock: rows a move that held the lock first has
// already taken are gone when this one reaches them, and a deleted row is passed over (READ
// COMMITTED), so no event moves twice.
//
// Who publishes: the delivery worker of every instance, each turn (every company, oldest
// first, locks taken in company order); and the event log before it reads a company's
// events, so a client sees its own changes there at once.
import type { Db } from '../../db/db.js'
import { addToCounters } from '../../db/counters.js'
import { defineQuery, run } from '../../db/query.js'
import type { CompanyId } from '../../tenancy.js'
import { AUDIT_EVENT_TYPE, outboxOldest, outboxTakeBatch, outboxTakeCompany } from '../outbox/index.js'

/** The advisory lock key of a company's publishing, from a SQL expression of its id. */
const publishingLock = (company: string) => `hashtextextended('events:' || ${company}, 0)`

/** The move of the rows of `staged` (the outbox rows deleted, RETURNING *): numbered, inserted, fanned out. */
const MOVE = `numbered as (
     ${addToCounters(`     select company_id, 'events', 0, count(*) from staged group by company_id order by company_id`)}
     returning company_id, value
   ), published as (
     insert into api_events (company_id, sequence, type, data, created_at)
     select s.company_id,
            n.value - count(*) over (partition by s.company_id) + row_number() over (partition by s.company_id order by s.id),
            s.type, s.data, s.created_at
       from staged s
       join numbered n on n.company_id = s.company_id
      order by s.id
     returning company_id, id, type, created_at
   ), fanned as (
     insert into webhook_deliveries (company_id, subscription_id, event_id, next_attempt_at, created_at)
     select p.company_id, s.id, p.id, p.created_at, p.created_at
       from published p
       join webhook_subscriptions s
         on s.company_id = p.company_id and s.enabled
        and (p.type = any (s.events) or ('*' = any (s.events) and p.type <> '${AUDIT_EVENT_TYPE}'))
      order by p.id, s.id
     returning 1
   )
   select (select count(*) from published)::int as events, (select count(*) from fanned)::int as deliveries`

// Every company's oldest $1 events (the worker). The batch is read first (by the outbox's
// id index), then its companies' locks are taken in company order, so a move of one
// company (below) waits for it or it for that, and two workers queue instead of deadlocking.
const publishStatement = defineQuery<{ events: number; deliveries: number }>(
  'webhooks.publish',
  `with batch as materialized (
     ${outboxOldest('$1::int')}
   ), locked as (
     select count(pg_advisory_xact_lock(${publishingLock('c.company_id')}))::int as n
       from (select distinct company_id from batch order by company_id offset 0) c
   ), staged as (
     ${outboxTakeBatch('batch', '(select n from locked) >= 0')}
   ), ${MOVE}`,
)

// One company's oldest $2 events (the event log, before reading): the primary key (company_id, id).
const publishCompanyStatement = defineQuery<{ events: number; deliveries: number }>(
  'webhooks.publishCompany',
  `with locked as (
     select count(pg_advisory_xact_lock(${publishingLock('$1::bigint')}))::int as n
   ), staged as (
     ${outboxTakeCompany('$1', '$2::int', '(select n from locked) >= 0')}
   ), ${MOVE}`,
)

/** Publishes up to `limit` of the oldest recorded events of every company; answers how many it moved. */
export async function publishEvents(db: Db, limit: number): Promise<number> {
  const [row] = await run(db, publishStatement, [limit])
  return row?.events ?? 0
}

/** Rows per move of one company's events, and moves per call at most. */
const COMPANY_BATCH = 1000
const COMPANY_MOVES = 10

/**
 * Publishes what the company has recorded and committed, in moves of COMPANY_BATCH: all of
 * it, unless more than COMPANY_MOVES moves' worth (a backlog, or writers outpacing the
 * moves), whose rest the worker publishes.
 */
export async function publishCompanyEvents(db: Db, companyId: CompanyId): Promise<void> {
  for (let move = 0; move < COMPANY_MOVES; move++) {
    const [row] = await run(db, publishCompanyStatement, [companyId, COMPANY_BATCH])
    if ((row?.events ?? 0) < COMPANY_BATCH) return
  }
}
