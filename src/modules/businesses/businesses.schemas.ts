import { Type } from 'typebox'
import { Nullable, Timestamps } from '../../http/schemas.js'

const NullableString = Type.Union([Type.String(), Type.Null()])

export const Business = Type.Object(
  {
    id: Type.Integer(),
    name: Type.String(),
    linkedin_url: NullableString,
    sector: NullableString,
    colaborators_count: Nullable(Type.Integer()),
    telephone: NullableString,
    contacts_count: Type.Integer({ description: 'live contacts whose business this is' }),
    ...Timestamps,
  },
  {
    $id: 'Business',
    description: "A contact's employer: one per company and case-insensitive name",
    examples: [
      {
        id: 12,
        name: 'Globex',
        linkedin_url: 'https://www.linkedin.com/company/globex',
        sector: 'Software',
        colaborators_count: 250,
        telephone: '+55 11 4000-1000',
        contacts_count: 3,
        created_at: '2026-11-22T10:00:00.000Z',
        updated_at: '2026-11-22T10:00:00.000Z',
      },
    ],
  },
)
