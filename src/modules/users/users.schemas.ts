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

// Admin command line inputs, validated with the same rules as API parameters. Each property is
// an option: its description is the help, its placeholder the value shown (`--company ID`).

/** The options many commands take. */
export const CompanyOption = Type.With(Id, { placeholder: 'ID', description: 'the company id' })
export const UserOption = Type.With(Id, { placeholder: 'ID', description: 'the user id' })
const Role = Type.Union([Type.Literal('admin'), Type.Literal('member')])

export const CompanyCreateInput = Type.Object({
  name: Type.With(NonBlank(), { placeholder: 'N', description: 'the company name' }),
  timezone: Type.Optional(Type.With(Str(), { placeholder: 'Area/City', description: 'IANA time zone for "today" of tasks (default UTC)' })),
})
export type CompanyCreateInput = Static<typeof CompanyCreateInput>

export const UserCreateInput = Type.Object({
  company: CompanyOption,
  name: Type.With(NonBlank(), { placeholder: 'N', description: 'the user name' }),
  email: Type.With(Type.String({ format: 'email', maxLength: 255 }), { placeholder: 'E', description: 'the email, unique in the company' }),
  role: Type.Optional(Type.With(Role, { placeholder: 'admin|member', description: 'the role (default member)' })),
})
export type UserCreateInput = Static<typeof UserCreateInput>

export const UserSetRoleInput = Type.Object({ user: UserOption, role: Type.With(Role, { placeholder: 'admin|member', description: 'the new role' }) })
export type UserSetRoleInput = Static<typeof UserSetRoleInput>

export const CompanySetTimezoneInput = Type.Object({
  company: CompanyOption,
  timezone: Type.With(NonBlank(), { placeholder: 'Area/City', description: 'the IANA time zone' }),
})
export type CompanySetTimezoneInput = Static<typeof CompanySetTimezoneInput>

export const TokenCreateInput = Type.Object({
  user: UserOption,
  scopes: Type.Optional(Type.With(NonBlank(), {
    placeholder: 'S,S',
    description: 'comma-separated scopes, e.g. contacts:read,tasks:write (docs/access-control.md); default: full access',
  })),
  'expires-in-days': Type.Optional(Type.With(Type.Integer({ minimum: 1, maximum: 365 }), {
    placeholder: 'N',
    description: 'the token stops working after N days (1 to 365); default: never',
  })),
})
export type TokenCreateInput = Static<typeof TokenCreateInput>

export const TokenRevokeInput = Type.Object({ token: Type.With(NonBlank(), { placeholder: 'T', description: 'the token' }) })
