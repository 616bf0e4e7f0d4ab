// The admin command line as a function: `runCli(argv, io)` finds the command, parses and
// checks its options (the API's rules, before the database is opened), runs it and writes
// its result: exactly one JSON object on stdout with --json, else readable lines (a table
// for a list). Every failure is one line on stderr and exit code 1. main.ts runs it on the
// process; tests call it in process on their own database.
import { parseArgs } from 'node:util'
import { ConfigError, loadConfig } from '../config.js'
import { openDatabase } from '../db/client.js'
import { schemaVersion } from '../db/migrate.js'
import type { Db } from '../db/db.js'
import { useStatements } from '../db/query.js'
import { ApiError, invalid, type ErrorDetails } from '../errors.js'
import { validate, type JsonSchema } from '../http/validation.js'
import { VERSION } from '../version.js'
import { cliActing } from '../acting.js'
import type { Command, CommandContext } from './command.js'
import { commands as allCommands } from './commands.js'

export interface CliIo {
  stdout: (text: string) => void
  stderr: (text: string) => void
  /** The settings (DATABASE_URL, DATA_DIR, …); the process environment when left out. */
  env?: Record<string, string | undefined>
  /** An open database to run on (tests); otherwise the configured one is opened and closed. */
  database?: Db
  /** Tell a person at a terminal what a slow first start is doing (on stderr). */
  progress?: boolean
  /** The commands to choose from (all of them unless a test says otherwise). */
  commands?: Command[]
  /** Standard input, read to its end (`user set-password`); none when left out. */
  stdin?: () => Promise<string>
  /** Standard output for a streaming command, resolving when more may be written; stdout when left out. */
  write?: (text: string) => Promise<void>
}

class UsageError extends Error {}

const PROGRAM = 'npx engage-admin'

/** Runs one command line; resolves to the exit code. Never throws. */
export async function runCli(argv: string[], io: CliIo): Promise<number> {
  try {
    return await dispatch(argv, io)
  } catch (err) {
    const known = err instanceof UsageError || err instanceof ApiError || err instanceof ConfigError
    const message = describeError(err, findCommand(argv, io.commands ?? allCommands)).replace(/\s+/g, ' ').trim()
    io.stderr(`admin: ${known ? message : `failed: ${message}`}\n`)
    return 1
  }
}

const groupOf = (command: Command) => command.name.split(' ')[0] ?? command.name
const actionOf = (command: Command) => command.name.split(' ')[1] ?? ''
const isOption = (word: string | undefined) => word === undefined || word.startsWith('-')

function findCommand(argv: string[], commands: Command[]): Command | undefined {
  const [group, action] = argv
  if (isOption(group) || isOption(action)) return undefined
  return commands.find((c) => c.name === `${group ?? ''} ${action ?? ''}`)
}

async function dispatch(argv: string[], io: CliIo): Promise<number> {
  const commands = io.commands ?? allCommands
  const wantsHelp = argv.includes('--help') || argv.includes('-h')
  const [group, action] = argv
  if (group === '--version') {
    const version = { version: VERSION, schema_version: schemaVersion() }
    io.stdout((argv.includes('--json') ? JSON.stringify(version) : `engage ${version.version} (schema ${version.schema_version})`) + '\n')
    return 0
  }
  if (group === undefined || wantsHelp && isOption(group)) {
    io.stdout(generalHelp(commands) + '\n')
    return wantsHelp ? 0 : 1
  }
  if (isOption(group)) {
    throw new UsageError(`a command comes first (${PROGRAM} <resource> <action>); see ${PROGRAM} --help`)
  }
  const actions = commands.filter((c) => groupOf(c) === group)
  if (actions.length === 0) {
    throw new UsageError(`unknown command "${group}"; the commands are ${orList(groups(commands))}; see ${PROGRAM} --help`)
  }
  // A command of one word (backup, restore) takes its options right after its name.
  const single = actions.find((c) => c.name === group)
  if (!single && isOption(action)) {
    // `admin company`: what can be done with a company. Exit 1 unless help was asked for: no command ran.
    io.stdout(groupHelp(group, actions) + '\n')
    return wantsHelp ? 0 : 1
  }
  const command = single ?? actions.find((c) => actionOf(c) === action)
  if (!command) {
    throw new UsageError(`unknown command "${group} ${action ?? ''}"; ${group} can ${orList(actions.map(actionOf))}`)
  }
  if (wantsHelp) {
    io.stdout(commandHelp(command) + '\n')
    return 0
  }

  const { args, json } = parseOptions(command, argv.slice(single ? 1 : 2))
  const input = checkInput(command, args)
  const context: CommandContext = {
    readStdin: io.stdin ?? (() => Promise.resolve('')),
    env: io.env,
    ...cliActing(),
    note: (text) => {
      io.stderr(`admin: ${text}\n`)
    },
    status: io.stderr,
    write:
      io.write ??
      ((text) => {
        io.stdout(text)
        return Promise.resolve()
      }),
  }
  const result = command.runAlone
    ? await command.runAlone(context, input as never)
    : io.database
      ? await command.run(io.database, context, input as never)
      : await onConfiguredDatabase(command, input, io, context)
  if (!command.stream) io.stdout((json ? JSON.stringify(result) : readable(result)) + '\n')
  return 0
}

async function onConfiguredDatabase(command: Command & { run: object }, input: unknown, io: CliIo, context: CommandContext): Promise<object> {
  const config = loadConfig(io.env)
  // Straight to PostgreSQL (below), so no pooler's server connections to recover from.
  useStatements(config.statements === 'pooled' ? 'named' : config.statements)
  const database = await openDatabase({
    // A one-off command needs no pooler: straight to PostgreSQL, whose session settings and
    // statement timeout (below) then apply as they are, leaving the role's defaults alone.
    databaseUrl: config.databaseDirectUrl ?? config.databaseUrl,
    dataDir: config.dataDir,
    // One-off commands (a large import) may take longer than a request may.
    statementTimeoutMs: Math.max(config.statementTimeoutMs, 120_000),
    // Only for a person at a terminal: scripts get exactly one line on failure.
    onProgress: io.progress
      ? (message) => {
          io.stderr(`admin: ${message}\n`)
        }
      : undefined,
  })
  try {
    return await command.run(database.db, context, input as never)
  } finally {
    await database.close()
  }
}

interface Option {
  name: string
  description: string
  /** Shown in help: `--company ID`. */
  placeholder?: string
  required: boolean
  /** A switch without a value (a true-flag): its input is `true` when given. */
  flag: boolean
}

/** A command's options: the properties of its input schema, in their order (Command.input). */
function optionsOf(command: Command): Option[] {
  // TypeBox leaves `required` out when no property is required.
  const required = new Set((command.input as { required?: string[] }).required)
  return Object.entries(command.input.properties).map(([name, schema]) => {
    const { description = '', placeholder, type } = schema as { description?: string; placeholder?: string; type?: unknown }
    return { name, description, placeholder, required: required.has(name), flag: type === 'boolean' }
  })
}

function parseOptions(command: Command, rest: string[]): { args: Record<string, string>; json: boolean } {
  const commandOptions = optionsOf(command)
  const options: Record<string, { type: 'string' | 'boolean' }> = { json: { type: 'boolean' } }
  for (const option of commandOptions) options[option.name] = { type: option.flag ? 'boolean' : 'string' }
  let values: Record<string, string | boolean | undefined>
  try {
    values = parseArgs({ args: rest, options, strict: true, allowPositionals: false }).values
  } catch (err) {
    throw new UsageError(parseProblem(command, rest, err as Error & { code?: string }))
  }
  const args: Record<string, string> = {}
  for (const [name, value] of Object.entries(values)) {
    if (typeof value === 'string') args[name] = value
    else if (value === true && name !== 'json') args[name] = 'true' // a flag: validated as a true-flag
  }
  const missing = commandOptions.filter((option) => option.required && args[option.name] === undefined).map(optionUsage)
  if (missing.length > 0) throw new UsageError(`${missing.join(', ')} ${missing.length > 1 ? 'are' : 'is'} required; see ${PROGRAM} ${command.name} --help`)
  return { args, json: values.json === true }
}

/** node's parseArgs messages, said in the command line's own words. */
function parseProblem(command: Command, rest: string[], err: Error & { code?: string }): string {
  const see = `see ${PROGRAM} ${command.name} --help`
  const option = /'(-[^' ]+)/.exec(err.message)?.[1]
  switch (err.code) {
    case 'ERR_PARSE_ARGS_UNKNOWN_OPTION':
      return `${command.name} has no option ${option ?? ''}; ${see}`
    case 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL':
      return `unexpected "${/'([^']*)'/.exec(err.message)?.[1] ?? ''}": every value follows its --option; ${see}`
    case 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE':
      if (option === '--json') return '--json takes no value'
      if (/argument missing/.test(err.message)) return `${option ?? 'an option'} needs a value; ${see}`
      {
        // "--name -x": a value that starts with a dash must be joined to its option.
        const value = option ? rest[rest.indexOf(option) + 1] : undefined
        return `${option ?? 'an option'} needs a value; a value starting with "-" is written ${option ?? '--option'}=${value ?? '-value'}`
      }
    default:
      return err.message.split('\n')[0] ?? 'bad arguments'
  }
}

/** The values an option can take, when its schema enumerates them (role, kind, status). */
function choicesOf(command: Command, name: string): string[] | undefined {
  const schema = (command.input as unknown as JsonSchema).properties?.[name]
  if (!schema) return undefined
  if (Array.isArray(schema.enum)) return schema.enum.map(String)
  const consts = schema.anyOf?.map((branch) => branch.const)
  return consts?.every((c) => typeof c === 'string') ? consts : undefined
}

/** Validates the options with the API's rules; an enumerated option names its values. */
function checkInput(command: Command, args: Record<string, string>): unknown {
  try {
    return validate(command.input, args)
  } catch (err) {
    if (!(err instanceof ApiError) || !err.details) throw err
    const details: ErrorDetails = { ...err.details }
    for (const name of Object.keys(details)) {
      const choices = choicesOf(command, name)
      const value = args[name]
      if (choices && value !== undefined && !choices.includes(value)) details[name] = [`must be ${orList(choices)}`]
    }
    throw invalid(details)
  }
}

/** An error in one line; a problem with an option's value names the option (`--role must be …`). */
function describeError(err: unknown, command: Command | undefined): string {
  if (err instanceof ApiError && err.details) {
    return Object.entries(err.details)
      .map(([field, problems]) => `${command && field in command.input.properties ? `--${field}` : field} ${problems.join(', ')}`)
      .join('; ')
  }
  if (err instanceof Error) return err.message
  return String(err)
}

function orList(words: string[]): string {
  return words.length <= 1 ? (words[0] ?? '') : `${words.slice(0, -1).join(', ')} or ${words.at(-1) ?? ''}`
}

const groups = (commands: Command[]) => [...new Set(commands.map(groupOf))]

function optionUsage(option: Option): string {
  return `--${option.name}${option.placeholder ? ` ${option.placeholder}` : ''}`
}

function commandHelp(command: Command): string {
  const options = optionsOf(command)
  const usage = options.map((option) => (option.required ? optionUsage(option) : `[${optionUsage(option)}]`))
  const lines = options.map((option) => `  --${option.name.padEnd(14)} ${option.description}${option.required ? ' (required)' : ''}`)
  return [
    `Usage: ${PROGRAM} ${command.name} ${[...usage, '[--json]'].join(' ')}`,
    '',
    command.summary,
    '',
    'Options:',
    ...lines,
    `  --${'json'.padEnd(14)} print exactly one JSON object on stdout${command.list ? ' ({"data": [...]})' : ''}`,
    `  --${'help'.padEnd(14)} show this help`,
  ].join('\n')
}

/** One line per command, the summaries in one column as wide as the longest name of `all` needs. */
function commandLines(commands: Command[], all: Command[] = commands): string[] {
  const width = Math.max(...all.map((c) => c.name.length))
  return commands.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`)
}

function groupHelp(group: string, actions: Command[]): string {
  return [
    `Usage: ${PROGRAM} ${group} <action> [options] [--json]`,
    '',
    `Actions of ${group}:`,
    ...commandLines(actions),
    '',
    `Run an action with --help for its options: ${PROGRAM} ${actions[0]?.name ?? group} --help`,
  ].join('\n')
}

function generalHelp(commands: Command[]): string {
  return [
    `Usage: ${PROGRAM} <resource> <action> [options] [--json]`,
    '',
    'Works on the database of the server: DATABASE_URL, else the embedded one in DATA_DIR.',
    'With --json a command prints exactly one JSON object on stdout (a list: {"data": [...]});',
    'a failure is one line on stderr and exit code 1.',
    '',
    'Commands:',
    // Grouped by resource, whichever module defines them.
    ...groups(commands).flatMap((group) => commandLines(commands.filter((c) => groupOf(c) === group), commands)),
    '',
    `Run a command with --help for its options, a resource alone for its actions (${PROGRAM} company).`,
    `${PROGRAM} --version prints the version and the schema version.`,
  ].join('\n')
}

function formatValue(value: unknown): string {
  if (value instanceof Date) return value.toISOString()
  if (typeof value === 'string') return value
  if (value === undefined) return ''
  return JSON.stringify(value)
}

/** A list as an aligned table (one row per record), anything else as `key: value` lines. */
function readable(result: object): string {
  const data = (result as { data?: unknown }).data
  if (Array.isArray(data) && Object.keys(result).length === 1) return table(data as Record<string, unknown>[])
  return Object.entries(result)
    .map(([key, value]) => `${key}: ${formatValue(value)}`)
    .join('\n')
}

function table(rows: Record<string, unknown>[]): string {
  const [first] = rows
  if (!first) return '(none)'
  const columns = Object.keys(first)
  const cells = [columns, ...rows.map((row) => columns.map((column) => formatValue(row[column])))]
  const widths = columns.map((_, i) => Math.max(...cells.map((line) => line[i]?.length ?? 0)))
  return cells.map((line) => line.map((cell, i) => cell.padEnd(widths[i] ?? 0)).join('  ').trimEnd()).join('\n')
}
