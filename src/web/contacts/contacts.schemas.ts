// The contacts pages' forms and addresses, as TypeBox schemas read with the API's validation
// (src/http/validation.ts): the list's view (search, owner, page) is the API's list query.
import { Type, type Static } from 'typebox'
import { MAX_ID } from '../../http/schemas.js'
import { ContactsListQuery } from '../../modules/contacts/contacts.schemas.js'

/** The address of the contacts list: the API's search_term and user_id (owner), and the page. */
export const ContactsView = Type.Object({
  page: ContactsListQuery.properties.page,
  search_term: ContactsListQuery.properties.search_term,
  user_id: ContactsListQuery.properties.user_id,
})
export type ContactsView = Static<typeof ContactsView>

/** Add to flow: the flow, and the contacts ticked (1 to 100). */
export const AddToFlowForm = Type.Object({
  flow_id: Type.Integer({ minimum: 1, maximum: MAX_ID }),
  contact_ids: Type.Array(Type.Integer({ minimum: 1, maximum: MAX_ID }), { minItems: 1, maxItems: 100 }),
})
export type AddToFlowForm = Static<typeof AddToFlowForm>
