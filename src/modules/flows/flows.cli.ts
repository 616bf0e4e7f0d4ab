import { readFile } from 'node:fs/promises'
import { defineCommand } from '../../cli/command.js'
import { invalid } from '../../errors.js'
import { FlowCreateInput } from './flows.schemas.js'
import { createFlow, parseSteps } from './flows.service.js'

async function readSteps(file: string) {
  let text: string
  try {
    text = await readFile(file, 'utf8')
  } catch (err) {
    throw invalid({ steps: [`cannot be read (${(err as NodeJS.ErrnoException).code ?? 'error'}: ${file})`] })
  }
  return parseSteps(text)
}

export const flowsCommands = [
  defineCommand({
    name: 'flow create',
    summary: 'Create a flow (a cadence of steps) owned by a user of a company',
    options: {
      company: { value: 'ID', description: 'the company id', required: true },
      user: { value: 'ID', description: 'the owner, a user of the company', required: true },
      name: { value: 'N', description: 'the flow name', required: true },
      steps: {
        value: 'FILE',
        description: 'a JSON array of {"day": 0.., "kind": "phonecall|email|linkedin|social|meeting", "title": "..."}',
        required: true,
      },
      status: { value: 'active|paused', description: 'the status (default active)' },
    },
    input: FlowCreateInput,
    run: async (db, input) => createFlow(db, input, await readSteps(input.steps)),
  }),
]
