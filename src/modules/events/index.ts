// The events module's public face: contact events.
export { contactEventsPage, INSERT_CONTACT_EVENTS, recordEvent, recordEvents } from './events.repository.js'
export { ContactEvent, ContactEventKinds, ContactEventsPage, ContactEventsQuery } from './events.schemas.js'
