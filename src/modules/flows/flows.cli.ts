import { readFile } from 'node:fs/promises'
import { COMPANY_OPTION, defineCommand } from '../../cli/command.js'
import { invalid } from '../../errors.js'
import { FlowCreateInput } from './flows.schemas.js'
import { createFlow, parseSteps } from './flows.service.js'

/** --steps: the JSON array itself, or the path of a file that holds it. */
async function readSteps(value: string) {
  if (value.trimStart().startsWith('[')) return parseSteps(value)
  let text: string
  try {
    text = await readFile(value, 'utf8')
  } catch (err) {
    throw invalid({ steps: [`cannot be read (${(err as NodeJS.ErrnoException).code ?? 'error'}: ${value})`] })
  }
  return parseSteps(text)
}

export const flowsCommands = [
  defineCommand({
    name: 'flow create',
    summary: 'Create a flow (a cadence of steps) owned by a user of a company',
    options: {
      company: COMPANY_OPTION,
      user: { value: 'ID', description: 'the owner, a user of the company', required: true },
      name: { value: 'N', description: 'the flow name', required: true },
      steps: {
        value: 'FILE|JSON',
        description:
          'a file holding a JSON array of {"day": 0.., "kind": "phonecall|email|linkedin|social|meeting", "title": "..."}, or that array itself',
        required: true,
      },
      status: { value: 'active|paused', description: 'the status (default active)' },
    },
    input: FlowCreateInput,
    run: async (db, input, context) => createFlow(db, context, input, await readSteps(input.steps)),
  }),
]
