import { COMPANY_OPTION, defineCommand } from '../../cli/command.js'
import { ImportInput } from './whatsapp.schemas.js'
import { importFile } from './whatsapp.service.js'

export const whatsappCommands = [
  defineCommand({
    name: 'whatsapp import',
    summary: 'Import WhatsApp messages from a JSON Lines file (all lines or none)',
    options: {
      company: COMPANY_OPTION,
      file: {
        value: 'F',
        description: 'JSON Lines, one {contact_id, user_id, direction, body, status, sent_at} per line',
        required: true,
      },
    },
    input: ImportInput,
    run: (db, input, context) => importFile(db, context, input),
  }),
]
