// What an admin command is: its options (parsed with node's util.parseArgs), its help,
// the TypeBox schema its options are validated with (the API's rules and messages, before
// the database is opened), and a run function that returns the record or result it prints.
import type { Static, TSchema } from 'typebox'
import type { Db } from '../db/db.js'
import type { Acting } from '../modules/audit/audit.context.js'

export interface OptionSpec {
  description: string
  required?: boolean
  /** Shown in help: `--company ID`. */
  value?: string
  /** A switch without a value (`--generate`): its input is `true` when given. */
  flag?: boolean
}

// The options many commands take, described once.
export const COMPANY_OPTION: OptionSpec = { value: 'ID', description: 'the company id', required: true }
export const USER_OPTION: OptionSpec = { value: 'ID', description: 'the user id', required: true }

/** What a command may read besides its options; it acts (`Acting`) as the `cli` actor at the time it started. */
export interface CommandContext extends Acting {
  /** Standard input, read to its end ('' when there is none). */
  readStdin(): Promise<string>
  /** The environment the settings are read from (loadConfig). */
  env: Record<string, string | undefined> | undefined
  /** Standard output, for a command that streams (`stream: true`); resolves when it may write more. */
  write(text: string): Promise<void>
}

export interface Command {
  /** Two words: the resource and the action, e.g. 'user create'. */
  name: string
  summary: string
  options: Record<string, OptionSpec>
  input: TSchema
  /** A list: prints {"data": [...]} with --json, a table otherwise. */
  list?: boolean
  /** Writes its own output (context.write, e.g. JSON Lines); its result is not printed. */
  stream?: boolean
  run(db: Db, input: never, context: CommandContext): Promise<object>
}

export function defineCommand<S extends TSchema>(command: {
  name: string
  summary: string
  options: Record<string, OptionSpec>
  input: S
  list?: boolean
  stream?: boolean
  run(db: Db, input: Static<S>, context: CommandContext): Promise<object>
}): Command {
  return command
}
