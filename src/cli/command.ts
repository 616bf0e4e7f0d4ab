// What an admin command is: its options (parsed with node's util.parseArgs), its help,
// and a run function that returns the record or result it prints.
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
  run(db: Database, args: Record<string, string>): Promise<object>
}

export function defineCommand(command: Command): Command {
  return command
}
