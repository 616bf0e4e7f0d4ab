// `audit export`: a company's audit records of a time range on standard output, JSON Lines,
// oldest first: the same lines as GET /api/v1/audit_events/export, read a batch at a time.
// It lives here, above the modules, because it checks the company through the users module,
// which records audits itself and so may not be imported by the audit module.
import { Type } from 'typebox'
import { checkRange, exportAuditEvents } from '../modules/audit/index.js'
import { CompanyOption } from '../modules/users/index.js'
import { requireCompany } from '../modules/users-api/index.js'
import { defineCommand } from './command.js'

const Instant = Type.String({ format: 'date-time' })

export const auditCommands = [
  defineCommand({
    name: 'audit export', summary: "Write a company's audit records of a time range to standard output, as JSON Lines (oldest first)",
    input: Type.Object({
      company: CompanyOption,
      since: Type.With(Instant, { placeholder: 'ISO', description: 'from this instant, inclusive (2026-01-01T00:00:00Z)' }),
      until: Type.With(Instant, { placeholder: 'ISO', description: 'to this instant, exclusive' }),
    }),
    stream: true,
    run: async (db, context, input) => {
      const companyId = await requireCompany(db, input.company)
      checkRange(input)
      let exported = 0
      for await (const event of exportAuditEvents(db, companyId, input)) {
        await context.write(`${JSON.stringify(event)}\n`)
        exported++
      }
      return { exported }
    },
  }),
]
