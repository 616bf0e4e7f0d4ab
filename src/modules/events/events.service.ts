import type { ContactEventRow } from './events.repository.js'

// Events are never changed once written, so both timestamps are the moment it happened.
export const toContactEvent = (row: ContactEventRow) => ({
  id: row.id,
  contact_id: row.contactId,
  kind: row.kind,
  user_id: row.userId,
  data: row.data,
  occurred_at: row.occurredAt,
  created_at: row.occurredAt,
  updated_at: row.occurredAt,
})
