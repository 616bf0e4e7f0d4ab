// The Leads pages' addresses and forms, as TypeBox schemas read with the API's validation:
// the list's view (whose leads, linked or not, the page), a lead's page (the contact search
// of Link to contact); New lead is the API's POST /leads body and Link to contact the body of
// PUT /leads/:id/contact.
import { Type, type Static } from 'typebox'
import { Id, MAX_ID } from '../../http/schemas.js'
import { LeadContactBody, LeadCreateBody } from '../../modules/leads/index.js'

/** The list's link filter: the API's `with_contact` / `without_contact`. */
export const LINK_FILTERS = ['with', 'without'] as const
export type LinkChoice = (typeof LINK_FILTERS)[number]

/** The address of the leads list: the creator (the API's `user_id`; the signed-in user when absent), the link filter, the page. */
export const LeadsView = Type.Object({
  user_id: Type.Optional(Id),
  contact: Type.Optional(Type.Enum(LINK_FILTERS)),
  page: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_ID })),
})
export type LeadsView = Static<typeof LeadsView>

/** A lead's page: the search of Link to contact. */
export const LeadView = Type.Object({
  contact_search: Type.Optional(Type.String({ maxLength: 255 })),
})
export type LeadView = Static<typeof LeadView>

/** New lead: the API's POST /leads body. */
export const NewLeadForm = LeadCreateBody
/** Link to contact: the API's PUT /leads/:id/contact body. */
export const LinkContactForm = LeadContactBody
