// `audit export`: a company's audit records of a time range on standard output, JSON Lines,
// oldest first: the same lines as GET /api/v1/audit_events/export, read a batch at a time.
import { Type } from 'typebox'
import { COMPANY_OPTION, defineCommand } from '../../cli/command.js'
import { Id } from '../../http/schemas.js'
import { requireCompany } from '../users/users.service.js'
import { checkRange, exportAuditEvents } from './audit.service.js'

const Instant = Type.String({ format: 'date-time' })

export const auditCommands = [
  defineCommand({
    name: 'audit export',
    summary: "Write a company's audit records of a time range to standard output, as JSON Lines (oldest first)",
    options: {
      company: COMPANY_OPTION,
      since: { value: 'ISO', description: 'from this instant, inclusive (2026-01-01T00:00:00Z)', required: true },
      until: { value: 'ISO', description: 'to this instant, exclusive', required: true },
    },
    input: Type.Object({ company: Id, since: Instant, until: Instant }),
    stream: true,
    run: async (db, input, context) => {
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
