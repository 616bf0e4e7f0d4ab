// Every statement of the audit log (table audit_events, migration 0014). The table is
// append-only: one insert per recorded action, pages and exports read it, and only the
// retention job deletes from it. Every statement takes the caller's company, except the
// retention job's, which walks every company.
import type { Db } from '../../db/db.js'
import { defineQuery, run, runOne, runSingle } from '../../db/query.js'
import { recordSql, type Row } from '../../db/records.js'
import type { CompanyId } from '../../tenancy.js'
import { tokenLabelOf } from '../api-tokens/index.js'
import { AUDIT_EVENT_TYPE, outboxCtes } from '../outbox/index.js'
import { ALL_COMPANIES, userNameOf } from '../users/index.js'
import { subscriptionsToProbe } from '../webhooks/index.js'
import { AuditEvent } from './audit.schemas.js'

/** A record as the API shows it. */
export type AuditRecord = Row<typeof AuditEvent>

// The record from `audit_events <alias>`: the columns, with actor and target as objects.
const AUDIT_RECORD = recordSql(AuditEvent, 'audit_events e', {
  actor: (e) =>
    `json_build_object('type', ${e}actor_type, 'id', ${e}actor_id, 'label', ${e}actor_label, 'on_behalf_of', ` +
    `case when ${e}on_behalf_of_id is not null then json_build_object('id', ${e}on_behalf_of_id, 'label', ${e}on_behalf_of_label) end)`,
  target: (e) => `json_build_object('type', ${e}target_type, 'id', ${e}target_id, 'label', ${e}target_label)`,
})

// The table's columns, for the insert's `recorded` rows.
const COLUMNS = `id, occurred_at, action, actor_type, actor_id, actor_label, on_behalf_of_id, on_behalf_of_label, target_type,
       target_id, target_label, outcome, reason, ip, user_agent, request_id, changes`

export interface NewAuditRow {
  occurredAt: Date
  action: string
  actorType: string
  actorId: number | null
  actorLabel: string | null
  /** The user an OAuth app acts for; labelled with their name by the insert. */
  onBehalfOf: number | null
  targetType: string
  targetId: number | null
  targetLabel: string | null
  outcome: 'success' | 'failure'
  reason: string | null
  ip: string | null
  userAgent: string | null
  requestId: string | null
  changes: string | null
}

// The one statement recording adds to a transaction. An api token acting without a label
// given is labelled here, from the token (its label, else its first characters) and its
// user's name, by primary keys: the request's token lookup carries neither. The user an
// OAuth app acts for ($16) is labelled with their name, by primary key.
// When an enabled webhook subscription of the company names `audit_event.created`, the same
// statement records that event in the outbox (docs/webhook-events.md), its data the record
// exactly as the API lists it (AUDIT_RECORD as JSON: instants with milliseconds in UTC);
// otherwise the outbox is not touched. The subscriptions are read by their primary key
// (company_id, id): a company has a handful.
const insertStatement = defineQuery<{ id: number }>(
  'audit.insert',
  `with recorded as (
     insert into audit_events (company_id, occurred_at, action, actor_type, actor_id, actor_label, on_behalf_of_id,
                               on_behalf_of_label, target_type, target_id, target_label, outcome, reason, ip, user_agent,
                               request_id, changes)
     values ($1, $2, $3, $4::text, $5::bigint,
             coalesce($6::text, case when $4::text = 'api_token' then (
               ${tokenLabelOf('$1', '$5::bigint', '\n                ')}) end),
             $16::bigint,
             (${userNameOf('$1', '$16::bigint')}),
             $7, $8, $9, $10, $11, $12, $13, $14, $15::json)
     returning ${COLUMNS}
   ), streamed as (
     select 1 as ord, '${AUDIT_EVENT_TYPE}'::text as type,
            ${AUDIT_RECORD.json('r')} as data
       from recorded r
      where exists (${subscriptionsToProbe('$1', `'${AUDIT_EVENT_TYPE}'`, '\n                     ')})
   ), ${outboxCtes('streamed', '$1::bigint', '$2::timestamptz')}
   select id from recorded`,
)

export async function insertAuditRow(db: Db, companyId: CompanyId, row: NewAuditRow): Promise<number> {
  const inserted = await runSingle(db, insertStatement, [
    companyId,
    row.occurredAt,
    row.action,
    row.actorType,
    row.actorId,
    row.actorLabel,
    row.targetType,
    row.targetId,
    row.targetLabel,
    row.outcome,
    row.reason,
    row.ip,
    row.userAgent,
    row.requestId,
    row.changes,
    row.onBehalfOf,
  ])
  return inserted.id
}

/**
 * The filters of a page: each null when not given. `before` is the cursor (or `until`):
 * rows strictly older than (at, id); `since` is inclusive.
 */
export interface AuditFilters {
  before: { at: Date; id: number }
  since: Date | null
  action: string | null
  targetType: string | null
  targetId: number | null
  actorType: string | null
  actorId: number | null
  outcome: 'success' | 'failure' | null
}

/** Which index leads a page: the most selective filter given (audit.service.ts chooses). */
export type AuditDriver = 'time' | 'action' | 'targetType' | 'target' | 'actorType' | 'actor' | 'failures'

// $1 company, $2 $3 the position (rows before it), $4 since, $5 limit, $6 action,
// $7 target_type, $8 target_id, $9 actor_type, $10 actor_id, $11 outcome.
// $12 the most rows a page reads.
const FILTERS: Record<string, string> = {
  action: '($6::text is null or action = $6)',
  targetType: '($7::text is null or target_type = $7)',
  targetId: '($8::bigint is null or target_id = $8)',
  actorType: '($9::text is null or actor_type = $9)',
  actorId: '($10::bigint is null or actor_id = $10)',
  outcome: '($11::text is null or outcome = $11)',
}

/**
 * One statement per leading filter, each written here once: the driving filter is a plain
 * equality on its index's leading columns (so even the generic plan of a prepared statement,
 * without statistics, walks that index in order), the others are `(param is null or …)`
 * checks on the rows it reads. A page reads at most $12 rows of the index: a rare
 * combination of filters (no match among a million) cannot make it read them all. Rows
 * come back in order with `hit` (they pass every filter) and `n` (their place in the scan);
 * the $12-th row comes back even when it is no hit, to say where the scan stopped (the next
 * page starts after it). EXPLAIN at 1 M rows of one company: docs/performance.md, "Audit log at a million records".
 */
function pageStatement(name: AuditDriver, index: string, driving: string[], extra = '') {
  const checks = Object.entries(FILTERS)
    .filter(([filter]) => !driving.includes(filter))
    .map(([, check]) => check)
  return defineQuery<AuditRecord & { hit: boolean; n: number }>(
    `audit.page${name.charAt(0).toUpperCase()}${name.slice(1)}`,
    `select ${AUDIT_RECORD.columns('e')}, s.hit, s.n
       from (
         -- ${index}; narrow rows through the row numbering, whole ones only for what is sent
         select occurred_at, id,
                ${checks.join('\n            and ')} as hit,
                row_number() over (order by occurred_at desc, id desc)::int as n
           from audit_events
          where company_id = $1${driving.map((filter) => `\n            and ${DRIVING[filter] ?? ''}`).join('')}${extra}
            and (occurred_at, id) < ($2::timestamptz, $3::bigint)
            and occurred_at >= $4::timestamptz
          order by occurred_at desc, id desc
          limit $12
       ) s
       join audit_events e on e.company_id = $1 and e.id = s.id
      where s.hit or s.n = $12
      order by s.occurred_at desc, s.id desc
      limit $5`,
  )
}

const DRIVING: Record<string, string> = {
  action: 'action = $6',
  targetType: 'target_type = $7',
  targetId: 'target_id = $8',
  actorType: 'actor_type = $9',
  actorId: 'actor_id = $10',
}

const pages: Record<AuditDriver, ReturnType<typeof pageStatement>> = {
  time: pageStatement('time', 'audit_events_time_idx', []),
  action: pageStatement('action', 'audit_events_action_idx', ['action']),
  targetType: pageStatement('targetType', 'audit_events_target_type_idx', ['targetType']),
  target: pageStatement('target', 'audit_events_target_idx', ['targetType', 'targetId']),
  actorType: pageStatement('actorType', 'audit_events_actor_type_idx', ['actorType']),
  actor: pageStatement('actor', 'audit_events_actor_idx', ['actorType', 'actorId']),
  failures: pageStatement('failures', 'audit_events_failure_idx', [], "\n            and outcome = 'failure'"),
}

export async function auditPage(
  db: Db,
  companyId: CompanyId,
  driver: AuditDriver,
  filters: AuditFilters,
  limit: number,
  scanLimit: number,
) {
  return run(db, pages[driver], [
    companyId,
    filters.before.at,
    filters.before.id,
    filters.since ?? new Date('0001-01-01T00:00:00.000Z'),
    limit,
    filters.action,
    filters.targetType,
    filters.targetId,
    filters.actorType,
    filters.actorId,
    filters.outcome,
    scanLimit,
  ])
}

// The export, oldest first, a batch at a time after the last row sent (audit_events_time_idx):
// memory stays one batch whatever the range.
const exportStatement = defineQuery<AuditRecord>(
  'audit.exportBatch',
  `select ${AUDIT_RECORD.columns()}
     from audit_events e
    where company_id = $1
      and (occurred_at, id) > ($2::timestamptz, $3::bigint)
      and occurred_at < $4::timestamptz
    order by occurred_at, id
    limit $5`,
)

export async function exportBatch(db: Db, companyId: CompanyId, after: { at: Date; id: number }, until: Date, limit: number) {
  return run(db, exportStatement, [companyId, after.at, after.id, until, limit])
}

// Retention: records older than $1, at most $2 per statement, taken company after company
// through audit_events_time_idx (an index leading with company_id serves no global "oldest
// first"). SKIP LOCKED: two instances pruning at once take different rows. Inserts take no
// lock a delete holds (new rows are never the old ones), so writes never wait for it.
const pruneStatement = defineQuery<{ deleted: number }>(
  'audit.prune',
  `with old as (
     select e.company_id, e.id
       from ${ALL_COMPANIES}
       cross join lateral (
         select company_id, id from audit_events a
          where a.company_id = c.id and a.occurred_at < $1::timestamptz
          order by a.occurred_at, a.id
          limit $2::int
       ) e
      limit $2::int
   ), locked as (
     select a.company_id, a.id from audit_events a join old using (company_id, id)
        for update of a skip locked
   ), gone as (
     delete from audit_events a using locked l where a.company_id = l.company_id and a.id = l.id
     returning 1
   )
   select count(*)::int as deleted from gone`,
)

export async function pruneAuditRows(db: Db, before: Date, limit: number): Promise<number> {
  const row = await runOne(db, pruneStatement, [before, limit])
  return row?.deleted ?? 0
}
