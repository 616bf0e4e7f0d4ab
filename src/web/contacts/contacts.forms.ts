// The contacts pages' forms and addresses, as TypeBox schemas read with the API's validation
// (src/http/validation.ts): the list's view (search, owner, stage, tag, page) is the API's list query.
import { Type, type Static } from 'typebox'
import { MAX_ID } from '../../http/schemas.js'
import { ContactsListQuery } from '../../modules/contacts/index.js'

/** The address of the contacts list: the API's search_term, user_id (owner), stage and tag_id, and the page. */
export const ContactsView = Type.Object({
  page: ContactsListQuery.properties.page,
  search_term: ContactsListQuery.properties.search_term,
  user_id: ContactsListQuery.properties.user_id,
  stage: ContactsListQuery.properties.stage,
  tag_id: ContactsListQuery.properties.tag_id,
})

/** The view's fields as the address names them, in the order the address writes them. */
export const VIEW_FIELDS = ['search_term', 'user_id', 'stage', 'tag_id'] as const
export type ContactsView = Static<typeof ContactsView>

/** Add to flow: the flow, and the contacts ticked (1 to 100). */
export const AddToFlowForm = Type.Object({
  flow_id: Type.Integer({ minimum: 1, maximum: MAX_ID }),
  contact_ids: Type.Array(Type.Integer({ minimum: 1, maximum: MAX_ID }), { minItems: 1, maxItems: 100 }),
})
export type AddToFlowForm = Static<typeof AddToFlowForm>
