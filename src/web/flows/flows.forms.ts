// The Flows pages' addresses and forms, as TypeBox schemas read with the API's validation:
// the list's view is the API's list query; a flow's name and steps are the API's.
import { Type, type Static } from 'typebox'
import { MAX_ID } from '../../http/schemas.js'
import { FlowCreateBody, FlowsListQuery, FlowStepInput, FlowUpdateBody } from '../../modules/flows/index.js'

/** The address of the flows list: search and page. */
export const FlowsView = Type.Object({
  search_term: FlowsListQuery.properties.search_term,
  page: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_ID })),
})
export type FlowsView = Static<typeof FlowsView>

/** A flow's page: the page of its contacts, and the search of Add contacts. */
export const FlowView = Type.Object({
  page: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_ID })),
  search_term: Type.Optional(Type.String({ maxLength: 255 })),
})
export type FlowView = Static<typeof FlowView>

/** One step row as typed (a blank row is left out). */
export const StepRow = FlowStepInput
export { FlowCreateBody, FlowUpdateBody }

/** Add contacts: the contacts ticked (1 to 100). */
export const AddContactsForm = Type.Object({
  contact_ids: Type.Array(Type.Integer({ minimum: 1, maximum: MAX_ID }), { minItems: 1, maxItems: 100 }),
})
export type AddContactsForm = Static<typeof AddContactsForm>
