// What an admin command is: its name and summary, the TypeBox schema of its input (whose
// properties are its options, with their help and the API's rules and messages they are
// checked with before the database is opened) and a run function that returns the record or
// result it prints.
import type { Static, TObject } from 'typebox'
import type { Db } from '../db/db.js'
import type { Acting } from '../acting.js'

/** What a command may read besides its options; it acts (`Acting`) as the `cli` actor at the time it started. */
export interface CommandContext extends Acting {
  /** Standard input, read to its end ('' when there is none). */
  readStdin(): Promise<string>
  /** The environment the settings are read from (loadConfig). */
  env: Record<string, string | undefined> | undefined
  /** A line for the person on stderr (never stdout, which carries only the result). */
  note(text: string): void
  /** Standard output, for a command that streams (`stream: true`); resolves when it may write more. */
  write(text: string): Promise<void>
  /** Standard error, for progress a person watches (a long import); never the result. */
  status(text: string): void
}

interface CommandShape {
  /** Two words (one for a command of its own, such as backup): the resource and the action, e.g. 'user create'. */
  name: string
  summary: string
  /**
   * The options, one per property (`--company`): its `description` is the help, its
   * `placeholder` the value shown (`--company ID`); a required property is a required option,
   * a true-flag a switch without a value (`--generate`).
   */
  input: TObject
  /** A list: prints {"data": [...]} with --json, a table otherwise. */
  list?: boolean
  /** Writes its own output (context.write, e.g. JSON Lines); its result is not printed. */
  stream?: boolean
}

/** Takes its arguments in a service's order (db, acting, input): a service may be the run itself. */
interface OnDatabase extends CommandShape {
  run(db: Db, context: CommandContext, input: never): Promise<object>
  runAlone?: undefined
}

/**
 * Opens the database itself, without the migrations (restore: an empty target must stay
 * empty until the backup's schema is built in it).
 */
interface Standalone extends CommandShape {
  runAlone(context: CommandContext, input: never): Promise<object>
  run?: undefined
}

export type Command = OnDatabase | Standalone

export function defineCommand<S extends TObject>(command: {
  name: string
  summary: string
  input: S
  list?: boolean
  stream?: boolean
  run(db: Db, context: CommandContext, input: Static<S>): Promise<object>
}): Command {
  return command
}

/** A command that opens the database itself (Command.runAlone). */
export function defineStandaloneCommand<S extends TObject>(command: {
  name: string
  summary: string
  input: S
  runAlone(context: CommandContext, input: Static<S>): Promise<object>
}): Command {
  return command
}
