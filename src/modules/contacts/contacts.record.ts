// A contact as the writes hold it in memory, and the record the API shows: both typed from the
// TypeBox `Contact`, under its names; SQL alone writes the record (contactJson). It imports
// neither the repository nor the service, which both import it.
import type { Row } from '../../db/records.js'
import type { Contact as ContactSchema } from './contacts.schemas.js'

/** A contact's own columns and timestamps (the Contact schema's keys but its tags and custom fields), instants as Dates. */
export type ContactColumnsRow = Omit<Row<typeof ContactSchema>, 'tags' | 'custom_fields'>

/** A new contact (the demo loader's): the statement gives its company and id, the database the rest it omits. */
export type ContactInsert = Pick<ContactColumnsRow, 'user_id' | 'first_name' | 'email'> &
  Partial<Omit<ContactColumnsRow, 'id' | 'user_id' | 'first_name' | 'email'>> & { business_id?: number | null }

/** The record the API shows (the TypeBox `Contact`), its timestamps Dates: what a read of CONTACT_RECORD gives. */
export type ContactRecord = Row<typeof ContactSchema>
