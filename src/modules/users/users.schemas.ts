import { Type, type Static } from 'typebox'
import { Id, NonBlank, PagedList, PageParams, Ref, Str, Timestamps } from '../../http/schemas.js'

export const User = Type.Object(
  {
    id: Type.Integer(),
    name: Type.String(),
    email: Type.String(),
    role: Type.Union([Type.Literal('admin'), Type.Literal('member')]),
    active: Type.Boolean(),
    ...Timestamps,
  },
  {
    $id: 'User',
    description: 'A user of your company',
    examples: [
      {
        id: 2,
        name: 'Ana Souza',
        email: 'ana@acme.example',
        role: 'admin',
        active: true,
        created_at: '2026-11-22T10:00:00.000Z',
        updated_at: '2026-11-22T10:00:00.000Z',
      },
    ],
  },
)
export type User = Static<typeof User>

export const Company = Type.Object(
  {
    id: Type.Integer(),
    name: Type.String(),
    timezone: Type.String({ description: 'IANA time zone: decides "today" for tasks' }),
  },
  { $id: 'Company', description: 'Your company', examples: [{ id: 1, name: 'Acme Sales', timezone: 'America/Sao_Paulo' }] },
)

export const UsersListQuery = Type.Object({ ...PageParams })
export const UsersPage = PagedList(User, 'UserPage', 'A page of users')

export const AuthorizeResponse = Type.Object(
  { user: Ref(User), company: Ref(Company) },
  { $id: 'Authorization', description: 'The user a token acts for, and its company' },
)

// Admin command line inputs, validated with the same rules as API parameters.
export const CompanyCreateInput = Type.Object({
  name: NonBlank(),
  timezone: Type.Optional(Str()),
})
export type CompanyCreateInput = Static<typeof CompanyCreateInput>

export const UserCreateInput = Type.Object({
  company: Id,
  name: NonBlank(),
  email: Type.String({ format: 'email', maxLength: 255 }),
  role: Type.Optional(Type.Union([Type.Literal('admin'), Type.Literal('member')])),
})
export type UserCreateInput = Static<typeof UserCreateInput>

export const TokenCreateInput = Type.Object({ user: Id })
export type TokenCreateInput = Static<typeof TokenCreateInput>

export const TokenRevokeInput = Type.Object({ token: NonBlank() })
