// A contact as the batch and a PUT hold it in memory, and the record the API shows built from
// it: both typed from the TypeBox `Contact`, under its names. It imports neither the
// repository nor the service, which both import it.
import type { Static } from 'typebox'
import type { Row } from '../../db/records.js'
import type { Contact as ContactSchema } from './contacts.schemas.js'

/** A contact's own columns and timestamps (the Contact schema's keys but its tags and custom fields), instants as Dates. */
export type ContactColumnsRow = Omit<Row<typeof ContactSchema>, 'tags' | 'custom_fields'>

/** A new contact (the demo loader's): the statement gives its company and id, the database the rest it omits. */
export type ContactInsert = Pick<ContactColumnsRow, 'user_id' | 'first_name' | 'email'> &
  Partial<Omit<ContactColumnsRow, 'id' | 'user_id' | 'first_name' | 'email'>> & { business_id?: number | null }

type ContactTag = Static<typeof ContactSchema>['tags'][number]
type ContactValue = Static<typeof ContactSchema>['custom_fields'][number]

/**
 * A contact's own columns, in the API's key order (tags, custom fields and timestamps follow):
 * a fresh object literal, the fastest to build and to stringify.
 */
export const contactColumns = (row: ContactColumnsRow): Omit<ContactColumnsRow, 'created_at' | 'updated_at'> => ({
  id: row.id,
  user_id: row.user_id,
  first_name: row.first_name,
  last_name: row.last_name,
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
  contact_group_id: row.contact_group_id,
})

/**
 * The record the API shows (the TypeBox `Contact`), its timestamps still Dates: the batch's
 * plan builds it from the rows it holds, where reads have CONTACT_RECORD build it in SQL.
 * test/contacts/contact-record.test.ts holds its keys, order and values to the schema's.
 */
export type ContactRecord = Row<typeof ContactSchema>

// Object.assign onto the fresh object, not a spread of it into a literal: the spread is much
// slower to build and to stringify, which a batch pays for every contact's webhook payload
// (docs/performance.md, "Figures from the statements").
export const toContact = (row: ContactColumnsRow, tags: ContactTag[], values: ContactValue[]): ContactRecord =>
  Object.assign(contactColumns(row), {
    tags: tags.map((tag) => ({ id: tag.id, name: tag.name, color: tag.color })),
    custom_fields: values.map((value) => ({ field: value.field, value: value.value })),
    created_at: row.created_at,
    updated_at: row.updated_at,
  })
