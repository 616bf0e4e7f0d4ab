import { Type, type Static } from 'typebox'
import { Id, MAX_ID, NonBlank, Nullable, PagedList, PageParams, Ref, Str, Timestamp, Timestamps } from '../../http/schemas.js'
import { SyncList, SyncParams } from '../../http/sync.js'

/** A contact's stages, in order: the values of the enum contact_stage (migrations/0001_domain.sql). */
export const STAGES = ['smart_lead', 'prospect', 'lead', 'mql', 'sql', 'opportunity', 'client', 'lost'] as const
export type Stage = (typeof STAGES)[number]

/** 7 to 20 digits, an optional leading +, spaces, dashes, dots and parentheses; '' is no number. */
export const PHONE_PATTERN = '^(?:\\+?(?=(?:[^0-9]*[0-9]){7,20}[^0-9]*$)[0-9 .()-]+)?$'

const Phone = Type.String({ maxLength: 255, pattern: PHONE_PATTERN, description: '7-20 digits; + ( ) - . and spaces allowed' })
const Email = Type.String({ minLength: 1, maxLength: 255, format: 'email' })
const Text = Type.Optional(Nullable(Str()))

// Lists a request may carry: far above real use, far below the statement parameter limit (65,535).
export const MAX_TAGS = 100
export const MAX_CUSTOM_FIELD_VALUES = 100

const CustomFieldValueInput = Type.Object({
  field: Type.Optional(Str()),
  value: Type.Optional(Nullable(Str())),
})

/** The optional fields of create and update; on update an omitted one is left as it is, null clears it. */
const optionalFields = {
  last_name: Text,
  position: Text,
  telephone: Type.Optional(Nullable(Phone)),
  cellphone: Type.Optional(Nullable(Phone)),
  address: Type.Optional(Nullable(Str(1000))),
  city: Text,
  state: Text,
  country: Text,
  url: Text,
  linkedin: Text,
  variable1: Text,
  variable2: Text,
  variable3: Text,
  carousel: Type.Optional(Nullable(Type.Boolean({ description: 'true or false (also as strings); null sets false' }))),
  stage: Type.Optional(Nullable(Type.Enum(STAGES))),
  custom_fields: Type.Optional(
    Nullable(
      Type.Array(CustomFieldValueInput, {
        maxItems: MAX_CUSTOM_FIELD_VALUES,
        description: 'values by custom field name (case-insensitive); at most 100; on update only the named fields change, null or "" clears one',
      }),
    ),
  ),
  tags: Type.Optional(Nullable(Type.Array(Id, { maxItems: MAX_TAGS, description: 'tag ids of your company (at most 100); on update the whole set is replaced' }))),
  contact_group_id: Type.Optional(Nullable(Id)),
}

export const ContactCreateBody = Type.Object(
  {
    first_name: NonBlank(),
    email: Email,
    business: Type.Optional(Nullable(Str())),
    ...optionalFields,
  },
  {
    examples: [
      {
        first_name: 'Ana',
        last_name: 'Souza',
        email: 'ana.souza@globex.example',
        business: 'Globex',
        position: 'Head of Sales',
        cellphone: '+55 (11) 98765-4321',
        stage: 'lead',
        tags: [3],
        custom_fields: [{ field: 'T-shirt size', value: 'M' }],
      },
    ],
  },
)
export type ContactCreateBody = Static<typeof ContactCreateBody>

export const ContactUpdateBody = Type.Object(
  {
    first_name: NonBlank(),
    email: Email,
    business: Nullable(Str()),
    user_id: Type.Optional(Id),
    ...optionalFields,
  },
  {
    examples: [
      { first_name: 'Ana', email: 'ana.souza@globex.example', business: 'Globex', stage: 'mql', tags: [3, 5] },
    ],
  },
)
export type ContactUpdateBody = Static<typeof ContactUpdateBody>

export const ContactsListQuery = Type.Object({
  page: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_ID, description: 'required, except in an `updated_since` walk' })),
  per_page: PageParams.per_page,
  ...SyncParams,
  user_id: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_ID, description: 'contacts owned by this user' })),
  search_term: Type.Optional(Str(255, 'a case-insensitive part of the full name, the business or the email')),
  stage: Type.Optional(Type.Enum(STAGES, { description: 'contacts at this stage (an addition to the reference)' })),
  tag_id: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_ID, description: 'contacts carrying this tag (an addition to the reference)' })),
})
export type ContactsListQuery = Static<typeof ContactsListQuery>

const NullableString = Nullable(Type.String())

export const Contact = Type.Object(
  {
    id: Type.Integer(),
    user_id: Type.Integer({ description: 'the owner' }),
    first_name: Type.String(),
    last_name: NullableString,
    email: Type.String(),
    business: NullableString,
    position: NullableString,
    telephone: NullableString,
    cellphone: NullableString,
    address: NullableString,
    city: NullableString,
    state: NullableString,
    country: NullableString,
    url: NullableString,
    linkedin: NullableString,
    variable1: NullableString,
    variable2: NullableString,
    variable3: NullableString,
    carousel: Type.Boolean(),
    stage: Nullable(Type.Enum(STAGES)),
    contact_group_id: Nullable(Type.Integer()),
    tags: Type.Array(Type.Object({ id: Type.Integer(), name: Type.String(), color: Type.String() }), {
      description: 'tag id ascending',
    }),
    custom_fields: Type.Array(Type.Object({ field: Type.String(), value: Type.String() }), {
      description: 'the fields with a value, by custom field id ascending',
    }),
    ...Timestamps,
  },
  {
    $id: 'Contact',
    description: 'A contact, with its tags and custom field values',
    examples: [
      {
        id: 7,
        user_id: 2,
        first_name: 'Ana',
        last_name: 'Souza',
        email: 'ana.souza@globex.example',
        business: 'Globex',
        position: 'Head of Sales',
        telephone: null,
        cellphone: '+55 (11) 98765-4321',
        address: null,
        city: null,
        state: null,
        country: null,
        url: null,
        linkedin: null,
        variable1: null,
        variable2: null,
        variable3: null,
        carousel: false,
        stage: 'lead',
        contact_group_id: null,
        tags: [{ id: 3, name: 'Hot', color: '#e11d48' }],
        custom_fields: [{ field: 'T-shirt size', value: 'M' }],
        created_at: '2026-11-22T10:00:00.000Z',
        updated_at: '2026-11-22T10:00:00.000Z',
      },
    ],
  },
)

export const ContactsPage = PagedList(Contact, 'ContactPage', 'A page of contacts')

export const ContactTombstone = Type.Object(
  {
    id: Type.Integer(),
    deleted: Type.Literal(true),
    deleted_at: Timestamp,
  },
  {
    $id: 'ContactTombstone',
    description: 'A deleted contact in an `updated_since` walk: remove it from your copy',
    examples: [{ id: 7, deleted: true, deleted_at: '2026-11-23T09:00:00.000Z' }],
  },
)

export const ContactsSyncPage = SyncList(
  Type.Union([Ref(Contact), Ref(ContactTombstone)]),
  'ContactSyncPage',
  'A page of an `updated_since` walk of the contacts: live ones whole, deleted ones as tombstones',
)

export const ContactsListResponse = Type.Union([Ref(ContactsPage), Ref(ContactsSyncPage)], {
  description: 'A page of contacts; with `updated_since` or `cursor`, a page of the walk',
})
