import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { CountResponse, IdParams, Ref } from '../../http/schemas.js'
import { answerList } from '../../http/sync.js'
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

// The list page's own serializer (the route's response is a union of a record, a page and a walk's page).
const PAGE = Ref(MeetTranscriptionsPage)

const TRANSCRIPT_BODY_LIMIT = 10 * 1024 * 1024

const tags = ['meet_transcriptions']

const meetTranscriptionsRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get('/v1/meet_transcriptions', {
    config: { scope: 'meet_transcriptions:read', notFound: 'A `company_id` other than yours, or with `id`: no transcription with this id in your company' },
    schema: {
      operationId: 'listMeetTranscriptions',
      tags,
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
    return answerList(app, request, reply, request.query, {
      resource: 'meet_transcriptions',
      walkRefuses: ['id', 'user_id', 'with_task', 'without_task'],
      pageNeeds: ['page', 'user_id', 'company_id'],
      pageSchema: PAGE,
      walk: (walk) => transcriptionsWalk(app.db, request.caller, walk),
      one: (id) => getTranscription(app.db, request.caller, id),
      page: (query) => transcriptionsPage(app.db, request.caller, query),
    })
  })


  app.get('/v1/meet_transcriptions/count', {
    config: { scope: 'meet_transcriptions:read', notFound: 'A `company_id` other than yours' },
    schema: {
      operationId: 'countMeetTranscriptions',
      tags,
      summary: 'Count the transcriptions of a user',
      querystring: MeetTranscriptionsCountQuery,
      response: { 200: CountResponse },
    },
  }, async (request) => {
    return { count: await transcriptionsCount(app.db, request.caller, request.query) }
  })

  app.get('/v1/meet_transcriptions/:id', {
    config: { scope: 'meet_transcriptions:read', notFound: 'No transcription with this id in your company' },
    schema: {
      operationId: 'getMeetTranscription',
      tags,
      summary: 'Show one transcription, with its transcript',
      params: IdParams,
      response: { 200: Ref(MeetTranscription) },
    },
  }, async (request) => getTranscription(app.db, request.caller, request.params.id))

  app.post('/v1/meet_transcriptions', {
    config: { scope: 'meet_transcriptions:write' },
    schema: {
      operationId: 'createMeetTranscription',
      tags,
      summary: 'Start a transcription (status recording)',
      body: MeetTranscriptionCreateBody,
      response: { 201: Ref(MeetTranscription) },
    },
  }, async (request, reply) => {
    const transcription = await createTranscription(app.db, request.caller, request.body)
    return reply.code(201).header('location', `/api/v1/meet_transcriptions/${transcription.id}`).send(transcription)
  })

  app.put('/v1/meet_transcriptions/:id/stop', {
    config: { scope: 'meet_transcriptions:write', notFound: 'No transcription with this id in your company' },
    schema: {
      operationId: 'stopMeetTranscription',
      tags,
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
      tags,
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
      tags,
      summary: 'Link the transcription to a task (in any state; replaces an earlier link)',
      params: IdParams,
      body: ToTaskBody,
      response: { 200: Ref(MeetTranscription) },
    },
  }, async (request) => linkToTask(app.db, request.caller, request.params.id, request.body.task_id))
}

export default meetTranscriptionsRoutes
