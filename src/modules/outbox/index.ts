// The outbox module's public face: the event types and the transactional outbox.
export { AUDIT_EVENT_TYPE, EVENT_TYPES } from './event-types.js'
export { OUTBOX_COUNT, outboxCtes, outboxOldest, outboxTakeBatch, outboxTakeCompany, recordApiEvent, recordApiEvents } from './outbox.js'
