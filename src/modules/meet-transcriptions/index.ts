// The meet-transcriptions module's public face: meeting transcriptions.
export { seedMeetTranscriptions } from './meet-transcriptions.demo.js'
export { default as meetTranscriptionsRoutes } from './meet-transcriptions.routes.js'
export {
  MeetTranscription,
  MeetTranscriptionItem,
  MeetTranscriptionsPage,
  MeetTranscriptionsSyncPage,
  ToTaskBody,
  TRANSCRIPT_BODY_LIMIT,
  TranscriptBody,
  TRANSCRIPTION_STATUSES,
} from './meet-transcriptions.schemas.js'
export { getTranscription, linkToTask, setTranscript, stopTranscription, transcriptionsOfContact, transcriptionsPage } from './meet-transcriptions.service.js'
