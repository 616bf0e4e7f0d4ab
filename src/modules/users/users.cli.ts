import { defineCommand } from '../../cli/command.js'
import { validate } from '../../http/validation.js'
import { createToken, revokeToken } from '../auth/tokens.service.js'
import { CompanyCreateInput, TokenCreateInput, UserCreateInput } from './users.schemas.js'
import { createCompany, createUser } from './users.service.js'

export const usersCommands = [
  defineCommand({
    name: 'company create',
    summary: 'Create a company (a tenant)',
    options: {
      name: { value: 'N', description: 'the company name', required: true },
      timezone: { value: 'Area/City', description: 'IANA time zone for "today" of tasks (default UTC)' },
    },
    run: (db, args) => createCompany(db, validate(CompanyCreateInput, args)),
  }),
  defineCommand({
    name: 'user create',
    summary: 'Create a user in a company',
    options: {
      company: { value: 'ID', description: 'the company id', required: true },
      name: { value: 'N', description: 'the user name', required: true },
      email: { value: 'E', description: 'the email, unique in the company', required: true },
      role: { value: 'admin|member', description: 'the role (default member)' },
    },
    run: (db, args) => createUser(db, validate(UserCreateInput, args)),
  }),
  defineCommand({
    name: 'token create',
    summary: 'Create an api_token for a user (it is shown only this once)',
    options: { user: { value: 'ID', description: 'the user id', required: true } },
    run: (db, args) => createToken(db, validate(TokenCreateInput, args).user),
  }),
  defineCommand({
    name: 'token revoke',
    summary: 'Revoke an api_token at once (running servers drop it from their cache)',
    options: { token: { value: 'T', description: 'the token', required: true } },
    run: (db, args) => revokeToken(db, args.token ?? ''),
  }),
]
