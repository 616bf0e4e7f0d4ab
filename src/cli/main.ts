// The admin command line: `npm run admin -- <resource> <action> [--option value] [--json]`.
// It opens the same database as the server (DATABASE_URL, else DATA_DIR), applies the
// migrations, runs one command and prints its record: as exactly one JSON object on
// stdout with --json, else as readable lines. On failure: one line on stderr, exit 1.
import { parseArgs } from 'node:util'
import { ConfigError, loadConfig } from '../config.js'
import { openDatabase } from '../db/client.js'
import { usePreparedStatements } from '../db/query.js'
import { ApiError } from '../errors.js'
import { validate } from '../http/validation.js'
import type { Command } from './command.js'
import { commands } from './commands.js'

class UsageError extends Error {}

function optionUsage(name: string, spec: Command['options'][string]): string {
  const flag = `--${name}${spec.value ? ` ${spec.value}` : ''}`
  return spec.required ? flag : `[${flag}]`
}

function commandHelp(command: Command): string {
  const usage = Object.entries(command.options).map(([name, spec]) => optionUsage(name, spec))
  const lines = Object.entries(command.options).map(
    ([name, spec]) => `  --${name.padEnd(14)} ${spec.description}${spec.required ? ' (required)' : ''}`,
  )
  return [
    `Usage: npm run admin -- ${command.name} ${usage.join(' ')} [--json]`,
    '',
    command.summary,
    '',
    'Options:',
    ...lines,
    `  --${'json'.padEnd(14)} print exactly one JSON object on stdout`,
    `  --${'help'.padEnd(14)} show this help`,
  ].join('\n')
}

function generalHelp(): string {
  return [
    'Usage: npm run admin -- <resource> <action> [options] [--json]',
    '',
    'Works on the database of the server: DATABASE_URL, else the embedded one in DATA_DIR.',
    '',
    'Commands:',
    ...commands.map((c) => `  ${c.name.padEnd(18)} ${c.summary}`),
    '',
    'Run a command with --help for its options.',
  ].join('\n')
}

function describeError(err: unknown): string {
  if (err instanceof ApiError && err.details) {
    return Object.entries(err.details)
      .map(([field, problems]) => `${field} ${problems.join(', ')}`)
      .join('; ')
  }
  if (err instanceof Error) return err.message
  return String(err)
}

function formatValue(value: unknown): string {
  if (value instanceof Date) return value.toISOString()
  if (typeof value === 'object' && value !== null) return JSON.stringify(value)
  return String(value)
}

function readable(result: object): string {
  return Object.entries(result)
    .map(([key, value]) => `${key}: ${formatValue(value)}`)
    .join('\n')
}

async function main(argv: string[]): Promise<number> {
  const words = argv.filter((a) => !a.startsWith('-')).slice(0, 2)
  const wantsHelp = argv.includes('--help') || argv.includes('-h')
  const command = commands.find((c) => c.name === words.join(' '))
  if (!command) {
    if (wantsHelp || argv.length === 0) {
      process.stdout.write(generalHelp() + '\n')
      return argv.length === 0 ? 1 : 0
    }
    throw new UsageError(`unknown command "${words.join(' ')}"; see npm run admin -- --help`)
  }
  if (wantsHelp) {
    process.stdout.write(commandHelp(command) + '\n')
    return 0
  }

  const options: Record<string, { type: 'string' | 'boolean' }> = { json: { type: 'boolean' } }
  for (const name of Object.keys(command.options)) options[name] = { type: 'string' }
  let parsed: { values: Record<string, string | boolean | undefined> }
  try {
    parsed = parseArgs({ args: argv.slice(2), options, strict: true, allowPositionals: false })
  } catch (err) {
    throw new UsageError((err as Error).message.split('\n')[0] ?? 'bad arguments')
  }
  const args: Record<string, string> = {}
  for (const [name, value] of Object.entries(parsed.values)) {
    if (typeof value === 'string') args[name] = value
  }
  for (const [name, spec] of Object.entries(command.options)) {
    if (spec.required && args[name] === undefined) throw new UsageError(`--${name} is required`)
  }

  const input = validate(command.input, args)
  const config = loadConfig()
  usePreparedStatements(config.preparedStatements)
  const database = await openDatabase({
    databaseUrl: config.databaseUrl,
    dataDir: config.dataDir,
    // One-off commands (a large import) may take longer than a request may.
    statementTimeoutMs: Math.max(config.statementTimeoutMs, 120_000),
    // Only for a person at a terminal: scripts get exactly one line on failure.
    onProgress: process.stderr.isTTY ? (message) => process.stderr.write(`admin: ${message}\n`) : undefined,
  })
  try {
    const result = await command.run(database.db, input as never)
    process.stdout.write((parsed.values.json ? JSON.stringify(result) : readable(result)) + '\n')
  } finally {
    await database.close()
  }
  return 0
}

try {
  process.exitCode = await main(process.argv.slice(2))
} catch (err) {
  const known = err instanceof UsageError || err instanceof ApiError || err instanceof ConfigError
  const message = describeError(err).replace(/\s+/g, ' ').trim()
  process.stderr.write(`admin: ${known ? message : `failed: ${message}`}\n`)
  process.exitCode = 1
}
