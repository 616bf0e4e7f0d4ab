import { readFile } from 'node:fs/promises'
import { defineCommand } from '../../cli/command.js'
import { invalid } from '../../errors.js'
import { FlowCreateInput } from '../flows/index.js'
import { createFlowCommand, parseSteps } from './flows-api.service.js'

/** Reads --steps, which holds either the JSON array itself or the path of a file that holds it. */
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
    name: 'flow create', summary: 'Create a flow (a cadence of steps) owned by a user of a company',
    input: FlowCreateInput, run: async (db, context, input) => createFlowCommand(db, context, input, await readSteps(input.steps)),
  }),
]
