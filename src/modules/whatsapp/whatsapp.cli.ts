import { defineCommand } from '../../cli/command.js'
import { ImportInput } from './whatsapp.schemas.js'
import { importFile } from './whatsapp.service.js'

export const whatsappCommands = [
  defineCommand({
    name: 'whatsapp import', summary: 'Import WhatsApp messages from a JSON Lines file (all lines or none)',
    input: ImportInput, run: importFile,
  }),
]
