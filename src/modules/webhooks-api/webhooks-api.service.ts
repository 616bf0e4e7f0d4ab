// This file holds the rules of webhook subscriptions, their deliveries and the event log. Every
// user of the company may read its subscriptions, and its admins manage them. A destination is
// checked when it is saved (syntax, https, and every address it resolves to, unless
// WEBHOOK_ALLOW_PRIVATE) and again by the worker at every delivery. Secrets are generated here,
// shown once, and stored encrypted.
import { transaction, type Db } from '../../db/db.js'
import { invalid, notFound, refused } from '../../errors.js'
import { readPage, type PageRequest } from '../../http/pagination.js'
import type { Caller } from '../../tenancy.js'
import type { Acting } from '../../acting.js'
import { changesOf, checkAuditReader, readsAudit, recordAudit, type AuditReader } from '../audit/index.js'
import {
  type CreateWebhookBody,
  deleteSubscription,
  deliveriesPage,
  type DeliveryRow,
  encryptSecret,
  eventsPage,
  type EventsQuery,
  findDelivery,
  findEvent,
  findSubscription,
  ForbiddenDestinationError,
  insertPing,
  insertSubscription,
  lockCompanySubscriptions,
  MAX_SUBSCRIPTIONS,
  newSigningSecret,
  publishCompanyEvents,
  resolveDestination,
  retryDelivery,
  type SubscriptionRow,
  subscriptionsOverview,
  subscriptionsPage,
  updateSubscription,
  type UpdateWebhookBody,
  urlProblem,
  writeSubscriptionSecret,
} from '../webhooks/index.js'
import { AUDIT_EVENT_TYPE, EVENT_TYPES } from '../outbox/index.js'

/**
 * Holds what the rules need from the app: the key the secrets are encrypted with, and whether
 * private destinations are allowed.
 */
export interface WebhookSettings {
  secretKey: Buffer
  allowPrivate: boolean
}

/** How long the previous secret keeps signing after a rotation. */
export const PREVIOUS_SECRET_VALIDITY_MS = 24 * 60 * 60 * 1000
/** The longest a destination's DNS check may take when it is saved. */
const RESOLVE_TIMEOUT_MS = 5000

const KNOWN_TYPES = new Set<string>(EVENT_TYPES)
const ALL = '*'

/** Quotes unknown event types the way a message names them, `"a", "b"`, each cut at 64 characters. */
const quoted = (types: string[]) => types.map((type) => JSON.stringify(type.slice(0, 64))).join(', ')

/**
 * Returns the destination's problem, or null: it checks the URL itself, then, unless private
 * destinations are allowed, where its host resolves.
 */
export async function destinationProblem(url: string, allowPrivate: boolean): Promise<string | null> {
  const problem = urlProblem(url, allowPrivate)
  if (problem) return problem
  if (allowPrivate) return null
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => {
      reject(Object.assign(new Error('timed out'), { code: 'ETIMEOUT' }))
    }, RESOLVE_TIMEOUT_MS)
  })
  try {
    await Promise.race([resolveDestination(new URL(url).hostname, false), timeout])
    return null
  } catch (err) {
    if (err instanceof ForbiddenDestinationError) return `must not point to a private or reserved address (${err.message})`
    const code = (err as NodeJS.ErrnoException).code
    return `has a host name that could not be resolved${code ? ` (${code})` : ''}`
  } finally {
    clearTimeout(timer)
  }
}

/** Returns the event types to subscribe to, each once and in the order given, or the problem with them. */
export function eventsProblem(events: string[]): { events: string[] } | { problem: string } {
  const unique = [...new Set(events)]
  if (unique.includes(ALL)) return unique.length === 1 ? { events: [ALL] } : { problem: 'must be ["*"] alone or a list of event types' }
  const unknown = unique.filter((type) => !KNOWN_TYPES.has(type))
  if (unknown.length > 0) return { problem: `${quoted(unknown)} is not included in the list` }
  return { events: unique }
}

async function checkedUrl(url: string, settings: WebhookSettings): Promise<string> {
  const problem = await destinationProblem(url, settings.allowPrivate)
  if (problem) throw invalid({ url: [problem] })
  return url
}

/**
 * Checks the events. Only a caller who may read the audit log may subscribe to audit records,
 * which adds the audit:read scope to the admin role that webhook writes already need.
 */
function checkedEvents(events: string[], who: AuditReader): string[] {
  const checked = eventsProblem(events)
  if ('problem' in checked) throw invalid({ events: [checked.problem] })
  if (checked.events.includes(AUDIT_EVENT_TYPE)) checkAuditReader(who)
  return checked.events
}

const disabled = () => refused({ enabled: ['is false: re-enable the webhook first (PUT with enabled=true)'] })

export function subscriptionsOf(db: Db, caller: Pick<Caller, 'companyId'>, query: PageRequest) {
  return readPage(query, (window) => subscriptionsPage(db, caller.companyId, window))
}

/**
 * Lists every subscription with its latest delivery for the web page, which needs no paging because
 * a company has at most MAX_SUBSCRIPTIONS.
 */
export function subscriptionsOverviewOf(db: Db, caller: Pick<Caller, 'companyId'>) {
  return subscriptionsOverview(db, caller.companyId)
}

export async function subscriptionOf(db: Db, caller: Pick<Caller, 'companyId'>, id: number): Promise<SubscriptionRow> {
  const row = await findSubscription(db, caller.companyId, id)
  if (!row) throw notFound()
  return row
}

/** Creates a subscription and returns it with its secret in the clear, which only this and rotate ever show. */
export async function createSubscription(
  db: Db,
  caller: Pick<Caller, 'companyId'> & Acting & AuditReader,
  input: CreateWebhookBody,
  settings: WebhookSettings,
) {
  const { now, audit: context } = caller
  const events = checkedEvents(input.events, caller)
  const url = await checkedUrl(input.url, settings)
  const secret = newSigningSecret()
  const stored = encryptSecret(settings.secretKey, secret)
  const row = await transaction(db, async (tx) => {
    await lockCompanySubscriptions(tx, caller.companyId)
    const inserted = await insertSubscription(tx, caller.companyId, { url, events, description: input.description ?? null, secret: stored, now }, MAX_SUBSCRIPTIONS)
    if (inserted) {
      await recordAudit(tx, caller.companyId, context, {
        action: 'webhook.created',
        target: { id: inserted.id, label: inserted.url },
        changes: { url: [null, inserted.url], events: [null, inserted.events], description: [null, inserted.description] },
      }, now)
    }
    return inserted
  })
  if (!row) throw refused({ base: [`your company has ${String(MAX_SUBSCRIPTIONS)} webhook subscriptions, the most it may have: delete one first`] })
  return { ...row, secret, previous_secret_expires_at: null }
}

export async function changeSubscription(
  db: Db,
  caller: Pick<Caller, 'companyId'> & Acting & AuditReader,
  id: number,
  input: UpdateWebhookBody,
  settings: WebhookSettings,
) {
  const events = input.events === undefined ? undefined : checkedEvents(input.events, caller)
  const url = input.url === undefined ? undefined : await checkedUrl(input.url, settings)
  const row = await transaction(db, async (tx) => {
    const updated = await updateSubscription(tx, caller.companyId, id, { url, events, description: input.description, enabled: input.enabled, now: caller.now })
    if (updated) await recordSubscriptionChange(tx, caller, updated)
    return updated
  })
  if (!row) throw notFound()
  const { was: _, ...subscription } = row
  return subscription
}

/**
 * Writes one audit record per update that changed something: `webhook.paused` or
 * `webhook.resumed` when only `enabled` changed, else `webhook.changed` with every changed field.
 */
async function recordSubscriptionChange(
  tx: Db,
  caller: Pick<Caller, 'companyId'> & Acting,
  row: SubscriptionRow & { was: Partial<SubscriptionRow> },
) {
  const changes = changesOf(row.was, row, ['url', 'events', 'description', 'enabled'])
  const fields = Object.keys(changes)
  if (fields.length === 0) return
  const action = fields.length === 1 && fields[0] === 'enabled' ? (row.enabled ? 'webhook.resumed' : 'webhook.paused') : 'webhook.changed'
  await recordAudit(tx, caller.companyId, caller.audit, { action, target: { id: row.id, label: row.url }, changes }, caller.now)
}

export async function removeSubscription(db: Db, caller: Pick<Caller, 'companyId'> & Acting, id: number): Promise<void> {
  const deleted = await transaction(db, async (tx) => {
    const row = await deleteSubscription(tx, caller.companyId, id)
    if (row) await recordAudit(tx, caller.companyId, caller.audit, { action: 'webhook.deleted', target: { id: row.id, label: row.url } })
    return row
  })
  if (!deleted) throw notFound()
}

/** Makes a new secret, shown once, while the old one keeps signing for 24 hours. */
export async function rotateSubscriptionSecret(
  db: Db,
  caller: Pick<Caller, 'companyId'> & Acting,
  id: number,
  settings: WebhookSettings,
) {
  const { now, audit: context } = caller
  const secret = newSigningSecret()
  const row = await transaction(db, async (tx) => {
    const rotated = await writeSubscriptionSecret(tx, caller.companyId, id, {
      secret: encryptSecret(settings.secretKey, secret),
      previousExpiresAt: new Date(now.getTime() + PREVIOUS_SECRET_VALIDITY_MS),
      now,
    })
    if (rotated) {
      await recordAudit(tx, caller.companyId, context, {
        action: 'webhook.secret_rotated',
        target: { id: rotated.id, label: rotated.url },
        changes: { previous_secret_expires_at: [null, rotated.previous_secret_expires_at] },
      }, now)
    }
    return rotated
  })
  if (!row) throw notFound()
  return { ...row, secret }
}

/** Queues a `ping` to the subscription, due now, and returns the delivery so that the caller can follow its status. */
export async function pingSubscription(db: Db, caller: Pick<Caller, 'companyId'> & Acting, id: number): Promise<DeliveryRow> {
  const result = await insertPing(db, caller.companyId, id, caller.now)
  if (!result) throw notFound()
  if (!result.enabled) throw disabled()
  return result.delivery
}

/** Reads a page of a subscription's deliveries, and answers 404 when the subscription is not one of the company's. */
export function deliveriesOf(db: Db, caller: Pick<Caller, 'companyId'>, subscriptionId: number, query: PageRequest) {
  return readPage(query, (window) => deliveriesPage(db, caller.companyId, subscriptionId, window))
}

export async function deliveryOf(db: Db, caller: Pick<Caller, 'companyId'>, subscriptionId: number, id: number): Promise<DeliveryRow> {
  const row = await findDelivery(db, caller.companyId, subscriptionId, id)
  if (!row) throw notFound()
  return row
}

/** Sends the delivery again from the start, a delivered one too, as a replay. */
export async function retrySubscriptionDelivery(
  db: Db,
  caller: Pick<Caller, 'companyId'> & Acting,
  subscriptionId: number,
  id: number,
): Promise<DeliveryRow> {
  const { now, audit: context } = caller
  const result = await transaction(db, async (tx) => {
    const retried = await retryDelivery(tx, caller.companyId, subscriptionId, id, now)
    if (retried?.enabled) {
      await recordAudit(tx, caller.companyId, context, {
        action: 'webhook.delivery_replayed',
        target: { id: subscriptionId, label: retried.url },
        changes: { delivery_id: [null, retried.delivery.id], event_type: [null, retried.delivery.event_type] },
      }, now)
    }
    return retried
  })
  if (!result) throw notFound()
  if (!result.enabled) throw disabled()
  return result.delivery
}

/** Parses the event log's `type`, which holds one type or a comma-separated list of them. */
function eventTypesFilter(type: string | undefined): string[] | null {
  if (type === undefined || type === '') return null
  const types = [...new Set(type.split(',').map((t) => t.trim()))]
  const unknown = types.filter((t) => !KNOWN_TYPES.has(t))
  if (unknown.length > 0) throw invalid({ type: [`${quoted(unknown)} is not included in the list`] })
  return types
}

/** Lists every type but audit records, for the event log of a caller who may not read the audit log. */
const PUBLIC_TYPES = EVENT_TYPES.filter((type) => type !== AUDIT_EVENT_TYPE)

/**
 * Reads the company's event log. What the company has recorded and committed is published
 * first, so that a client sees its own changes. Only a caller who may read the audit log sees
 * audit records; for the others they are filtered out, as the records of another company are.
 */
export async function eventLog(db: Db, caller: Pick<Caller, 'companyId'> & AuditReader, query: EventsQuery) {
  const asked = eventTypesFilter(query.type)
  const types = readsAudit(caller) ? asked : (asked ?? PUBLIC_TYPES).filter((type) => type !== AUDIT_EVENT_TYPE)
  const since = query.since === undefined || query.since === '' ? null : new Date(query.since)
  await publishCompanyEvents(db, caller.companyId)
  return readPage(query, (window) => eventsPage(db, caller.companyId, { types, since, afterId: query.after_id ?? 0 }, window))
}

export async function eventOf(db: Db, caller: Pick<Caller, 'companyId'> & AuditReader, id: number) {
  const row = await findEvent(db, caller.companyId, id)
  if (!row || (row.type === AUDIT_EVENT_TYPE && !readsAudit(caller))) throw notFound()
  return row
}
