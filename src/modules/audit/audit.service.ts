// The audit log's rules: recording (one insert, in the transaction of the change it
// describes), the newest-first list with its signed cursor, the JSON Lines export and the
// retention. Records are never changed; only the retention job removes them.
import type { Db } from '../../db/db.js'
import { forbiddenRole, insufficientScope, invalid } from '../../errors.js'
import { DEFAULT_PER_PAGE } from '../../http/pagination.js'
import { decodeCursor, encodeCursor } from '../../http/sync.js'
import type { Caller, CompanyId } from '../../tenancy.js'
import { AUDIT_ACTIONS, type AuditAction, type FailureReason } from './audit.actions.js'
import type { AuditContext } from '../../acting.js'
import { auditPage, exportBatch, insertAuditRow, pruneAuditRows, type AuditDriver, type AuditFilters, type AuditRecord } from './audit.repository.js'
import type { AuditEventsQuery, AuditExportQuery } from './audit.schemas.js'

export interface AuditTarget {
  id: number | null
  label: string | null
}

/** One field's change: [old, new] (null where there was none). Never a secret. */
export type Changes = Record<string, [unknown, unknown]>

export interface AuditEntry {
  action: AuditAction
  target: AuditTarget
  /** Left out: success. */
  failure?: FailureReason
  changes?: Changes
}

const LABEL_MAX = 255
const cut = (text: string | null) => (text === null ? null : Array.from(text).slice(0, LABEL_MAX).join(''))

// A last guard: a field whose name says it holds a secret never reaches a record, whatever a
// caller passes (a test also searches every record for the secrets the suite made).
const SECRET_FIELD = /(^|_)(secret|password|hash|token)$/i

function safeChanges(changes: Changes | undefined): string | null {
  if (!changes) return null
  const kept = Object.entries(changes).filter(([field]) => !SECRET_FIELD.test(field))
  return kept.length === 0 ? null : JSON.stringify(Object.fromEntries(kept))
}

/**
 * Records one action of `context`'s actor on the company's `entry.target`. Call it with the
 * transaction that makes the change, so the record commits with it or not at all: one insert.
 */
export async function recordAudit(db: Db, companyId: CompanyId, context: AuditContext, entry: AuditEntry, now: Date = new Date()) {
  const [targetType] = entry.action.split('.')
  return insertAuditRow(db, companyId, {
    occurredAt: now,
    action: entry.action,
    actorType: context.actor.type,
    actorId: context.actor.id,
    actorLabel: cut(context.actor.label),
    onBehalfOf: context.actor.onBehalfOf ?? null,
    targetType: targetType ?? entry.action,
    targetId: entry.target.id,
    targetLabel: cut(entry.target.label),
    outcome: entry.failure ? 'failure' : 'success',
    reason: entry.failure ?? null,
    ip: context.ip,
    userAgent: context.userAgent,
    requestId: context.requestId,
    changes: safeChanges(entry.changes),
  })
}

/** The changed fields of an update: those whose old and new values differ (compared as JSON). */
export function changesOf<T extends object>(before: Partial<T>, after: T, fields: (keyof T & string)[]): Changes {
  const changes: Changes = {}
  for (const field of fields) {
    const was = before[field] ?? null
    const is = after[field] ?? null
    if (JSON.stringify(was) !== JSON.stringify(is)) changes[field] = [was, is]
  }
  return changes
}

/** Who asks: a token's caller (role and scopes), or a web session's account (role; full access). */
export interface AuditReader {
  role: 'admin' | 'member'
  access?: { grants: ReadonlySet<string> | null }
}

/** Whether `who` may read the audit log, as its routes allow: an admin, with `audit:read` (or full access). */
export function readsAudit(who: AuditReader): boolean {
  const grants = who.access?.grants ?? null
  return who.role === 'admin' && (grants === null || grants.has('audit:read'))
}

/** Refuses as the audit log's routes do: a member 403 forbidden_role, a token without the scope 403 insufficient_scope. */
export function checkAuditReader(who: AuditReader): void {
  const grants = who.access?.grants ?? null
  if (grants !== null && !grants.has('audit:read')) throw insufficientScope('audit:read')
  if (who.role !== 'admin') throw forbiddenRole()
}

export type { AuditRecord } from './audit.repository.js'

/** Most index rows one page reads: a page of a rare combination of filters may hold fewer records than asked, with has_more. */
export const SCAN_LIMIT = 5000
const CURSOR_LIST = 'audit_events'
// Bounds PostgreSQL and the cursor's format both take.
const NO_UPPER = new Date('9999-12-31T00:00:00.000Z')

/** An instant to the microsecond, as a sync cursor carries it (audit records keep milliseconds). */
const cursorAt = (at: Date) => `${at.toISOString().slice(0, -1)}000Z`

export interface AuditPage {
  data: AuditRecord[]
  meta: { per_page: number; has_more: boolean; next_cursor: string }
}

interface Driven {
  driver: AuditDriver
  filters: Omit<AuditFilters, 'before' | 'since'>
}

const KNOWN_ACTIONS = new Set<string>(AUDIT_ACTIONS)
const KNOWN_TYPES = new Set(AUDIT_ACTIONS.map((name) => name.split('.')[0] ?? name))

/** The filters as the statements take them, and which one leads (the most selective index). */
function drive(query: AuditEventsQuery): Driven | undefined {
  const given = (value: string | undefined) => (value === undefined || value === '' ? null : value)
  let action = given(query.action)
  let targetType = given(query.target_type)
  const targetId = query.target_id ?? null
  const actorType = given(query.actor_type)
  const actorId = query.actor_id ?? null
  const outcome = (given(query.outcome) as 'success' | 'failure' | null)
  const problems: Record<string, string[]> = {}
  if (targetId !== null && targetType === null) problems.target_id = ['needs target_type']
  if (actorId !== null && actorType === null) problems.actor_id = ['needs actor_type']
  if (action?.endsWith('.')) {
    // A prefix (`api_token.`) names the target type: an action's first segment is its target's type.
    const prefix = action.slice(0, -1)
    if (prefix === '' || prefix.includes('.')) problems.action = ['is invalid (an action, or a prefix such as "api_token.")']
    else if (!KNOWN_TYPES.has(prefix)) problems.action = ['is not included in the list']
    if (Object.keys(problems).length > 0) throw invalid(problems)
    if (targetType !== null && targetType !== prefix) return undefined // no record has both
    targetType = prefix
    action = null
  } else if (action !== null && !KNOWN_ACTIONS.has(action)) {
    // An exact name: a mistyped one (`oauth_`) would otherwise match nothing, silently.
    problems.action = ['is not included in the list']
  }
  if (Object.keys(problems).length > 0) throw invalid(problems)
  const filters = { action, targetType, targetId, actorType, actorId, outcome }
  const driver: AuditDriver =
    targetId !== null ? 'target'
    : actorId !== null ? 'actor'
    : action !== null ? 'action'
    : outcome === 'failure' ? 'failures'
    : targetType !== null ? 'targetType'
    : actorType !== null ? 'actorType'
    : 'time'
  return { driver, filters }
}

/**
 * A page of the company's audit log, newest first ((occurred_at, id) descending). The cursor
 * is the position of the last record sent (signed, bound to the company): the next page reads
 * strictly older records, so no record is sent twice, and every record committed before the
 * walk began is sent once. A record committed meanwhile shows on a later page when it is
 * older than where the walk stands; newer ones are for the next walk from the top.
 */
export async function auditEventsPage(db: Db, caller: Pick<Caller, 'companyId' | 'userId'>, key: Buffer, query: AuditEventsQuery): Promise<AuditPage> {
  const perPage = query.per_page ?? DEFAULT_PER_PAGE
  const until = query.until === undefined || query.until === '' ? NO_UPPER : new Date(query.until)
  const since = query.since === undefined || query.since === '' ? null : new Date(query.since)
  let before = { at: until, id: 0 }
  if (query.cursor !== undefined && query.cursor !== '') {
    const position = decodeCursor(key, CURSOR_LIST, caller.companyId, query.cursor)
    const at = new Date(position.at)
    if (at < until || (at.getTime() === until.getTime() && position.id < before.id)) before = { at, id: position.id }
  }
  const driven = drive(query)
  const end = (position: { at: Date; id: number }, hasMore: boolean, data: AuditRecord[]): AuditPage => ({
    data,
    meta: {
      per_page: perPage,
      has_more: hasMore,
      next_cursor: encodeCursor(key, CURSOR_LIST, caller.companyId, { at: cursorAt(position.at), id: position.id }),
    },
  })
  if (!driven) return end(before, false, [])
  const rows = await auditPage(db, caller.companyId, driven.driver, { ...driven.filters, before, since }, perPage + 1, SCAN_LIMIT)
  const hits = rows.filter((row) => row.hit)
  const page = hits.slice(0, perPage)
  const edge = rows.find((row) => row.n === SCAN_LIMIT)
  const last = page.at(-1)
  const data = page.map(({ hit: _hit, n: _n, ...record }) => record)
  if (hits.length > perPage && last) return end({ at: last.occurred_at, id: last.id }, true, data)
  // The scan stopped at its limit: the next page goes on after the last row it read.
  if (edge) return end({ at: edge.occurred_at, id: edge.id }, true, data)
  return end(last ? { at: last.occurred_at, id: last.id } : before, false, data)
}

export const AUDIT_EXPORT_BATCH = 1000

/**
 * The company's records from `since` (inclusive) to `until` (exclusive), oldest first, read a
 * batch at a time as the consumer asks: memory holds one batch whatever the range.
 */
export async function* exportAuditEvents(db: Db, companyId: CompanyId, range: AuditExportQuery): AsyncGenerator<AuditRecord> {
  // After (since, 0): the records at exactly `since` come first (ids start at 1).
  let after = { at: new Date(range.since), id: 0 }
  const until = new Date(range.until)
  for (;;) {
    const rows = await exportBatch(db, companyId, after, until, AUDIT_EXPORT_BATCH)
    yield* rows
    const last = rows.at(-1)
    if (!last || rows.length < AUDIT_EXPORT_BATCH) return
    after = { at: last.occurred_at, id: last.id }
  }
}

/** The export as the API streams it (admins only: the route's role, and the web page's check). */
export async function exportFor(db: Db, caller: Pick<Caller, 'companyId' | 'userId'>, range: AuditExportQuery) {
  checkRange(range)
  return exportAuditEvents(db, caller.companyId, range)
}

export function checkRange(range: AuditExportQuery): void {
  if (new Date(range.since) >= new Date(range.until)) throw invalid({ until: ['must be after since'] })
}

export const DEFAULT_RETENTION_DAYS = 400
const DAY_MS = 24 * 60 * 60 * 1000

/**
 * Removes the records older than the retention, `batch` at a time (each statement a short
 * transaction of its own, so writes never wait long), at most `rounds` statements.
 */
export async function pruneAudit(db: Db, now: Date, retentionDays: number, batch = 1000, rounds = 100): Promise<number> {
  const before = new Date(now.getTime() - retentionDays * DAY_MS)
  let total = 0
  for (let round = 0; round < rounds; round++) {
    const deleted = await pruneAuditRows(db, before, batch)
    total += deleted
    if (deleted < batch) break
  }
  return total
}
