import type { Db } from '../../db/db.js'
import { foreignKeyViolation } from '../../db/pg-errors.js'
import { invalid, notFound, refused } from '../../errors.js'
import { instantOf, INSTANT_OUT_OF_RANGE } from '../../http/dates.js'
import { linkFilter } from '../../http/link-filter.js'
import { readPage, type PageRequest } from '../../http/pagination.js'
import { walkingList, walkPage, withoutSyncAt, type WalkRequest } from '../../http/sync.js'
import type { Caller, CompanyId } from '../../tenancy.js'
import {
  MeetTranscriptionsPage,
  MeetTranscriptionsQuery,
  MeetTranscriptionsResponse,
  type MeetTranscriptionCreateBody,
  type MeetTranscriptionsCountQuery,
} from './meet-transcriptions.schemas.js'
import {
  attachTranscript,
  contactTranscriptions,
  countTranscriptions,
  findTranscription,
  findTranscriptionStatus,
  insertTranscription,
  linkTask,
  stopRecording,
  transcriptionsPageWithTotal,
  transcriptionsWalkPage,
  type TranscriptionStatus,
} from './meet-transcriptions.repository.js'

/** Reads name the company in `company_id`: another company's (or none) is a missing subject. */
export function requireOwnCompany(caller: Caller, companyId: number | undefined) {
  if (companyId !== undefined && companyId !== caller.companyId) throw notFound()
}

/** How many transcriptions of a user of the caller's company match the query's task filter. */
export function transcriptionsCount(db: Db, caller: Caller, query: MeetTranscriptionsCountQuery): Promise<number> {
  requireOwnCompany(caller, query.company_id)
  return countTranscriptions(db, caller.companyId, query.user_id, linkFilter(query, 'task'))
}

export async function getTranscription(db: Db, caller: Caller, id: number) {
  const row = await findTranscription(db, caller.companyId, id)
  if (!row) throw notFound()
  return row
}

/** The workspace's contact page: the newest `limit` transcriptions linked to a task of the contact, as list items. */
export function transcriptionsOfContact(db: Db, caller: Caller, contactId: number, limit: number) {
  return contactTranscriptions(db, caller.companyId, contactId, limit)
}

/** A page of an updated_since walk of the company's transcriptions (src/http/sync.ts), as list items. */
export function transcriptionsWalk(db: Db, caller: Caller, walk: WalkRequest) {
  const { companyId } = caller
  return walkPage(db, { ...walk, resource: 'meet_transcriptions', companyId }, (window) =>
    transcriptionsWalkPage(db, companyId, window), withoutSyncAt)
}

/** One page of a user's transcriptions and the task filter's total: one statement. */
export function transcriptionsPage(db: Db, caller: Caller, query: MeetTranscriptionsQuery & PageRequest & { user_id: number }) {
  const filter = linkFilter(query, 'task')
  return readPage(query, (window) => transcriptionsPageWithTotal(db, caller.companyId, query.user_id, filter, window))
}

export async function createTranscription(db: Db, caller: Caller, input: MeetTranscriptionCreateBody) {
  const { companyId } = caller
  if (input.company_id !== companyId) throw invalid({ company_id: ['does not exist'] })
  try {
    return await insertTranscription(db, companyId, { userId: input.user_id, meetId: input.meet_id })
  } catch (err) {
    if (foreignKeyViolation(err) === 'meet_transcriptions_user_fk') throw invalid({ user_id: ['does not exist'] })
    throw err
  }
}

/** A refused move: 404 when there is no such transcription, else 422 naming its state. */
async function refuse(db: Db, companyId: CompanyId, id: number, why: (status: TranscriptionStatus) => string): Promise<never> {
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
export async function stopTranscription(db: Db, caller: Caller, id: number, stoppedAt: string) {
  const { companyId } = caller
  const when = DAY.test(stoppedAt) ? { day: stoppedAt, timezone: caller.timezone } : { at: instantOf(stoppedAt) }
  const { inRange, row } = await stopRecording(db, companyId, id, when)
  if (!inRange) throw invalid({ stopped_at: [INSTANT_OUT_OF_RANGE] })
  return row ?? refuse(db, companyId, id, (s) => `is ${s}: only a recording transcription can be stopped`)
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
export async function setTranscript(db: Db, companyId: CompanyId, id: number, transcript: string) {
  const row = await attachTranscript(db, companyId, id, transcript, codePoints(transcript))
  return row ?? refuse(db, companyId, id, (s) => `is ${s}: stop it before sending its transcript`)
}

/**
 * Links the transcription to a task of the company whatever its state (replacing an earlier
 * link), with a meet_transcription_linked event on the task's contact.
 */
export async function linkToTask(db: Db, caller: Pick<Caller, 'companyId' | 'userId'>, id: number, taskId: number) {
  const { found, taskFound, row } = await linkTask(db, caller.companyId, id, taskId, caller.userId)
  if (!found) throw notFound()
  if (!taskFound || !row) throw invalid({ task_id: ['does not exist'] })
  return row
}

/** GET /v1/meet_transcriptions: the list's pages and its `updated_since` walk (walkingListRoute). */
export const TRANSCRIPTIONS_LIST = walkingList({
  resource: 'meet_transcriptions', walkRefuses: ['id', 'user_id', 'with_task', 'without_task'], pageNeeds: ['page', 'user_id', 'company_id'],
  query: MeetTranscriptionsQuery, response: MeetTranscriptionsResponse, pageSchema: MeetTranscriptionsPage,
  refuse: (caller, query) => {
    requireOwnCompany(caller, query.company_id)
  },
  walk: transcriptionsWalk, one: getTranscription, page: transcriptionsPage,
})
