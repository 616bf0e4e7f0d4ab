import { Type } from 'typebox'
import { COMPANY_OPTION, defineCommand, USER_OPTION } from '../../cli/command.js'
import { Id } from '../../http/schemas.js'
import { createToken, parseScopes, revokeToken } from '../auth/tokens.service.js'
import { CompanyCreateInput, CompanySetTimezoneInput, TokenCreateInput, TokenRevokeInput, UserCreateInput, UserSetRoleInput } from './users.schemas.js'
import { createCompany, createUser, listCompanies, listUsers, setCompanyTimezone, setUserRole } from './users.service.js'

export const usersCommands = [
  defineCommand({
    name: 'company create',
    summary: 'Create a company (a tenant)',
    options: {
      name: { value: 'N', description: 'the company name', required: true },
      timezone: { value: 'Area/City', description: 'IANA time zone for "today" of tasks (default UTC)' },
    },
    input: CompanyCreateInput,
    run: (db, input, context) => createCompany(db, context, input),
  }),
  defineCommand({
    name: 'company set-timezone',
    summary: 'Change the time zone of a company ("today" of tasks and done dates)',
    options: {
      company: COMPANY_OPTION,
      timezone: { value: 'Area/City', description: 'the IANA time zone', required: true },
    },
    input: CompanySetTimezoneInput,
    run: (db, input, context) => setCompanyTimezone(db, context, input),
  }),
  defineCommand({
    name: 'company list',
    summary: 'List the companies, with the number of users of each',
    options: {},
    input: Type.Object({}),
    list: true,
    run: (db) => listCompanies(db),
  }),
  defineCommand({
    name: 'user create',
    summary: 'Create a user in a company',
    options: {
      company: COMPANY_OPTION,
      name: { value: 'N', description: 'the user name', required: true },
      email: { value: 'E', description: 'the email, unique in the company', required: true },
      role: { value: 'admin|member', description: 'the role (default member)' },
    },
    input: UserCreateInput,
    run: (db, input, context) => createUser(db, context, input),
  }),
  defineCommand({
    name: 'user set-role',
    summary: "Change a user's role: admin or member (takes effect at once on every server)",
    options: {
      user: USER_OPTION,
      role: { value: 'admin|member', description: 'the new role', required: true },
    },
    input: UserSetRoleInput,
    run: (db, input, context) => setUserRole(db, context, input),
  }),
  defineCommand({
    name: 'user list',
    summary: 'List the users of a company, active or not',
    options: { company: COMPANY_OPTION },
    input: Type.Object({ company: Id }),
    list: true,
    run: (db, input) => listUsers(db, input.company),
  }),
  defineCommand({
    name: 'token create',
    summary: 'Create an api_token for a user (it is shown only this once): full access, or only the scopes given',
    options: {
      user: USER_OPTION,
      scopes: { value: 'S,S', description: 'comma-separated scopes, e.g. contacts:read,tasks:write (docs/access-control.md); default: full access' },
      'expires-in-days': { value: 'N', description: 'the token stops working after N days (1 to 365); default: never' },
    },
    input: TokenCreateInput,
    run: (db, input, context) =>
      createToken(db, context, input.user, {
        scopes: input.scopes === undefined ? undefined : parseScopes(input.scopes),
        expiresInDays: input['expires-in-days'],
      }),
  }),
  defineCommand({
    name: 'token revoke',
    summary: 'Revoke an api_token at once (running servers drop it from their cache)',
    options: { token: { value: 'T', description: 'the token', required: true } },
    input: TokenRevokeInput,
    run: (db, input, context) => revokeToken(db, context, input.token),
  }),
]
