// A contact row and its API shape: the row types the repository answers and the one mapper
// from a row to the record the API shows. It imports neither the repository nor the service,
// which both import it.
import type { contacts } from '../../db/schema.js'

export type ContactRow = typeof contacts.$inferSelect
export type ContactInsert = Omit<typeof contacts.$inferInsert, 'companyId' | 'id'>

export interface ContactTagRow {
  contactId: number
  id: number
  name: string
  color: string
}

export interface ContactValueRow {
  contactId: number
  customFieldId: number
  field: string
  value: string
}

type ContactTag = Pick<ContactTagRow, 'id' | 'name' | 'color'>
type ContactValue = Pick<ContactValueRow, 'field' | 'value'>

/** A contact's own columns, in the API's key order (tags, custom fields and timestamps follow). */
export const contactColumns = (row: ContactRow) => ({
  id: row.id,
  user_id: row.userId,
  first_name: row.firstName,
  last_name: row.lastName,
  email: row.email,
  business: row.business,
  position: row.position,
  telephone: row.telephone,
  cellphone: row.cellphone,
  address: row.address,
  city: row.city,
  state: row.state,
  country: row.country,
  url: row.url,
  linkedin: row.linkedin,
  variable1: row.variable1,
  variable2: row.variable2,
  variable3: row.variable3,
  carousel: row.carousel,
  stage: row.stage,
  contact_group_id: row.contactGroupId,
})

// Object.assign onto the fresh object, not a spread of it into a literal: the spread is much
// slower to build and to stringify, which a batch pays for every contact's webhook payload
// (docs/performance.md, "Figures from the statements").
export const toContact = (row: ContactRow, tags: ContactTag[], values: ContactValue[]) =>
  Object.assign(contactColumns(row), {
    tags: tags.map((tag) => ({ id: tag.id, name: tag.name, color: tag.color })),
    custom_fields: values.map((value) => ({ field: value.field, value: value.value })),
    created_at: row.createdAt,
    updated_at: row.updatedAt,
  })

export type Contact = ReturnType<typeof toContact>
