import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { operation, recordRoute, sendCreated, tagRoutes } from '../../http/routes.js'
import { CountResponse, IdParams, Ref } from '../../http/schemas.js'
import { walkingListRoute } from '../../http/sync.js'
import {
  MeetTranscription,
  MeetTranscriptionCreateBody,
  MeetTranscriptionsCountQuery,
  StopBody,
  ToTaskBody,
  TRANSCRIPT_BODY_LIMIT,
  TranscriptBody,
} from './meet-transcriptions.schemas.js'
import {
  createTranscription,
  getTranscription,
  linkToTask,
  setTranscript,
  stopTranscription,
  transcriptionsCount,
  TRANSCRIPTIONS_LIST,
} from './meet-transcriptions.service.js'
import texts from './meet-transcriptions.operations.json' with { type: 'json' }


const NO_TRANSCRIPTION = 'No transcription with this id in your company'
const OTHER_COMPANY = 'A `company_id` other than yours'
const LIST_NOT_FOUND = `${OTHER_COMPANY}, or with \`id\`: no transcription with this id in your company`

const meetTranscriptionsRoutes: FastifyPluginAsyncTypebox = async (app) => {
  tagRoutes(app, 'meet_transcriptions')

  walkingListRoute(app, '/v1/meet_transcriptions', texts, 'listMeetTranscriptions', { scope: 'meet_transcriptions:read', notFound: LIST_NOT_FOUND }, TRANSCRIPTIONS_LIST)

  app.get('/v1/meet_transcriptions/count', operation(texts, 'countMeetTranscriptions', { scope: 'meet_transcriptions:read', notFound: OTHER_COMPANY }, {
    querystring: MeetTranscriptionsCountQuery, response: { 200: CountResponse },
  }), async (request) => ({ count: await transcriptionsCount(app.db, request.caller, request.query) }))

  recordRoute(app, '/v1/meet_transcriptions/:id', texts, 'getMeetTranscription', { scope: 'meet_transcriptions:read', notFound: NO_TRANSCRIPTION }, MeetTranscription, getTranscription)

  app.post('/v1/meet_transcriptions', operation(texts, 'createMeetTranscription', { scope: 'meet_transcriptions:write' }, {
    body: MeetTranscriptionCreateBody, response: { 201: Ref(MeetTranscription) },
  }), async (request, reply) => {
    const transcription = await createTranscription(request.db, request.caller, request.body)
    return sendCreated(reply, '/api/v1/meet_transcriptions', transcription)
  })

  app.put('/v1/meet_transcriptions/:id/stop', operation(texts, 'stopMeetTranscription', { scope: 'meet_transcriptions:write', notFound: NO_TRANSCRIPTION }, {
    params: IdParams, body: StopBody, response: { 200: Ref(MeetTranscription) },
  }), async (request) => stopTranscription(request.db, request.caller, request.params.id, request.body.stopped_at))

  app.put('/v1/meet_transcriptions/:id/transcript', {
    ...operation(texts, 'setMeetTranscript', { scope: 'meet_transcriptions:write', notFound: NO_TRANSCRIPTION }, {
      params: IdParams, body: TranscriptBody, response: { 200: Ref(MeetTranscription) },
    }),
    bodyLimit: TRANSCRIPT_BODY_LIMIT,
  }, async (request) => setTranscript(request.db, request.caller.companyId, request.params.id, request.body.transcript))

  app.put('/v1/meet_transcriptions/:id/to_task', operation(texts, 'linkMeetTranscriptionToTask', { scope: 'meet_transcriptions:write', notFound: NO_TRANSCRIPTION }, {
    params: IdParams, body: ToTaskBody, response: { 200: Ref(MeetTranscription) },
  }), async (request) => linkToTask(request.db, request.caller, request.params.id, request.body.task_id))
}

export default meetTranscriptionsRoutes
