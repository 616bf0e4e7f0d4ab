import { Type, type Static } from 'typebox'
import { NonBlank, Nullable, Str, Timestamps, UnpagedList } from '../../http/schemas.js'

export const CUSTOM_FIELD_KINDS = ['input', 'textarea', 'email', 'telephone', 'date', 'dropdown'] as const
export type CustomFieldKind = (typeof CUSTOM_FIELD_KINDS)[number]

/** The choices of one dropdown (stored together, returned with every read of the field). */
export const MAX_OPTIONS = 1000

const Option = Type.Object({ name: Type.String() })

export const CustomField = Type.Object(
  {
    id: Type.Integer(),
    field: Type.String(),
    kind: Type.Enum(CUSTOM_FIELD_KINDS),
    options: Type.Array(Option, { description: 'the choices of a dropdown; empty for other kinds' }),
    ...Timestamps,
  },
  {
    $id: 'CustomField',
    description: 'A custom field definition: contacts carry values for it',
    examples: [
      {
        id: 4,
        field: 'T-shirt size',
        kind: 'dropdown',
        options: [{ name: 'S' }, { name: 'M' }, { name: 'L' }],
        created_at: '2026-11-22T10:00:00.000Z',
        updated_at: '2026-11-22T10:00:00.000Z',
      },
    ],
  },
)

export const CustomFieldBody = Type.Object(
  {
    field: NonBlank(),
    kind: Type.Enum(CUSTOM_FIELD_KINDS, {
      description: 'decides what values fit: email an address, date yyyy-mm-dd, telephone a phone number, dropdown one of the options',
    }),
    options: Type.Optional(
      Nullable(
        Type.Array(Type.Object({ name: Type.Optional(Str()) }), {
          maxItems: MAX_OPTIONS,
          description: 'dropdown only (1 to 1,000, names non-blank and unique); ignored for other kinds; omitted on update keeps the current ones',
        }),
      ),
    ),
  },
  { examples: [{ field: 'T-shirt size', kind: 'dropdown', options: [{ name: 'S' }, { name: 'M' }, { name: 'L' }] }] },
)
export type CustomFieldBody = Static<typeof CustomFieldBody>

export const CustomFieldsList = UnpagedList(CustomField, 'CustomFieldList', 'Every custom field definition of your company')
