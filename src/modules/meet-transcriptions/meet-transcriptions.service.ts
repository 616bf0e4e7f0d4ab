import type { Database } from '../../db/client.js'
import { invalid, notFound, refused } from '../../errors.js'
import { inRange, instantOf, INSTANT_OUT_OF_RANGE } from '../../http/dates.js'
import type { PageWindow } from '../../http/pagination.js'
import { exclusiveFlags } from '../../http/validation.js'
import type { Caller, CompanyId } from '../../tenancy.js'
import { recordEvent } from '../events/events.repository.js'
import { findUser } from '../users/users.repository.js'
import type { MeetTranscriptionCreateBody, TaskFlags } from './meet-transcriptions.schemas.js'
import {
  countFirstLink,
  countTranscriptions,
  findTaskContactId,
  findTranscription,
  findTranscriptionStatus,
  insertTranscription,
  listTranscriptions,
  lockTranscriptionLink,
  midnightIn,
  moveTranscription,
  type TaskFilter,
  type TranscriptionRow,
  type TranscriptionStatus,
  type TranscriptionSummaryRow,
} from './meet-transcriptions.repository.js'

const summary = (row: TranscriptionSummaryRow) => ({
  id: row.id,
  user_id: row.userId,
  company_id: row.companyId,
  meet_id: row.meetId,
  status: row.status,
  stopped_at: row.stoppedAt,
  task_id: row.taskId,
  created_at: row.createdAt,
  updated_at: row.updatedAt,
})

/** One transcription, with its transcript. */
export const toTranscription = (row: TranscriptionRow) => ({ ...summary(row), transcript: row.transcript })
/** A list item: the transcript's length instead of its text. */
export const toTranscriptionItem = (row: TranscriptionSummaryRow) => ({ ...summary(row), transcript_length: row.transcriptLength })

/** Reads name the company in `company_id`: another company's (or none) is a missing subject. */
export function requireOwnCompany(caller: Caller, companyId: number | undefined) {
  if (companyId !== undefined && companyId !== caller.companyId) throw notFound()
}

export function taskFilter(flags: TaskFlags): TaskFilter {
  exclusiveFlags(flags, 'with_task', 'without_task')
  if (flags.with_task) return 'with'
  if (flags.without_task) return 'without'
  return 'all'
}

export async function getTranscription(db: Database, companyId: CompanyId, id: number) {
  const row = await findTranscription(db, companyId, id)
  if (!row) throw notFound()
  return toTranscription(row)
}

export async function transcriptionsPage(db: Database, companyId: CompanyId, userId: number, filter: TaskFilter, window: PageWindow) {
  const total = await countTranscriptions(db, companyId, userId, filter)
  const rows = window.offset < total ? await listTranscriptions(db, companyId, userId, filter, window) : []
  return { total, data: rows.map(toTranscriptionItem) }
}

export async function createTranscription(db: Database, caller: Caller, input: MeetTranscriptionCreateBody) {
  const { companyId } = caller
  if (input.company_id !== companyId) throw invalid({ company_id: ['does not exist'] })
  if (!(await findUser(db, companyId, input.user_id))) throw invalid({ user_id: ['does not exist'] })
  return toTranscription(await insertTranscription(db, companyId, { userId: input.user_id, meetId: input.meet_id }))
}

/** A refused move: 404 when there is no such transcription, else 422 naming its state. */
async function refuse(db: Database, companyId: CompanyId, id: number, why: (status: TranscriptionStatus) => string): Promise<never> {
  const status = await findTranscriptionStatus(db, companyId, id)
  if (!status) throw notFound()
  throw refused({ status: [why(status)] })
}

const DAY = /^\d{4}-\d\d-\d\d$/

/**
 * recording → stopped. A bare date is midnight of that day in the company's time zone. The
 * instant must be one the API gives back as written (src/http/dates.ts): 0001-01-01 in a
 * zone east of UTC starts in year 0.
 */
export async function stopTranscription(db: Database, caller: Caller, id: number, stoppedAt: string) {
  const { companyId } = caller
  const at = DAY.test(stoppedAt) ? new Date(await midnightIn(db, stoppedAt, caller.timezone)) : instantOf(stoppedAt)
  if (!inRange(at.getTime())) throw invalid({ stopped_at: [INSTANT_OUT_OF_RANGE] })
  const row = await moveTranscription(db, companyId, id, ['recording'], { status: 'stopped', stoppedAt: at })
  return row ? toTranscription(row) : refuse(db, companyId, id, (s) => `is ${s}: only a recording transcription can be stopped`)
}

/** Characters as the API counts them (code points), not UTF-16 units. */
function codePoints(text: string): number {
  let n = text.length
  for (let i = 1; i < text.length; i++) {
    const unit = text.charCodeAt(i)
    if (unit >= 0xdc00 && unit <= 0xdfff && (text.charCodeAt(i - 1) & 0xfc00) === 0xd800) n--
  }
  return n
}

/** stopped or transcribed → transcribed; a later transcript replaces the earlier one. */
export async function setTranscript(db: Database, companyId: CompanyId, id: number, transcript: string) {
  const row = await moveTranscription(db, companyId, id, ['stopped', 'transcribed'], {
    status: 'transcribed',
    transcript,
    transcriptLength: codePoints(transcript),
  })
  return row ? toTranscription(row) : refuse(db, companyId, id, (s) => `is ${s}: stop it before sending its transcript`)
}

/**
 * Links the transcription to a task of the company whatever its state (replacing an earlier
 * link), with a meet_transcription_linked event on the task's contact.
 */
export async function linkToTask(db: Database, companyId: CompanyId, userId: number, id: number, taskId: number) {
  return db.transaction(async (tx) => {
    const current = await lockTranscriptionLink(tx, companyId, id)
    if (!current) throw notFound()
    const contactId = await findTaskContactId(tx, companyId, taskId)
    if (contactId === undefined) throw invalid({ task_id: ['does not exist'] })
    const row = await moveTranscription(tx, companyId, id, ['recording', 'stopped', 'transcribed'], { taskId })
    if (!row) throw notFound()
    if (current.taskId === null) await countFirstLink(tx, companyId, current.userId)
    await recordEvent(tx, companyId, {
      contactId,
      kind: 'meet_transcription_linked',
      userId,
      data: { meet_transcription_id: row.id, meet_id: row.meetId, task_id: taskId },
    })
    return toTranscription(row)
  })
}
