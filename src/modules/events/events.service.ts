import type { ContactEventRow } from './events.repository.js'

export const toContactEvent = (row: ContactEventRow) => ({
  id: row.id,
  contact_id: row.contactId,
  kind: row.kind,
  user_id: row.userId,
  data: row.data,
  occurred_at: row.occurredAt,
})
