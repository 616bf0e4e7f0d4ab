import { Type, type Static } from 'typebox'
import { Id, NonBlank, PagedList, PageParams, Str, Timestamps } from '../../http/schemas.js'

export const User = Type.Object(
  {
    id: Type.Integer(),
    name: Type.String(),
    email: Type.String(),
    role: Type.Union([Type.Literal('admin'), Type.Literal('member')]),
    active: Type.Boolean(),
    ...Timestamps,
  },
  { $id: 'User' },
)
export type User = Static<typeof User>

export const Company = Type.Object(
  {
    id: Type.Integer(),
    name: Type.String(),
    timezone: Type.String({ description: 'IANA time zone: decides "today" for tasks' }),
    ...Timestamps,
  },
  { $id: 'Company' },
)

export const UsersListQuery = Type.Object({ ...PageParams })
export const UsersPage = PagedList(Type.Ref('User'))

export const AuthorizeResponse = Type.Object({
  user: Type.Ref('User'),
  company: Type.Object({ id: Type.Integer(), name: Type.String(), timezone: Type.String() }),
})

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
