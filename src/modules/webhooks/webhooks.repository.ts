// The statements of the webhooks API: subscriptions, their deliveries, and the event log
// (the delivery worker's own statements are in webhooks.delivery.repository.ts). Every one
// takes the caller's company, compared as COMPANY (src/db/company.ts) as in the other modules (a
// company the planner has no statistics for otherwise gets a plan reading all its rows),
// and answers in one round trip: a page comes with its total.
import type { Db } from '../../db/db.js'
import { COMPANY } from '../../db/company.js'
import { childPageReader, limitOffset, pageParams, unwrapPage, withinTotal, type Page, type PageRow, type PageSlice } from '../../db/paging.js'
import { recordSql, type Row } from '../../db/records.js'
import { defineQuery, run, runOne } from '../../db/query.js'
import type { CompanyId } from '../../tenancy.js'
import { Event, WebhookDelivery, WebhookSubscription } from './webhooks.schemas.js'

export type SubscriptionRow = Row<typeof WebhookSubscription>
export type DeliveryRow = Row<typeof WebhookDelivery>
export type EventRow = Row<typeof Event>

const SUBSCRIPTION = recordSql(WebhookSubscription, 'webhook_subscriptions s').columns()
// From `d` (webhook_deliveries) and its event `e`.
const DELIVERY = recordSql(WebhookDelivery, 'webhook_deliveries d join api_events e on e.company_id = d.company_id and e.id = d.event_id', {
  event_type: () => 'e.type',
}).columns()
const EVENT = recordSql(Event, 'api_events e').columns('')

/** Pings (POST /webhooks/:id/test) are events of this type, never listed: they are not changes. */
export const PING = 'ping'

// ---------------------------------------------------------------------------------------
// Subscriptions

// Creations of one company take turns (the cap is counted in the next statement, which
// therefore sees every subscription committed before it).
const lockStatement = defineQuery<{ locked: string }>(
  'webhooks.lockCompany',
  `select pg_advisory_xact_lock(hashtextextended('webhooks:' || $1::bigint, 0))::text as locked`,
)

export async function lockCompanySubscriptions(tx: Db, companyId: CompanyId): Promise<void> {
  await run(tx, lockStatement, [companyId])
}

// Inserts unless the company has $7 subscriptions already (counted through the primary key).
const insertStatement = defineQuery<SubscriptionRow>(
  'webhooks.insert',
  `insert into webhook_subscriptions as s (company_id, url, events, description, secret, created_at, updated_at)
   select $1, $2, $3::text[], $4, $5, $6, $6
    where (select count(*) from webhook_subscriptions where company_id = ${COMPANY}) < $7::int
   returning ${SUBSCRIPTION}`,
)

export interface NewSubscription {
  url: string
  events: string[]
  description: string | null
  /** Encrypted (secrets.ts). */
  secret: string
  now: Date
}

/** The new subscription, or undefined when the company is at `cap`. */
export function insertSubscription(tx: Db, companyId: CompanyId, values: NewSubscription, cap: number): Promise<SubscriptionRow | undefined> {
  return runOne(tx, insertStatement, [companyId, values.url, values.events, values.description, values.secret, values.now, cap])
}

const PAGE = pageParams(2, 3)
// The total, then the page's rows by the primary key (company_id, id); no rows read past the end.
const pageStatement = defineQuery<PageRow<SubscriptionRow>>(
  'webhooks.page',
  `with total as materialized (select count(*)::int as n from webhook_subscriptions where company_id = ${COMPANY})
   select total.n as total, p.*
     from total
     left join lateral (
       select ${SUBSCRIPTION} from webhook_subscriptions s
        where s.company_id = ${COMPANY}
        order by s.id ${limitOffset(PAGE)}
     ) p on ${withinTotal(PAGE, 'total.n')}`,
)

export async function subscriptionsPage(
  db: Db,
  companyId: CompanyId,
  page: PageSlice,
): Promise<Page<SubscriptionRow>> {
  return unwrapPage(await run(db, pageStatement, [companyId, page.limit, page.offset]))
}

const byIdStatement = defineQuery<SubscriptionRow>(
  'webhooks.byId',
  `select ${SUBSCRIPTION} from webhook_subscriptions s where s.company_id = ${COMPANY} and s.id = $2`,
  { pipelined: true },
)

export function findSubscription(db: Db, companyId: CompanyId, id: number): Promise<SubscriptionRow | undefined> {
  return runOne(db, byIdStatement, [companyId, id])
}

/** A subscription with how its latest delivery went (the web page). */
export interface SubscriptionOverview extends SubscriptionRow {
  last_delivery_status: DeliveryRow['status'] | null
  last_delivery_at: Date | null
  last_delivery_error: string | null
}

// Every subscription (at most MAX_SUBSCRIPTIONS) and its newest delivery, backwards on
// webhook_deliveries_subscription_idx (company_id, subscription_id, id).
const overviewStatement = defineQuery<SubscriptionOverview>(
  'webhooks.overview',
  `select ${SUBSCRIPTION}, last.status as last_delivery_status,
          coalesce(last.delivered_at, last.last_attempt_at) as last_delivery_at, last.last_error as last_delivery_error
     from webhook_subscriptions s
     left join lateral (
       select d.status, d.delivered_at, d.last_attempt_at, d.last_error
         from webhook_deliveries d
        where d.company_id = s.company_id and d.subscription_id = s.id
        order by d.id desc limit 1
     ) last on true
    where s.company_id = ${COMPANY}
    order by s.id`,
)

export function subscriptionsOverview(db: Db, companyId: CompanyId): Promise<SubscriptionOverview[]> {
  return run(db, overviewStatement, [companyId])
}

// Parameters: $3 url, $4 events, $5 whether to set the description, $6 the description,
// $7 enabled (null: unchanged), $8 now. Re-enabling clears the reason, the time and the
// failing streak (the worker's 3-day clock); disabling by hand says so. `was` (the row as
// the statement found it) gives the previous values the audit log records.
const updateStatement = defineQuery<SubscriptionRow & { was: Previous }>(
  'webhooks.update',
  `update webhook_subscriptions s
      set url = coalesce($3, s.url),
          events = coalesce($4::text[], s.events),
          description = case when $5::boolean then $6 else s.description end,
          enabled = coalesce($7::boolean, s.enabled),
          disabled_reason = case when $7::boolean then null
                                 when not $7::boolean and s.enabled then 'disabled through the API'
                                 else s.disabled_reason end,
          disabled_at = case when $7::boolean then null
                             when not $7::boolean and s.enabled then $8::timestamptz
                             else s.disabled_at end,
          failing_since = case when $7::boolean and not s.enabled then null else s.failing_since end,
          updated_at = $8::timestamptz
     from webhook_subscriptions was
    where s.company_id = ${COMPANY} and s.id = $2 and was.company_id = s.company_id and was.id = s.id
    returning ${SUBSCRIPTION}, json_build_object('url', was.url, 'events', was.events, 'description', was.description, 'enabled', was.enabled) as was`,
)

/** A subscription's fields before an update. */
export interface Previous {
  url: string
  events: string[]
  description: string | null
  enabled: boolean
}

export interface SubscriptionChanges {
  url?: string | undefined
  events?: string[] | undefined
  /** undefined: unchanged; null clears it. */
  description?: string | null | undefined
  enabled?: boolean | undefined
  now: Date
}

export function updateSubscription(db: Db, companyId: CompanyId, id: number, changes: SubscriptionChanges): Promise<(SubscriptionRow & { was: Previous }) | undefined> {
  return runOne(db, updateStatement, [
    companyId,
    id,
    changes.url ?? null,
    changes.events ?? null,
    changes.description !== undefined,
    changes.description ?? null,
    changes.enabled ?? null,
    changes.now,
  ])
}

// Its deliveries go with it (the foreign key cascade, through webhook_deliveries_subscription_idx).
const deleteStatement = defineQuery<{ id: number; url: string }>(
  'webhooks.delete',
  `delete from webhook_subscriptions where company_id = ${COMPANY} and id = $2 returning id, url`,
)

/** The deleted subscription's id and URL, or undefined when there was none. */
export async function deleteSubscription(db: Db, companyId: CompanyId, id: number) {
  return runOne(db, deleteStatement, [companyId, id])
}

// The current secret becomes the previous one, verifying until $4 (now + 24 h); a secret
// that was already previous is dropped.
const rotateStatement = defineQuery<SubscriptionRow & { previous_secret_expires_at: Date }>(
  'webhooks.rotate',
  `update webhook_subscriptions s
      set previous_secret = s.secret, previous_secret_expires_at = $4, secret = $3, updated_at = $5
    where s.company_id = ${COMPANY} and s.id = $2
    returning ${SUBSCRIPTION}, s.previous_secret_expires_at`,
)

export function writeSubscriptionSecret(
  db: Db,
  companyId: CompanyId,
  id: number,
  values: { secret: string; previousExpiresAt: Date; now: Date },
): Promise<(SubscriptionRow & { previous_secret_expires_at: Date }) | undefined> {
  return runOne(db, rotateStatement, [companyId, id, values.secret, values.previousExpiresAt, values.now])
}

// A ping: an event of type 'ping' outside the company's numbering (sequence 0, the events
// counter untouched, never listed) and one pending delivery to this subscription only, due
// now; the worker delivers it like any other. Nothing is written for a disabled one.
const pingStatement = defineQuery<{ enabled: boolean } & (DeliveryRow | { id: null })>(
  'webhooks.ping',
  `with s as (
     select company_id, id, enabled from webhook_subscriptions where company_id = ${COMPANY} and id = $2
   ), event as (
     insert into api_events (company_id, sequence, type, data, created_at)
     -- row_to_json writes compact JSON as every other event's data; json_build_object spaces its colons.
     select s.company_id, 0, '${PING}', (select row_to_json(p) from (select s.id as webhook_id) p), $3 from s where s.enabled
     returning company_id, id, type
   ), d as (
     insert into webhook_deliveries (company_id, subscription_id, event_id, next_attempt_at, created_at)
     select event.company_id, $2, event.id, $3, $3 from event
     returning *
   )
   select s.enabled, ${DELIVERY}
     from s left join d on true left join event e on true`,
)

/** undefined: no such subscription; `{enabled: false}`: disabled, nothing sent. */
export async function insertPing(
  db: Db,
  companyId: CompanyId,
  subscriptionId: number,
  now: Date,
): Promise<{ enabled: false } | { enabled: true; delivery: DeliveryRow } | undefined> {
  const row = await runOne(db, pingStatement, [companyId, subscriptionId, now])
  if (!row) return undefined
  if (!row.enabled || row.id === null) return { enabled: false }
  const { enabled: _, ...rest } = row
  return { enabled: true, delivery: rest }
}

// ---------------------------------------------------------------------------------------
// Deliveries

const DELIVERIES_PAGE = pageParams(3, 4)
// Whether the subscription is there, the total of its deliveries and a page of them, newest
// first: all on webhook_deliveries_subscription_idx (the total index-only, the page backwards),
// each event by primary key.
const deliveriesPageStatement = defineQuery<PageRow<DeliveryRow, { found: boolean }>>(
  'webhooks.deliveriesPage',
  `with sub as materialized (
     select id from webhook_subscriptions where company_id = ${COMPANY} and id = $2
   ), total as materialized (
     select count(*)::int as n from webhook_deliveries
      where company_id = ${COMPANY} and subscription_id = (select id from sub)
   )
   select exists (select 1 from sub) as found, total.n as total, p.*
     from total
     left join lateral (
       select ${DELIVERY}
         from webhook_deliveries d
         join api_events e on e.company_id = d.company_id and e.id = d.event_id
        where d.company_id = ${COMPANY} and d.subscription_id = $2
        order by d.id desc ${limitOffset(DELIVERIES_PAGE)}
     ) p on ${withinTotal(DELIVERIES_PAGE, 'total.n')}`,
)

/** A page of a subscription's deliveries (newest first) and their total; undefined when it is not a subscription of the company. */
export const deliveriesPage = childPageReader(deliveriesPageStatement, 'found')

const deliveryByIdStatement = defineQuery<DeliveryRow>(
  'webhooks.deliveryById',
  `select ${DELIVERY}
     from webhook_deliveries d
     join api_events e on e.company_id = d.company_id and e.id = d.event_id
    where d.company_id = ${COMPANY} and d.subscription_id = $2 and d.id = $3`,
  { pipelined: true },
)

export function findDelivery(db: Db, companyId: CompanyId, subscriptionId: number, id: number): Promise<DeliveryRow | undefined> {
  return runOne(db, deliveryByIdStatement, [companyId, subscriptionId, id])
}

// A retry starts the delivery over (a replay when it was delivered): pending, due now, no
// attempts yet, a new 3-day window; the last answer stays until the next attempt. An
// outcome of an attempt in flight meanwhile no longer matches `attempts`, so the worker
// drops it (webhooks.deliveryRecord). Nothing changes while the subscription is disabled.
const retryStatement = defineQuery<{ enabled: boolean; subscription_url: string } & (DeliveryRow | { id: null })>(
  'webhooks.deliveryRetry',
  `with target as (
     select d.company_id, d.id, s.enabled, s.url
       from webhook_deliveries d
       join webhook_subscriptions s on s.company_id = d.company_id and s.id = d.subscription_id
      where d.company_id = ${COMPANY} and d.subscription_id = $2 and d.id = $3
   ), d as (
     update webhook_deliveries d
        set status = 'pending', attempts = 0, first_attempt_at = null, next_attempt_at = $4, delivered_at = null
       from target t
      where t.enabled and d.company_id = t.company_id and d.id = t.id
      returning d.*
   )
   select target.enabled, target.url as subscription_url, ${DELIVERY}
     from target
     left join d on true
     left join api_events e on e.company_id = d.company_id and e.id = d.event_id`,
)

export async function retryDelivery(
  db: Db,
  companyId: CompanyId,
  subscriptionId: number,
  id: number,
  now: Date,
): Promise<{ enabled: false } | { enabled: true; delivery: DeliveryRow; url: string } | undefined> {
  const row = await runOne(db, retryStatement, [companyId, subscriptionId, id, now])
  if (!row) return undefined
  if (!row.enabled || row.id === null) return { enabled: false }
  const { enabled: _, subscription_url: url, ...rest } = row
  return { enabled: true, delivery: rest, url }
}

// ---------------------------------------------------------------------------------------
// The event log


const EVENTS_PAGE = pageParams(4, 5)
// The company's events (pings left out), id ascending, with the total. $2 since (null: any
// time), $3 after this id (0: from the start), $4 limit, $5 offset; the typed variant adds
// $6 the types. The page reads the primary key (company_id, id) from $3 on, and the total
// counts the same rows (for the whole log, every event of the 30 days). No index has the
// company and created_at, so `since` without after_id is the slow case, which is why polling
// clients use after_id (docs/webhooks.md; docs/performance.md, "Figures from the statements").
const eventsStatement = (name: string, typed: boolean) => {
  const where = `company_id = ${COMPANY} and id > $3::bigint and type <> '${PING}'
          and ($2::timestamptz is null or created_at >= $2::timestamptz)${typed ? ' and type = any ($6::text[])' : ''}`
  return defineQuery<PageRow<EventRow>>(
    name,
    `with total as materialized (select count(*)::int as n from api_events where ${where})
     select total.n as total, p.*
       from total
       left join lateral (
         select ${EVENT} from api_events where ${where} order by id ${limitOffset(EVENTS_PAGE)}
       ) p on ${withinTotal(EVENTS_PAGE, 'total.n')}`,
  )
}

const eventsPageStatement = eventsStatement('webhooks.eventsPage', false)
const eventsOfTypesPageStatement = eventsStatement('webhooks.eventsOfTypesPage', true)

export interface EventFilter {
  /** null: every type. */
  types: string[] | null
  since: Date | null
  afterId: number
}

export async function eventsPage(
  db: Db,
  companyId: CompanyId,
  filter: EventFilter,
  page: PageSlice,
): Promise<Page<EventRow>> {
  const params: unknown[] = [companyId, filter.since, filter.afterId, page.limit, page.offset]
  const rows = filter.types ? await run(db, eventsOfTypesPageStatement, [...params, filter.types]) : await run(db, eventsPageStatement, params)
  return unwrapPage(rows, 'id', ['total'])
}

const eventByIdStatement = defineQuery<EventRow>(
  'webhooks.eventById',
  `select ${EVENT} from api_events where company_id = ${COMPANY} and id = $2 and type <> '${PING}'`,
  { pipelined: true },
)

export function findEvent(db: Db, companyId: CompanyId, id: number): Promise<EventRow | undefined> {
  return runOne(db, eventByIdStatement, [companyId, id])
}

/**
 * An `exists` probe's body: the enabled subscriptions of company `company` to event type
 * `type` (SQL expressions), read by the primary key's company_id (a company has a handful).
 * `br` separates the two clauses (a line break and indentation in the borrower's layout).
 * The audit insert composes it: an `audit_event.created` event is written only while one exists.
 */
export const subscriptionsToProbe = (company: string, type: string, br = ' ') =>
  `select from webhook_subscriptions s${br}where s.company_id = ${company} and s.enabled and ${type} = any (s.events)`
