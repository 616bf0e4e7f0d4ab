// The events module's public face: contact events.
export { contactEventsPageSql, INSERT_CONTACT_EVENTS, recordContactEvent, recordContactEvents } from './events.repository.js'
export type { ContactEventRecord } from './events.repository.js'
export { ContactEvent, ContactEventKinds, ContactEventsPage, ContactEventsQuery } from './events.schemas.js'
