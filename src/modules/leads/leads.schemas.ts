import { Type, type Static } from 'typebox'
import { linkFlags } from '../../http/link-filter.js'
import { Id, NonBlank, Nullable, PagedList, RecordOrPageParams, Ref, Str, Timestamps } from '../../http/schemas.js'
import { SyncList, SyncParams } from '../../http/sync.js'

const OptionalText = () => Type.Optional(Nullable(Str()))
// Both integer columns are 4-byte integers.
const Count = () => Type.Optional(Nullable(Type.Integer({ minimum: 0, maximum: 2_147_483_647 })))

export const LeadCreateBody = Type.Object({
  first_name: NonBlank(),
  last_name: OptionalText(),
  email: Type.String({ format: 'email', maxLength: 255 }),
  provider: NonBlank(),
  position: OptionalText(),
  linkedin_url: OptionalText(),
  telephone: OptionalText(),
  city: OptionalText(),
  state_province: OptionalText(),
  country: OptionalText(),
  degree_of_connection: Count(),
  business_name: OptionalText(),
  business_linkedin_url: OptionalText(),
  business_sector: OptionalText(),
  business_colaborators_count: Count(),
  business_telephone: OptionalText(),
}, {
  examples: [{
    first_name: 'Marta',
    last_name: 'Reis',
    email: 'marta.reis@globex.example',
    provider: 'linkedin',
    position: 'Head of Sales',
    degree_of_connection: 2,
    business_name: 'Globex',
    business_sector: 'Logistics',
    business_colaborators_count: 250,
  }],
})
export type LeadCreateBody = Static<typeof LeadCreateBody>

const Text = Nullable(Type.String())
const Int = Nullable(Type.Integer())

export const Lead = Type.Object({
  id: Type.Integer(),
  user_id: Type.Integer({ description: 'the user who created the lead' }),
  contact_id: Nullable(Type.Integer({
    description: 'the live contact of the company with the same email (case-insensitive), if any',
  })),
  first_name: Type.String(),
  last_name: Text,
  email: Type.String(),
  provider: Type.String(),
  position: Text,
  linkedin_url: Text,
  telephone: Text,
  city: Text,
  state_province: Text,
  country: Text,
  degree_of_connection: Int,
  business_name: Text,
  business_linkedin_url: Text,
  business_sector: Text,
  business_colaborators_count: Int,
  business_telephone: Text,
  ...Timestamps,
}, {
  $id: 'Lead',
  description: 'A lead from a prospecting provider, linked to the contact with the same email',
  examples: [{
    id: 55,
    user_id: 2,
    contact_id: 7,
    first_name: 'Marta',
    last_name: 'Reis',
    email: 'marta.reis@globex.example',
    provider: 'linkedin',
    position: 'Head of Sales',
    linkedin_url: null,
    telephone: null,
    city: null,
    state_province: null,
    country: null,
    degree_of_connection: 2,
    business_name: 'Globex',
    business_linkedin_url: null,
    business_sector: 'Logistics',
    business_colaborators_count: 250,
    business_telephone: null,
    created_at: '2026-11-22T10:00:00.000Z',
    updated_at: '2026-11-22T10:00:00.000Z',
  }],
})

/** Demo data: a demo contact, whom a demo lead describes again (so the two link). */
export const DemoLeadContact = Type.Object(
  {
    id: Type.Integer(),
    email: Type.String(),
    first_name: Type.String(),
    last_name: Text,
  },
  { $id: 'DemoLeadContact' },
)

export const LeadsPage = PagedList(Lead, 'LeadPage', 'A page of leads')
export const LeadsSyncPage = SyncList(Ref(Lead), 'LeadSyncPage', 'A page of an `updated_since` walk of the leads')

const LinkFlags = linkFlags('contact', 'leads')

/** One operation, two modes: `id` answers that lead; without it, `page` and `user_id` are required. */
export const LeadsQuery = Type.Object({ ...RecordOrPageParams, user_id: Type.Optional(Id), ...LinkFlags, ...SyncParams })
export type LeadsQuery = Static<typeof LeadsQuery>

/**
 * PUT /leads/:id/contact: the contact the lead is (now) linked to, a live contact of your
 * company; its email may differ from the lead's (docs/leads-meetings-whatsapp.md).
 */
export const LeadContactBody = Type.Object({
  contact_id: Type.With(Id, { description: 'a live contact of your company; its email may differ from the lead\'s' }),
}, { examples: [{ contact_id: 1204 }] })
export type LeadContactBody = Static<typeof LeadContactBody>

export const LeadsCountQuery = Type.Object({ user_id: Id, ...LinkFlags })
export type LeadsCountQuery = Static<typeof LeadsCountQuery>

export const LeadsResponse = Type.Union([Ref(Lead), Ref(LeadsPage), Ref(LeadsSyncPage)], {
  description: 'With `id`: that lead; without: a page of leads; with `updated_since` or `cursor`: a page of the walk',
})
