// The Meetings pages' addresses and forms, as TypeBox schemas read with the API's validation:
// the list's view is the API's list query (whose transcriptions, linked to a task or not, the
// page); attaching a transcript and linking to a task are the API's bodies.
import { Type, type Static } from 'typebox'
import { MAX_ID } from '../../http/schemas.js'
import { ToTaskBody, TranscriptBody } from '../../modules/meet-transcriptions/index.js'

const PageNumber = Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_ID }))
const UserId = Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_ID }))

/** `task`: the API's `with_task` / `without_task`, as one choice. */
export const TASK_LINK_FILTERS = ['with', 'without'] as const
export type TaskLinkFilter = (typeof TASK_LINK_FILTERS)[number]

/** The address of the list: whose transcriptions (the signed-in user's by default), the task filter, the page. */
export const MeetingsView = Type.Object({
  user_id: UserId,
  task: Type.Optional(Type.Enum(TASK_LINK_FILTERS)),
  page: PageNumber,
})
export type MeetingsView = Static<typeof MeetingsView>

/** A transcription's page: whose open tasks Link to a task offers (the transcription's user's by default). */
export const MeetingView = Type.Object({ tasks_of: UserId })
export type MeetingView = Static<typeof MeetingView>

/** Attach a transcript: PUT /meet_transcriptions/:id/transcript's body. */
export const TranscriptForm = TranscriptBody
/** Link to a task: PUT /meet_transcriptions/:id/to_task's body. */
export const LinkTaskForm = ToTaskBody
