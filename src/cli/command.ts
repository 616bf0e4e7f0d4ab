// What an admin command is: its options (parsed with node's util.parseArgs), its help,
// the TypeBox schema its options are validated with (the API's rules and messages, before
// the database is opened), and a run function that returns the record or result it prints.
import type { Static, TSchema } from 'typebox'
import type { Database } from '../db/client.js'

export interface OptionSpec {
  description: string
  required?: boolean
  /** Shown in help: `--company ID`. */
  value?: string
}

export interface Command {
  /** Two words: the resource and the action, e.g. 'user create'. */
  name: string
  summary: string
  options: Record<string, OptionSpec>
  input: TSchema
  run(db: Database, input: never): Promise<object>
}

export function defineCommand<S extends TSchema>(command: {
  name: string
  summary: string
  options: Record<string, OptionSpec>
  input: S
  run(db: Database, input: Static<S>): Promise<object>
}): Command {
  return command
}
