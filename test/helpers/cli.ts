// Runs the admin command line as a user would, in a child process, against a database
// given by its environment (DATABASE_URL or DATA_DIR).
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { openDatabase, type Database, type DatabaseHandle } from '../../src/db/client.js'
import type { Backend } from './app.js'

const main = fileURLToPath(new URL('../../src/cli/main.ts', import.meta.url))

export interface CliResult {
  code: number
  stdout: string
  stderr: string
}

export function runAdmin(args: string[], env: Record<string, string>): Promise<CliResult> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', main, ...args],
      { env: { PATH: process.env.PATH ?? '', ...env }, timeout: 60_000 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0
        resolve({ code, stdout, stderr })
      },
    )
  })
}

/** The environment that points the admin command line at a test database. */
export function adminEnv(target: { url?: string; dataDir?: string }): Record<string, string> {
  return target.url ? { DATABASE_URL: target.url } : { DATA_DIR: target.dataDir ?? '' }
}

/** A command that succeeded with --json: exactly one JSON object on stdout, nothing on stderr. */
export function expectJson(result: CliResult): Record<string, unknown> {
  assert.equal(result.code, 0, result.stderr)
  assert.equal(result.stderr, '')
  assert.equal(result.stdout.trim().split('\n').length, 1, result.stdout)
  const value: unknown = JSON.parse(result.stdout)
  assert.ok(typeof value === 'object' && value !== null && !Array.isArray(value))
  return value as Record<string, unknown>
}

/** A command that failed: exit 1, one line on stderr, nothing on stdout. */
export function expectFailure(result: CliResult, pattern: RegExp): void {
  assert.equal(result.code, 1, result.stdout)
  assert.equal(result.stdout, '')
  assert.equal(result.stderr.trim().split('\n').length, 1, result.stderr)
  assert.match(result.stderr, pattern)
}

export interface AdminDatabase {
  /** The environment that points the admin command line at this database. */
  env: Record<string, string>
  /** Opens the database in this process. */
  open: () => Promise<DatabaseHandle>
  /** Runs `fn` on the database between commands. */
  use: <T>(fn: (db: Database) => Promise<T>) => Promise<T>
  drop: () => Promise<void>
}

/** A fresh database for admin commands, reached by URL from a child process and from this one. */
export async function adminDatabase(backend: Backend): Promise<AdminDatabase> {
  const opened = await backend.open()
  await opened.database.close()
  const env = adminEnv({ url: opened.url })
  const open = () => openDatabase({ databaseUrl: opened.url, migrate: false })
  const drop = opened.drop
  return {
    env,
    open,
    drop,
    async use(fn) {
      const database = await open()
      try {
        return await fn(database.db)
      } finally {
        await database.close()
      }
    },
  }
}
