// The delivery worker's statements (src/modules/webhooks-api/delivery-worker.ts). The worker serves every
// company at once, so these are the only statements here that do not take the caller's
// company: they pick due deliveries wherever they are, by the partial index on pending ones.
import { columns } from '../../db/columns.js'
import type { Db } from '../../db/db.js'
import { defineQuery, run } from '../../db/query.js'
import { OUTBOX_COUNT } from '../outbox/index.js'

/** A leased delivery with everything its post needs. */
export interface ClaimedDelivery {
  company_id: number
  id: number
  subscription_id: number
  /** Counting this one: the guard of recordOutcomes. */
  attempts: number
  first_attempt_at: Date
  /** false: not attempted, marked failed in the claim (the subscription is disabled). */
  enabled: boolean
  url: string
  secret: string
  /** Only while it still verifies (previous_secret_expires_at after now). */
  previous_secret: string | null
  event_id: number
  type: string
  sequence: number
  event_created_at: Date
  /** The stored json, verbatim (the API's key order). */
  data: string
}

// Picks the earliest due deliveries and leases them in one statement: next_attempt_at moves
// to the end of the lease, so another loop or instance sees them due again only if this one
// never records an outcome (it crashed): at least once, never twice at the same time.
// FOR UPDATE SKIP LOCKED: concurrent claims pass over each other's rows instead of waiting.
// Subscriptions at their in-flight limit here ($4) are passed over in the scan; the others get
// at most their remaining slots ($5, $6 in flight of $7), out of a window four times the batch,
// so one endpoint's backlog cannot fill a batch. A disabled subscription's deliveries are
// marked failed, not attempted. The due rows come from webhook_deliveries_due_idx under the
// lock and the limit, and the update and the event go by primary key (docs/performance.md,
// "Figures from the statements").
const claimStatement = defineQuery<ClaimedDelivery>(
  'webhooks.deliveryClaim',
  `with candidates as (
     select d.company_id, d.id, d.subscription_id, d.next_attempt_at
       from webhook_deliveries d
      where d.status = 'pending' and d.next_attempt_at <= $1::timestamptz
        and d.subscription_id <> all ($4::bigint[])
      order by d.next_attempt_at
      limit $2::int * 4
      for update skip locked
   ), ranked as (
     select c.company_id, c.id, c.subscription_id, c.next_attempt_at,
            row_number() over (partition by c.subscription_id order by c.next_attempt_at, c.id) as rank
       from candidates c
   ), chosen as (
     select r.company_id, r.id, r.subscription_id
       from ranked r
       left join unnest($5::bigint[], $6::int[]) as busy (subscription_id, in_flight) on busy.subscription_id = r.subscription_id
      where r.rank <= $7::int - coalesce(busy.in_flight, 0)
      order by r.next_attempt_at, r.id
      limit $2::int
   ), leased as (
     update webhook_deliveries d
        set attempts = d.attempts + case when s.enabled then 1 else 0 end,
            status = case when s.enabled then 'pending' else 'failed' end,
            next_attempt_at = case when s.enabled then $1::timestamptz + $3::int * interval '1 millisecond' end,
            last_attempt_at = case when s.enabled then $1::timestamptz else d.last_attempt_at end,
            first_attempt_at = coalesce(d.first_attempt_at, case when s.enabled then $1::timestamptz end),
            last_error = case when s.enabled then d.last_error else 'not attempted: the subscription is disabled' end
       from chosen c
       join webhook_subscriptions s on s.company_id = c.company_id and s.id = c.subscription_id
      where d.company_id = c.company_id and d.id = c.id
      returning d.company_id, d.id, d.subscription_id, d.event_id, d.attempts, d.first_attempt_at, s.enabled,
                s.url, s.secret, s.previous_secret, s.previous_secret_expires_at
   )
   select l.company_id, l.id, l.subscription_id, l.attempts, l.first_attempt_at, l.enabled, l.url, l.secret,
          case when l.previous_secret_expires_at > $1::timestamptz then l.previous_secret end as previous_secret,
          e.id as event_id, e.type, e.sequence, e.created_at as event_created_at, e.data::text as data
     from leased l
     join api_events e on e.company_id = l.company_id and e.id = l.event_id
    order by e.created_at, e.id`,
)

export interface ClaimLimits {
  now: Date
  /** At most this many deliveries. */
  limit: number
  leaseMs: number
  perSubscription: number
  /** Posts in flight here, by subscription id (ids are unique across companies). */
  inFlight: ReadonlyMap<number, number>
}

export function claimDeliveries(db: Db, limits: ClaimLimits): Promise<ClaimedDelivery[]> {
  const busy = [...limits.inFlight]
  const saturated = busy.filter(([, n]) => n >= limits.perSubscription).map(([id]) => id)
  return run(db, claimStatement, [
    limits.now,
    limits.limit,
    limits.leaseMs,
    saturated,
    busy.map(([id]) => id),
    busy.map(([, n]) => n),
    limits.perSubscription,
  ])
}

/** What an attempt came to. */
export interface Outcome {
  companyId: number
  id: number
  /** The claim's count: an outcome for an attempt that is no longer the latest is dropped. */
  attempts: number
  status: 'pending' | 'delivered' | 'failed'
  responseStatus: number | null
  error: string | null
  /** pending: the next attempt; otherwise null. */
  nextAttemptAt: Date | null
}

// Outcomes of a batch of attempts in one statement: the deliveries (primary key; only the
// attempt they were leased for), then their subscriptions, only when something changes: the
// first failure sets failing_since, a success clears it, and 3 days of failures disable the
// subscription with the reason (its rows are locked after the deliveries', and rarely).
// The 3 days count to the failed attempts' own time (last_attempt_at, set by the claim), not
// to when they are recorded: an earlier attempt recorded late must not disable the
// subscription before its oldest delivery's last attempt, due at the 3 days, is made.
const recordStatement = defineQuery<{ company_id: number; id: number; url: string; disabled: boolean }>(
  'webhooks.deliveryRecord',
  `with outcome as (
     select *
       from unnest($1::bigint[], $2::bigint[], $3::int[], $4::text[], $5::int[], $6::text[], $7::timestamptz[])
         as o (company_id, id, attempts, status, response_status, error, next_attempt_at)
   ), recorded as (
     update webhook_deliveries d
        set status = o.status,
            next_attempt_at = o.next_attempt_at,
            last_response_status = o.response_status,
            last_error = o.error,
            delivered_at = case when o.status = 'delivered' then $8::timestamptz end
       from outcome o
      where d.company_id = o.company_id and d.id = o.id and d.status = 'pending' and d.attempts = o.attempts
      returning d.company_id, d.subscription_id, d.last_attempt_at, o.status = 'delivered' as delivered, o.error
   ), by_subscription as (
     select company_id, subscription_id, bool_or(delivered) as delivered,
            min(last_attempt_at) filter (where not delivered) as failed_since,
            max(last_attempt_at) filter (where not delivered) as last_failed_at,
            (array_agg(error order by last_attempt_at desc) filter (where not delivered))[1] as last_error
       from recorded
      group by company_id, subscription_id
   ), verdict as (
     select s.company_id, s.id, b.delivered, b.failed_since, b.last_error, s.failing_since as was_failing_since,
            not b.delivered and s.enabled
              and coalesce(s.failing_since, b.failed_since) <= b.last_failed_at - $9::int * interval '1 millisecond' as disable
       from by_subscription b
       join webhook_subscriptions s on s.company_id = b.company_id and s.id = b.subscription_id
   )
   update webhook_subscriptions s
      set failing_since = case when v.delivered then null else coalesce(s.failing_since, v.failed_since) end,
          enabled = s.enabled and not v.disable,
          disabled_at = case when v.disable then $8::timestamptz else s.disabled_at end,
          disabled_reason = case when v.disable
            then 'every delivery failed since '
                 || to_char(coalesce(s.failing_since, v.failed_since) at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"')
                 || '; last attempt: ' || coalesce(v.last_error, 'failed')
            else s.disabled_reason end,
          updated_at = case when v.disable then $8::timestamptz else s.updated_at end
     from verdict v
    where s.company_id = v.company_id and s.id = v.id
      and case when v.delivered then v.was_failing_since is not null else v.was_failing_since is null or v.disable end
    returning s.company_id, s.id, s.url, v.disable as disabled`,
)

/** A subscription the outcomes disabled (3 days of failures). */
export interface DisabledSubscription {
  company_id: number
  id: number
  url: string
}

/** Records outcomes; answers the subscriptions it disabled. */
export async function recordOutcomes(db: Db, outcomes: Outcome[], now: Date, disableAfterMs: number): Promise<DisabledSubscription[]> {
  if (outcomes.length === 0) return []
  const rows = await run(db, recordStatement, [
    ...columns(outcomes, ['companyId', 'id', 'attempts', 'status', 'responseStatus', 'error', 'nextAttemptAt']),
    now,
    disableAfterMs,
  ])
  return rows.filter((row) => row.disabled).map(({ company_id, id, url }) => ({ company_id, id, url }))
}

// Events (and, by the foreign key's cascade through webhook_deliveries_event_idx, their
// deliveries) recorded before $1, oldest first, at most $2 at a time: api_events_created_idx.
// SKIP LOCKED: instances pruning at the same moment take different rows. Without the event
// index, the cascade would scan every delivery once per event
// (docs/performance.md, "Figures from the statements").
const pruneStatement = defineQuery<{ deleted: number }>(
  'webhooks.deliveryPrune',
  `with old as (
     select company_id, id from api_events
      where created_at < $1::timestamptz
      order by created_at
      limit $2::int
      for update skip locked
   ), gone as (
     delete from api_events e using old where e.company_id = old.company_id and e.id = old.id
     returning 1
   )
   select count(*)::int as deleted from gone`,
)

export async function pruneEvents(db: Db, before: Date, limit: number): Promise<number> {
  const [row] = await run(db, pruneStatement, [before, limit])
  return row?.deleted ?? 0
}

// The metrics' backlog (src/plugins/metrics.plugin.ts): events not yet fanned out (the whole outbox,
// by api_event_outbox_id_idx) and deliveries still pending (webhook_deliveries_due_idx, the
// partial index of the pending ones), with the oldest pending delivery's creation.
const backlogStatement = defineQuery<{ events: number; deliveries: number; oldest: Date | null }>(
  'webhooks.backlog',
  `select ${OUTBOX_COUNT} as events,
          count(*)::int as deliveries,
          min(d.created_at) as oldest
     from webhook_deliveries d
    where d.status = 'pending' and d.next_attempt_at is not null`,
)

export interface WebhookBacklog {
  events: number
  deliveries: number
  /** Age of the oldest pending delivery in seconds; 0 when none is pending. */
  oldestSeconds: number
}

export async function webhookBacklog(db: Db, now: Date): Promise<WebhookBacklog> {
  const [row] = await run(db, backlogStatement, [])
  const oldest = row?.oldest ?? null
  return { events: row?.events ?? 0, deliveries: row?.deliveries ?? 0, oldestSeconds: oldest ? Math.max(0, (now.getTime() - oldest.getTime()) / 1000) : 0 }
}
