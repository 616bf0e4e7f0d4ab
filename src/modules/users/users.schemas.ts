import { Type, type Static } from 'typebox'
import { Id, NonBlank, Nullable, PagedList, PageParams, Ref, Str, Timestamp, Timestamps } from '../../http/schemas.js'

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

/** A company as the admin command line shows it: the API's Company with its timestamps. */
export const CompanyDetails = Type.Object({ ...Company.properties, ...Timestamps }, { $id: 'CompanyDetails' })

/** `company list`: each company with the number of its users. */
export const ListedCompany = Type.Object(
  { ...Company.properties, users_count: Type.Integer(), ...Timestamps },
  { $id: 'ListedCompany' },
)

export const UsersListQuery = Type.Object({ ...PageParams })
export const UsersPage = PagedList(User, 'UserPage', 'A page of users')

export const TokenInfo = Type.Object(
  {
    scopes: Type.Array(Type.String(), {
      description: 'What the token may do (docs/access-control.md); `["*"]`: full access, every operation its user may call',
    }),
    kind: Type.Union([Type.Literal('personal'), Type.Literal('oauth')], {
      description: '`personal`: an api token made by its user or an admin; `oauth`: an access token granted to a third-party app',
    }),
    expires_at: Nullable({ ...Timestamp, description: 'When the token stops working (401 `token_expired`); null: never' }),
    app: Nullable(
      Type.Object(
        { id: Type.Integer(), name: Type.String() },
        { description: 'The app an OAuth token was granted to; null for a personal token' },
      ),
    ),
  },
  {
    $id: 'Token',
    description: 'The token of the request: its scopes, kind and expiry',
    examples: [{ scopes: ['contacts:read', 'tasks:write'], kind: 'personal', expires_at: '2027-02-20T10:00:00.000Z', app: null }],
  },
)

export const AuthorizeResponse = Type.Object(
  { user: Ref(User), company: Ref(Company), token: Ref(TokenInfo) },
  { $id: 'Authorization', description: 'The user a token acts for, its company, and what the token may do' },
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

export const UserSetRoleInput = Type.Object({
  user: Id,
  role: Type.Union([Type.Literal('admin'), Type.Literal('member')]),
})
export type UserSetRoleInput = Static<typeof UserSetRoleInput>

export const CompanySetTimezoneInput = Type.Object({
  company: Id,
  timezone: NonBlank(),
})
export type CompanySetTimezoneInput = Static<typeof CompanySetTimezoneInput>

export const TokenCreateInput = Type.Object({
  user: Id,
  scopes: Type.Optional(NonBlank()),
  'expires-in-days': Type.Optional(Type.Integer({ minimum: 1, maximum: 365 })),
})
export type TokenCreateInput = Static<typeof TokenCreateInput>

export const TokenRevokeInput = Type.Object({ token: NonBlank() })
