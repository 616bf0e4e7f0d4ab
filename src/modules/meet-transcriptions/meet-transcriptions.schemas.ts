import { Type, type Static } from 'typebox'
import { linkFlags } from '../../http/link-filter.js'
import { DateParam, Id, NonBlank, Nullable, PagedList, RecordOrPageParams, Ref, Timestamp, Timestamps } from '../../http/schemas.js'
import { SyncList, SyncParams } from '../../http/sync.js'

export const TRANSCRIPTION_STATUSES = ['recording', 'stopped', 'transcribed'] as const

const Common = {
  id: Type.Integer(),
  user_id: Type.Integer(),
  company_id: Type.Integer(),
  meet_id: Type.String(),
  status: Type.Enum(TRANSCRIPTION_STATUSES, { description: 'recording (created) → stopped (stop) → transcribed (transcript)' }),
  stopped_at: Nullable(Timestamp),
  task_id: Nullable(Type.Integer()),
}

/** One transcription, with its transcript. */
const example = {
  id: 13,
  user_id: 2,
  company_id: 1,
  meet_id: 'abc-defg-hij',
  status: 'transcribed',
  stopped_at: '2026-11-22T10:30:00.000Z',
  task_id: 142,
  created_at: '2026-11-22T10:00:00.000Z',
  updated_at: '2026-11-22T10:31:00.000Z',
}

export const MeetTranscription = Type.Object(
  { ...Common, transcript: Nullable(Type.String()), ...Timestamps },
  {
    $id: 'MeetTranscription',
    description: 'A meeting transcription, with its transcript',
    examples: [{ ...example, transcript: 'Ana: Thanks for joining…' }],
  },
)

/** A list item: the transcript's length (in characters) instead of its text. */
export const MeetTranscriptionItem = Type.Object({
  ...Common,
  transcript_length: Nullable(Type.Integer({ description: 'characters of the transcript; null before there is one' })),
  ...Timestamps,
}, {
  $id: 'MeetTranscriptionSummary',
  description: "A meeting transcription in a list: the transcript's length instead of its text",
  examples: [{ ...example, transcript_length: 5120 }],
})

export const MeetTranscriptionsPage = PagedList(MeetTranscriptionItem, 'MeetTranscriptionPage', 'A page of meeting transcriptions')
export const MeetTranscriptionsSyncPage = SyncList(
  Ref(MeetTranscriptionItem),
  'MeetTranscriptionSyncPage',
  'A page of an `updated_since` walk of the meeting transcriptions (list items: `transcript_length`, not the text)',
)
export const MeetTranscriptionsResponse = Type.Union([Ref(MeetTranscription), Ref(MeetTranscriptionsPage), Ref(MeetTranscriptionsSyncPage)], {
  description: 'With `id`: that transcription; without: a page of transcriptions; with `updated_since` or `cursor`: a page of the walk',
})

const TaskFlags = linkFlags('task', 'transcriptions')

/** One operation, two modes: `id` answers that transcription; without it `page`, `user_id` and `company_id` are required. */
export const MeetTranscriptionsQuery = Type.Object({
  ...RecordOrPageParams,
  user_id: Type.Optional(Id),
  company_id: Type.Optional(Id),
  ...TaskFlags,
  ...SyncParams,
})
export type MeetTranscriptionsQuery = Static<typeof MeetTranscriptionsQuery>

export const MeetTranscriptionsCountQuery = Type.Object({ user_id: Id, company_id: Id, ...TaskFlags })
export type MeetTranscriptionsCountQuery = Static<typeof MeetTranscriptionsCountQuery>

export const MeetTranscriptionCreateBody = Type.Object(
  { user_id: Id, company_id: Id, meet_id: NonBlank() },
  { examples: [{ user_id: 7, company_id: 3, meet_id: 'abc-defg-hij' }] },
)
export type MeetTranscriptionCreateBody = Static<typeof MeetTranscriptionCreateBody>

export const StopBody = Type.Object({
  stopped_at: Type.Union([DateParam, Type.String({ format: 'date-time' })], {
    description: 'ISO 8601: a date (midnight in your company time zone) or a date-time with offset',
    examples: ['2026-11-22T10:30:00Z'],
  }),
}, { examples: [{ stopped_at: '2026-11-22T10:30:00Z' }] })

/** The bound of a transcript: the body of PUT …/transcript (and of the workspace's form) up to 10 MiB. */
export const TRANSCRIPT_BODY_LIMIT = 10 * 1024 * 1024

/** The transcript has no 255 limit: the operation's 10 MiB body is its bound. */
export const TranscriptBody = Type.Object(
  { transcript: Type.String({ minLength: 1, pattern: '\\S' }) },
  { examples: [{ transcript: 'Ana: Thanks for joining. Bruno: Happy to be here.' }] },
)

export const ToTaskBody = Type.Object({ task_id: Id }, { examples: [{ task_id: 142 }] })
