import { Type } from 'typebox'
import { defineCommand } from '../../cli/command.js'
import { createToken, parseScopes, revokeToken } from '../auth/tokens.service.js'
import { CompanyCreateInput, CompanyOption, CompanySetTimezoneInput, TokenCreateInput, TokenRevokeInput, UserCreateInput, UserSetRoleInput } from './users.schemas.js'
import { createCompany, createUser, listCompanies, listUsers, setCompanyTimezone, setUserRole } from './users.service.js'

export const usersCommands = [
  defineCommand({ name: 'company create', summary: 'Create a company (a tenant)', input: CompanyCreateInput, run: createCompany }),
  defineCommand({
    name: 'company set-timezone', summary: 'Change the time zone of a company ("today" of tasks and done dates)',
    input: CompanySetTimezoneInput, run: setCompanyTimezone,
  }),
  defineCommand({ name: 'company list', summary: 'List the companies, with the number of users of each', input: Type.Object({}), list: true, run: listCompanies }),
  defineCommand({ name: 'user create', summary: 'Create a user in a company', input: UserCreateInput, run: createUser }),
  defineCommand({
    name: 'user set-role', summary: "Change a user's role: admin or member (takes effect at once on every server)",
    input: UserSetRoleInput, run: setUserRole,
  }),
  defineCommand({
    name: 'user list', summary: 'List the users of a company, active or not',
    input: Type.Object({ company: CompanyOption }), list: true, run: (db, _context, input) => listUsers(db, input.company),
  }),
  defineCommand({
    name: 'token create', summary: 'Create an api_token for a user (it is shown only this once): full access, or only the scopes given',
    input: TokenCreateInput,
    run: (db, context, input) =>
      createToken(db, context, input.user, {
        scopes: input.scopes === undefined ? undefined : parseScopes(input.scopes),
        expiresInDays: input['expires-in-days'],
      }),
  }),
  defineCommand({
    name: 'token revoke', summary: 'Revoke an api_token at once (running servers drop it from their cache)',
    input: TokenRevokeInput, run: (db, context, input) => revokeToken(db, context, input.token),
  }),
]
