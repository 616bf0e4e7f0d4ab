// These are the admin commands on companies; the commands on a company's users and their tokens
// live in auth (../auth/auth.cli.ts).
import { Type } from 'typebox'
import { defineCommand } from '../../cli/command.js'
import { CompanyCreateInput, CompanySetTimezoneInput } from '../users/index.js'
import { createCompany, listCompanies, setCompanyTimezone } from './users-api.service.js'

export const usersCommands = [
  defineCommand({ name: 'company create', summary: 'Create a company (a tenant)', input: CompanyCreateInput, run: createCompany }),
  defineCommand({
    name: 'company set-timezone', summary: 'Change the time zone of a company ("today" of tasks and done dates)',
    input: CompanySetTimezoneInput, run: setCompanyTimezone,
  }),
  defineCommand({ name: 'company list', summary: 'List the companies, with the number of users of each', input: Type.Object({}), list: true, run: listCompanies }),
]
