// The contacts module's public face: contacts, their writes (one, a batch) and their events' list.
export { contactLabels, labelName } from './contact-labels.js'
export type { ContactLabelRecord } from './contact-labels.js'
export { upsertContacts } from './contacts.batch.js'
export type { BatchResult } from './contacts.batch.js'
export { ContactBatchItem, ContactBatchRequest, ContactBatchResponse, ContactBatchResult } from './contacts.batch.schemas.js'
export { liveContactEmails } from './contacts.batch.sql.js'
export { changeContact } from './contacts.change.js'
export { createContact } from './contacts.create.js'
export { seedContacts } from './contacts.demo.js'
export { default as contactsRoutes } from './contacts.routes.js'
export {
  Contact as ContactSchema,
  ContactCreateBody,
  ContactsListQuery,
  ContactsPage,
  ContactsSyncPage,
  ContactTombstone,
  ContactUpdateBody,
  STAGES,
} from './contacts.schemas.js'
export {
  deleteTagWithEvents,
  findLiveContactAnyCompany,
  firstContacts,
  firstLiveContacts,
  insertLead,
  linkLead,
  liveContactExists,
  liveContactsAmong,
  rowContactLive,
  shareLockLiveContact,
} from './contacts.repository.js'
export { contactBusiness, contactEventsPage, contactsForExport, contactsPage, deleteContact, getContactJson } from './contacts.service.js'
export type { ContactAnswer, ContactRecord } from './contacts.service.js'
export { SearchFoldWorker } from './search-fold.js'
export type { SearchFoldOptions } from './search-fold.js'
