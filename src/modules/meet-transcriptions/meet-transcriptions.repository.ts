import { and, asc, eq, getTableColumns, inArray, sql } from 'drizzle-orm'
import type { PgUpdateSetSource } from 'drizzle-orm/pg-core'
import { rawRows, type Database } from '../../db/client.js'
import { adjustCounter, readSplitCounter, type SplitPart } from '../../db/counters.js'
import { exactInstant } from '../../db/instants.js'
import { meetTranscriptions, tasks } from '../../db/schema.js'
import type { PageWindow } from '../../http/pagination.js'
import type { CompanyId } from '../../tenancy.js'

export type TranscriptionRow = typeof meetTranscriptions.$inferSelect
/** A row without its transcript: list pages never read (detoast) texts of up to 10 MiB. */
export type TranscriptionSummaryRow = Omit<TranscriptionRow, 'transcript'>
export type TranscriptionStatus = TranscriptionRow['status']

/** Which transcriptions of a user: all, those linked to a task, or those not. */
export type TaskFilter = SplitPart

/** Counter lists (key: user id) of a user's transcriptions, and of those linked to a task. */
const COUNTERS = { all: 'meet_transcriptions', with: 'meet_transcriptions_linked' }

// stopped_at is a caller's instant (any year 0001-9999): read exactly, not through drizzle's Date parsing.
const columns = { ...getTableColumns(meetTranscriptions), stoppedAt: exactInstant(meetTranscriptions.stoppedAt) }
const { transcript: _transcript, ...summaryColumns } = columns
// The expression of meet_transcriptions_user_idx. `= true` and `is false` keep it whole for
// the planner (`= false` would be rewritten to `task_id is null`, which the index lacks).
const hasTask = sql`(${meetTranscriptions.taskId} is not null)`

const byId = (companyId: CompanyId, id: number) =>
  and(eq(meetTranscriptions.companyId, companyId), eq(meetTranscriptions.id, id))

function userFilter(companyId: CompanyId, userId: number, filter: TaskFilter) {
  return and(
    eq(meetTranscriptions.companyId, companyId),
    eq(meetTranscriptions.userId, userId),
    filter === 'with' ? sql`${hasTask} = true` : filter === 'without' ? sql`${hasTask} is false` : undefined,
  )
}

export async function insertTranscription(
  db: Database,
  companyId: CompanyId,
  values: { userId: number; meetId: string },
): Promise<TranscriptionRow> {
  const [row] = await db.insert(meetTranscriptions).values({ companyId, ...values }).returning(columns)
  if (!row) throw new Error('insert returned no row')
  await adjustCounter(db, companyId, COUNTERS.all, row.userId, 1)
  return row
}

export async function findTranscription(db: Database, companyId: CompanyId, id: number): Promise<TranscriptionRow | undefined> {
  const [row] = await db.select(columns).from(meetTranscriptions).where(byId(companyId, id))
  return row
}

export async function findTranscriptionStatus(db: Database, companyId: CompanyId, id: number): Promise<TranscriptionStatus | undefined> {
  const [row] = await db.select({ status: meetTranscriptions.status }).from(meetTranscriptions).where(byId(companyId, id))
  return row?.status
}

/** Its task link, row-locked until the transaction ends (so concurrent links count once). */
export async function lockTranscriptionLink(db: Database, companyId: CompanyId, id: number) {
  const [row] = await db
    .select({ userId: meetTranscriptions.userId, taskId: meetTranscriptions.taskId })
    .from(meetTranscriptions)
    .where(byId(companyId, id))
    .for('update')
  return row
}

export async function listTranscriptions(
  db: Database,
  companyId: CompanyId,
  userId: number,
  filter: TaskFilter,
  page: Pick<PageWindow, 'limit' | 'offset'>,
): Promise<TranscriptionSummaryRow[]> {
  return db
    .select(summaryColumns)
    .from(meetTranscriptions)
    .where(userFilter(companyId, userId, filter))
    .orderBy(asc(meetTranscriptions.id))
    .limit(page.limit)
    .offset(page.offset)
}

/** How many transcriptions of a user match the filter: two counter rows, never a count. */
export const countTranscriptions = (db: Database, companyId: CompanyId, userId: number, filter: TaskFilter) =>
  readSplitCounter(db, companyId, COUNTERS, userId, filter)

/** A transcription linked to a task for the first time: one more in its user's linked count. */
export const countFirstLink = (db: Database, companyId: CompanyId, userId: number) =>
  adjustCounter(db, companyId, COUNTERS.with, userId, 1)

/**
 * Sets the columns when the transcription is in one of `from`; undefined when it is not
 * (or does not exist). One statement, so concurrent moves cannot both pass the check.
 */
export async function moveTranscription(
  db: Database,
  companyId: CompanyId,
  id: number,
  from: TranscriptionStatus[],
  set: PgUpdateSetSource<typeof meetTranscriptions>,
): Promise<TranscriptionRow | undefined> {
  const [row] = await db
    .update(meetTranscriptions)
    .set({ ...set, updatedAt: sql`now()` })
    .where(and(byId(companyId, id), inArray(meetTranscriptions.status, from)))
    .returning(columns)
  return row
}

/** Epoch milliseconds of the midnight that starts `day` (yyyy-mm-dd) in `timezone`, by PostgreSQL's zone rules. */
export async function midnightIn(db: Database, day: string, timezone: string): Promise<number> {
  const [row] = await rawRows<{ ms: number }>(
    db,
    sql`select round(extract(epoch from (${day}::date::timestamp at time zone ${timezone})) * 1000)::float8 as ms`,
  )
  if (!row) throw new Error('select returned no row')
  return row.ms
}

/** The contact of a task of the company, if the task is one. */
export async function findTaskContactId(db: Database, companyId: CompanyId, taskId: number): Promise<number | undefined> {
  const [row] = await db
    .select({ contactId: tasks.contactId })
    .from(tasks)
    .where(and(eq(tasks.companyId, companyId), eq(tasks.id, taskId)))
  return row?.contactId
}

/** Demo data: the first tasks of the company, to link transcriptions to. */
export async function firstTaskIds(db: Database, companyId: CompanyId, limit: number): Promise<number[]> {
  const rows = await db.select({ id: tasks.id }).from(tasks).where(eq(tasks.companyId, companyId)).orderBy(asc(tasks.id)).limit(limit)
  return rows.map((r) => r.id)
}
