import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { sendCreated, tagRoutes } from '../../http/routes.js'
import { CountResponse, IdParams, Ref } from '../../http/schemas.js'
import { answerList, walkingList } from '../../http/sync.js'
import {
  MeetTranscription,
  MeetTranscriptionCreateBody,
  MeetTranscriptionsCountQuery,
  MeetTranscriptionsPage,
  MeetTranscriptionsQuery,
  MeetTranscriptionsResponse,
  StopBody,
  ToTaskBody,
  TranscriptBody,
} from './meet-transcriptions.schemas.js'
import {
  createTranscription,
  getTranscription,
  linkToTask,
  requireOwnCompany,
  setTranscript,
  stopTranscription,
  transcriptionsCount,
  transcriptionsPage,
  transcriptionsWalk,
} from './meet-transcriptions.service.js'

const TRANSCRIPTIONS_LIST = walkingList({
  resource: 'meet_transcriptions',
  query: MeetTranscriptionsQuery,
  walkRefuses: ['id', 'user_id', 'with_task', 'without_task'],
  pageNeeds: ['page', 'user_id', 'company_id'],
  pageSchema: MeetTranscriptionsPage,
  walk: transcriptionsWalk,
  one: getTranscription,
  page: transcriptionsPage,
})

const TRANSCRIPT_BODY_LIMIT = 10 * 1024 * 1024

const meetTranscriptionsRoutes: FastifyPluginAsyncTypebox = async (app) => {
  tagRoutes(app, 'meet_transcriptions')

  app.get('/v1/meet_transcriptions', {
    config: { scope: 'meet_transcriptions:read', notFound: 'A `company_id` other than yours, or with `id`: no transcription with this id in your company' },
    schema: {
      operationId: 'listMeetTranscriptions',
      summary: 'List the transcriptions of a user, or show one with id',
      description:
        'With `id`: that transcription with its transcript. Without: the transcriptions of `user_id`, ' +
        'a page at a time, id ascending, each with `transcript_length` instead of the text; `page`, ' +
        '`user_id` and `company_id` are then required. A `company_id` other than yours: 404.\n\n' +
        'With `updated_since` (then `cursor`): every transcription of your company changed at or after it, in ' +
        '(updated_at, id) order, as list items; `id`, `page`, `user_id` and the task filters are refused.',
      querystring: MeetTranscriptionsQuery,
      response: { 200: MeetTranscriptionsResponse },
    },
  }, async (request, reply) => {
    requireOwnCompany(request.caller, request.query.company_id)
    return answerList(app, request, reply, request.query, TRANSCRIPTIONS_LIST)
  })

  app.get('/v1/meet_transcriptions/count', {
    config: { scope: 'meet_transcriptions:read', notFound: 'A `company_id` other than yours' },
    schema: {
      operationId: 'countMeetTranscriptions',
      summary: 'Count the transcriptions of a user',
      querystring: MeetTranscriptionsCountQuery,
      response: { 200: CountResponse },
    },
  }, async (request) => ({ count: await transcriptionsCount(app.db, request.caller, request.query) }))

  app.get('/v1/meet_transcriptions/:id', {
    config: { scope: 'meet_transcriptions:read', notFound: 'No transcription with this id in your company' },
    schema: {
      operationId: 'getMeetTranscription',
      summary: 'Show one transcription, with its transcript',
      params: IdParams,
      response: { 200: Ref(MeetTranscription) },
    },
  }, async (request) => getTranscription(app.db, request.caller, request.params.id))

  app.post('/v1/meet_transcriptions', {
    config: { scope: 'meet_transcriptions:write' },
    schema: {
      operationId: 'createMeetTranscription',
      summary: 'Start a transcription (status recording)',
      body: MeetTranscriptionCreateBody,
      response: { 201: Ref(MeetTranscription) },
    },
  }, async (request, reply) => {
    const transcription = await createTranscription(app.db, request.caller, request.body)
    return sendCreated(reply, '/api/v1/meet_transcriptions', transcription)
  })

  app.put('/v1/meet_transcriptions/:id/stop', {
    config: { scope: 'meet_transcriptions:write', notFound: 'No transcription with this id in your company' },
    schema: {
      operationId: 'stopMeetTranscription',
      summary: 'Stop a recording transcription (recording → stopped)',
      params: IdParams,
      body: StopBody,
      response: { 200: Ref(MeetTranscription) },
    },
  }, async (request) => stopTranscription(app.db, request.caller, request.params.id, request.body.stopped_at))

  app.put('/v1/meet_transcriptions/:id/transcript', {
    bodyLimit: TRANSCRIPT_BODY_LIMIT,
    config: { scope: 'meet_transcriptions:write', notFound: 'No transcription with this id in your company' },
    schema: {
      operationId: 'setMeetTranscript',
      summary: 'Attach the transcript (stopped or transcribed → transcribed; replaces an earlier one)',
      description: 'The body may be up to 10 MiB; the transcript has no other length limit.',
      params: IdParams,
      body: TranscriptBody,
      response: { 200: Ref(MeetTranscription) },
    },
  }, async (request) => setTranscript(app.db, request.caller.companyId, request.params.id, request.body.transcript))

  app.put('/v1/meet_transcriptions/:id/to_task', {
    config: { scope: 'meet_transcriptions:write', notFound: 'No transcription with this id in your company' },
    schema: {
      operationId: 'linkMeetTranscriptionToTask',
      summary: 'Link the transcription to a task (in any state; replaces an earlier link)',
      params: IdParams,
      body: ToTaskBody,
      response: { 200: Ref(MeetTranscription) },
    },
  }, async (request) => linkToTask(app.db, request.caller, request.params.id, request.body.task_id))
}

export default meetTranscriptionsRoutes
