// A contact row and its API shape: the row types the repository answers and the one mapper
// from a row to the record the API shows. It imports neither the repository nor the service,
// which both import it.
import type { Static } from 'typebox'
import type { Contact as ContactSchema, Stage } from './contacts.schemas.js'

/** A row of contacts, its columns under camelCase names (the repository's statements alias them). */
export interface ContactRow {
  companyId: number
  id: number
  userId: number
  deletedAt: Date | null
  searchText: string | null
  firstName: string
  lastName: string | null
  email: string
  business: string | null
  businessId: number | null
  position: string | null
  telephone: string | null
  cellphone: string | null
  address: string | null
  city: string | null
  state: string | null
  country: string | null
  url: string | null
  linkedin: string | null
  variable1: string | null
  variable2: string | null
  variable3: string | null
  carousel: boolean
  stage: Stage | null
  contactGroupId: number | null
  createdAt: Date
  updatedAt: Date
}

/** A new contact (the demo loader's): the statement gives its company and id, the database the rest it omits. */
export type ContactInsert = Pick<ContactRow, 'userId' | 'firstName' | 'email'> &
  Partial<Omit<ContactRow, 'companyId' | 'id' | 'searchText' | 'userId' | 'firstName' | 'email'>>

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

/**
 * The record the API shows (the TypeBox `Contact`), its timestamps still Dates: the batch's
 * plan builds it from the rows it holds, where reads have CONTACT_RECORD build it in SQL.
 * test/contacts/contact-record.test.ts holds its keys, order and values to the schema's.
 */
export type Contact = Omit<Static<typeof ContactSchema>, 'created_at' | 'updated_at'> & { created_at: Date; updated_at: Date }

// Object.assign onto the fresh object, not a spread of it into a literal: the spread is much
// slower to build and to stringify, which a batch pays for every contact's webhook payload
// (docs/performance.md, "Figures from the statements").
export const toContact = (row: ContactRow, tags: ContactTag[], values: ContactValue[]): Contact =>
  Object.assign(contactColumns(row), {
    tags: tags.map((tag) => ({ id: tag.id, name: tag.name, color: tag.color })),
    custom_fields: values.map((value) => ({ field: value.field, value: value.value })),
    created_at: row.createdAt,
    updated_at: row.updatedAt,
  })
