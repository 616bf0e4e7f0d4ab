import type { Db } from '../../db/db.js'
import { addToCounters, COUNTER_ROWS, counterTotal } from '../../db/counters.js'
import { pageIds, pageParams, rowsByIds, userPageReader, type PageRow } from '../../db/paging.js'
import { defineQuery, run, runOne, runSingle } from '../../db/query.js'
import { recordSql, type Row } from '../../db/records.js'
import { walkRows } from '../../db/walk.js'
import type { LinkFilter } from '../../http/link-filter.js'
import { syncAt, walkParams, type WalkWindow } from '../../http/sync.js'
import type { CompanyId } from '../../tenancy.js'
import { outboxCtes } from '../outbox/index.js'
import { MeetTranscription, MeetTranscriptionItem } from './meet-transcriptions.schemas.js'
import { INSERT_CONTACT_EVENTS } from '../events/index.js'
import { companyTaskIds, contactTaskIds, taskWithContact } from '../tasks/index.js'

/** A transcription as the API shows it (rows come out of PostgreSQL in this shape). */
export type Transcription = Row<typeof MeetTranscription>
/** A list item: the transcript's length instead of its text, so that lists never read or detoast texts of up to 10 MiB. */
export type TranscriptionItem = Row<typeof MeetTranscriptionItem>
export type TranscriptionStatus = Transcription['status']

// Counter lists (key: user id) of a user's transcriptions, and of those linked to a task.
const ALL = 'meet_transcriptions'
const LINKED = 'meet_transcriptions_linked'

// stopped_at is a caller's instant of the years 0001-9999: node-postgres reads timestamptz
// exactly (sessions are UTC, years 0-99 included), so every column goes out as it is.
const SUMMARY = 'id, user_id, company_id, meet_id, status, stopped_at, task_id'
const TRANSCRIPTION = recordSql(MeetTranscription, 'meet_transcriptions t')
const RECORD = TRANSCRIPTION.columns('')
const ITEM = recordSql(MeetTranscriptionItem, 'meet_transcriptions t').columns('')

// A written transcription as its webhook event's data (the API record, transcript included),
// from the row `alias`; `transcript` replaces the column when the statement has it as a parameter.
const recordJson = (alias: string, transcript?: string) => TRANSCRIPTION.json(alias, transcript === undefined ? {} : { transcript })

/** The CTE api_event (one event of `type` about the row of `from`) and the outbox's, at the database's now. */
const withEvent = (type: string, from: string, transcript?: string) =>
  `api_event as (
     select 1 as ord, '${type}' as type, ${recordJson(from, transcript)} as data from ${from}
   ), ${outboxCtes('api_event', '$1::bigint', 'now()')}`

const byId = defineQuery<Transcription>(
  'meetTranscriptions.byId',
  `select ${RECORD} from meet_transcriptions where company_id = $1 and id = $2`,
  { pipelined: true },
)

export function findTranscription(db: Db, companyId: CompanyId, id: number): Promise<Transcription | undefined> {
  return runOne(db, byId, [companyId, id])
}

const statusById = defineQuery<{ status: TranscriptionStatus }>(
  'meetTranscriptions.status',
  'select status from meet_transcriptions where company_id = $1 and id = $2',
)

export async function findTranscriptionStatus(db: Db, companyId: CompanyId, id: number): Promise<TranscriptionStatus | undefined> {
  return (await runOne(db, statusById, [companyId, id]))?.status
}

// The total of each filter from the two counters of the user (counters primary key).
const COUNTER = (list: string) => counterTotal('$1', `'${list}'`, '$2')
const TOTALS: Record<LinkFilter, string> = {
  all: COUNTER(ALL),
  with: COUNTER(LINKED),
  without: `${COUNTER(ALL)} - ${COUNTER(LINKED)}`,
}
// The expression of meet_transcriptions_user_idx. `= true` and `is false` keep it whole for
// the planner (`= false` would be rewritten to `task_id is null`, which the index lacks).
const CONDITIONS: Record<LinkFilter, string> = {
  all: '',
  with: 'and (task_id is not null) = true',
  without: 'and (task_id is not null) is false',
}

// $3 limit, $4 offset (src/db/paging.ts).
const PAGE = pageParams(3, 4)

/**
 * A page of a user's transcriptions and its total, in one statement. The total comes from
 * the counters; the page's ids from an index alone (meet_transcriptions_company_user_idx,
 * or meet_transcriptions_user_idx with a task filter) in uncorrelated InitPlans that run
 * once whatever the statistics: pages of the first half read the index forwards, pages of
 * the second half backwards from the (exact) total, so the last page costs what the first
 * does; a page past the end reads no index at all. Then the rows by primary key
 * (docs/performance.md, "Figures from the statements").
 */
const pageStatement = (filter: LinkFilter, name: string) => {
  const ids = (direction: 'asc' | 'desc', limit: string, offset: string) =>
    `array(select id from meet_transcriptions
                where ${['company_id = $1 and user_id = $2', CONDITIONS[filter]].filter(Boolean).join(' ')}
                order by id ${direction} limit ${limit} offset ${offset})`
  return defineQuery<PageRow<TranscriptionItem>>(
    name,
    `with total as materialized (
       select (${TOTALS[filter]})::int as n
     ),
     page as materialized (
       select ${pageIds(PAGE, '(select n from total)', ['asc', 'desc'], ids)} as ids
     )
     select total.n as total, p.*
       from total
       left join lateral (
         select ${ITEM}
           from ${rowsByIds('meet_transcriptions', 'meet_transcriptions', '$1', '(select ids from page)::bigint[]')}
          order by id
       ) p on true`,
  )
}

const pages: Record<LinkFilter, ReturnType<typeof pageStatement>> = {
  all: pageStatement('all', 'meetTranscriptions.page'),
  with: pageStatement('with', 'meetTranscriptions.pageWithTask'),
  without: pageStatement('without', 'meetTranscriptions.pageWithoutTask'),
}

/** A page of the transcriptions of `userId` (id ascending) and how many match the filter. */
export const transcriptionsPageWithTotal = userPageReader(pages)

// A page of an updated_since walk (src/http/sync.ts has the parameters): from
// meet_transcriptions_company_updated_idx (company_id, updated_at, id), an index range read
// in order that stops after $6 rows; list items, so no transcript is read.
const walkStatement = defineQuery<TranscriptionItem & { sync_at: string }>(
  'meetTranscriptions.walk',
  `select ${syncAt('updated_at')} as sync_at, ${ITEM}
     from meet_transcriptions
    ${walkRows('')}`,
  { replica: true },
)

export function transcriptionsWalkPage(db: Db, companyId: CompanyId, window: WalkWindow) {
  return run(db, walkStatement, walkParams(companyId, window))
}

const countStatement = defineQuery<{ count: number }>(
  'meetTranscriptions.count',
  `select (case $3::text when 'with' then linked when 'without' then every - linked else every end)::int as count
     from (select coalesce(sum(value) filter (where list = '${ALL}'), 0) as every,
                  coalesce(sum(value) filter (where list = '${LINKED}'), 0) as linked
             from ${COUNTER_ROWS} k
            where company_id = $1 and list in ('${ALL}', '${LINKED}') and key = $2) c`,
  { replica: true },
)

/** How many transcriptions of a user match the filter: two counters (their slot rows summed), never a count. */
export async function countTranscriptions(db: Db, companyId: CompanyId, userId: number, filter: LinkFilter): Promise<number> {
  return (await runOne(db, countStatement, [companyId, userId, filter]))?.count ?? 0
}

// A contact's transcriptions (those linked to one of its tasks), newest first: the contact's
// task ids from tasks_contact_idx (company_id, contact_id, ...), then each task's newest from
// meet_transcriptions_task_idx (task_id, company_id) in a LATERAL whose LIMIT keeps it from
// being flattened into a join (a planner without statistics would start from the
// transcriptions otherwise), then a top-N sort of the few found. List items: no transcript.
const ofContactStatement = defineQuery<TranscriptionItem>(
  'meetTranscriptions.ofContact',
  `select t.*
     from (${contactTaskIds('$1', '$2')}) k
    cross join lateral (
      select ${ITEM}
        from meet_transcriptions
       where task_id = k.id and company_id = $1
       order by id desc
       limit $3
    ) t
    order by t.id desc
    limit $3`,
  { pipelined: true },
)

/** The newest `limit` transcriptions linked to a task of the contact. */
export function contactTranscriptions(db: Db, companyId: CompanyId, contactId: number, limit: number): Promise<TranscriptionItem[]> {
  return run(db, ofContactStatement, [companyId, contactId, limit])
}

// The row, its user's counter and its webhook event in one statement (so no transaction;
// the event recorded in the outbox, outbox.ts); a user of
// another company (or none) fails meet_transcriptions_user_fk and nothing is written.
const insertStatement = defineQuery<Transcription>(
  'meetTranscriptions.insert',
  `with t as (
     insert into meet_transcriptions (company_id, user_id, meet_id) values ($1, $2, $3)
     returning ${RECORD}
   ),
   counted as (
     ${addToCounters(`     select $1, '${ALL}', user_id, 1 from t`)}
     returning value
   ), ${withEvent('meet_transcription.created', 't')}
   select * from t`,
)

export async function insertTranscription(
  db: Db,
  companyId: CompanyId,
  values: { userId: number; meetId: string },
): Promise<Transcription> {
  return runSingle(db, insertStatement, [companyId, values.userId, values.meetId])
}

// recording → stopped, at a given instant ($5) or at midnight of a day ($3) in a time zone
// ($4) by PostgreSQL's zone rules. The instant must be one the API gives back as written
// (0001-01-01 in a zone east of UTC starts in year 0): out of range, nothing changes and
// in_range is false. One statement, so concurrent moves cannot both pass the status check.
const stopStatement = defineQuery<{ in_range: boolean } & ({ id: null } | Transcription)>(
  'meetTranscriptions.stop',
  `with instant as (
     select at from (select coalesce($3::date::timestamp at time zone $4::text, $5::timestamptz) as at) v
      where at between '0001-01-01 00:00:00+00' and '9999-12-31 23:59:59.999+00'
   ),
   stopped as (
     update meet_transcriptions t set status = 'stopped', stopped_at = instant.at, updated_at = now()
       from instant
      where t.company_id = $1 and t.id = $2 and t.status = 'recording'
     returning ${TRANSCRIPTION.columns('t')}
   ), ${withEvent('meet_transcription.stopped', 'stopped')}
   select exists(select 1 from instant) as in_range, stopped.*
     from (select) one left join stopped on true`,
)

export async function stopRecording(
  db: Db,
  companyId: CompanyId,
  id: number,
  when: { day: string; timezone: string } | { at: Date },
): Promise<{ inRange: boolean; row: Transcription | undefined }> {
  const params = 'day' in when ? [when.day, when.timezone, null] : [null, null, when.at]
  const result = await runOne(db, stopStatement, [companyId, id, ...params])
  const row = result && result.id !== null ? (result as Transcription) : undefined
  return { inRange: result?.in_range ?? false, row }
}

// stopped or transcribed → transcribed. The transcript (up to 10 MiB) is not sent back:
// the caller has it.
const transcriptStatement = defineQuery<Omit<Transcription, 'transcript'>>(
  'meetTranscriptions.transcript',
  `with t as (
     update meet_transcriptions
        set status = 'transcribed', transcript = $3, transcript_length = $4, updated_at = now()
      where company_id = $1 and id = $2 and status in ('stopped', 'transcribed')
     returning ${SUMMARY}, created_at, updated_at
   ), ${withEvent('meet_transcription.transcribed', 't', '$3::text')}
   select * from t`,
)

/** The transcript set, or undefined when the transcription is missing or still recording. */
export async function attachTranscript(
  db: Db,
  companyId: CompanyId,
  id: number,
  transcript: string,
  length: number,
): Promise<Transcription | undefined> {
  const row = await runOne(db, transcriptStatement, [companyId, id, transcript, length])
  return row && { ...row, transcript }
}

// The link, its meet_transcription_linked event on the task's contact, for a first link one
// more in the user's linked count, and its webhook event after that counter (outbox.ts):
// one statement, so no transaction. The
// transcription's row is locked first (FOR UPDATE returns the latest committed version
// after a wait), so of two concurrent first links only one sees task_id null and counts.
const linkStatement = defineQuery<{ found: boolean; task_found: boolean } & ({ id: null } | Transcription)>(
  'meetTranscriptions.link',
  `with locked as (
     select id, task_id from meet_transcriptions where company_id = $1 and id = $2 for update
   ),
   task as (
     ${taskWithContact('$1', '$3')}
   ),
   linked as (
     update meet_transcriptions t set task_id = task.id, updated_at = now()
       from locked, task
      where t.company_id = $1 and t.id = locked.id
     returning ${TRANSCRIPTION.columns('t')}, locked.task_id as previous_task_id
   ),
   event as (
     ${INSERT_CONTACT_EVENTS}
     select $1, task.contact_id, 'meet_transcription_linked', $4,
            jsonb_build_object('meet_transcription_id', linked.id, 'meet_id', linked.meet_id, 'task_id', task.id), now()
       from linked, task
   ),
   counted as (
     ${addToCounters(`     select $1, '${LINKED}', user_id, 1 from linked where previous_task_id is null`)}
     returning value
   ), ${withEvent('meet_transcription.linked_to_task', 'linked')}
   select exists(select 1 from locked) as found, exists(select 1 from task) as task_found,
          ${TRANSCRIPTION.columns('linked')}
     from (select) one left join linked on true`,
)

export async function linkTask(
  db: Db,
  companyId: CompanyId,
  id: number,
  taskId: number,
  userId: number,
): Promise<{ found: boolean; taskFound: boolean; row: Transcription | undefined }> {
  const result = await runOne(db, linkStatement, [companyId, id, taskId, userId])
  const row = result && result.id !== null ? (result as Transcription) : undefined
  return { found: result?.found ?? false, taskFound: result?.task_found ?? false, row }
}

const firstTasks = defineQuery<{ id: number }>(
  'meetTranscriptions.firstTasks',
  `${companyTaskIds('$1')} order by id limit $2`,
)

/** Demo data: the first tasks of the company, to link transcriptions to. */
export async function firstTaskIds(db: Db, companyId: CompanyId, limit: number): Promise<number[]> {
  return (await run(db, firstTasks, [companyId, limit])).map((r) => r.id)
}
