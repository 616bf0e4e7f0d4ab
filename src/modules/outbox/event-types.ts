// Every event type the API announces (docs/webhooks.md describes each with an example).
export const EVENT_TYPES = [
  'contact.created',
  'contact.updated',
  'contact.deleted',
  'contact.tagged',
  'contact.untagged',
  'contact.added_to_flow',
  'task.created',
  'task.completed',
  'lead.created',
  'lead.linked',
  'meet_transcription.created',
  'meet_transcription.stopped',
  'meet_transcription.transcribed',
  'meet_transcription.linked_to_task',
  'whatsapp_message.created',
  'custom_field.created',
  'custom_field.updated',
  'custom_field.deleted',
  'tag.created',
  'tag.updated',
  'tag.deleted',
  'audit_event.created',
] as const

/**
 * Each audit record (docs/audit-log.md), for admins who stream the log elsewhere: delivered
 * only to subscriptions that name it (not to `["*"]`), subscribed and read in the event log
 * only by those who may read the audit log (an admin, with the `audit:read` scope).
 */
export const AUDIT_EVENT_TYPE = 'audit_event.created'

export type EventType = (typeof EVENT_TYPES)[number]
