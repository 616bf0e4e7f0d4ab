// The admin command line in tests: in this process on the test's database (runCli, fast),
// or, for what only a process shows (exit code, what reaches stdout and stderr), as a user
// runs it: a child process, on the built dist/cli/main.js when it is newer than every
// source file (`npm test` builds first), else on the sources through tsx.
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { readdirSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { runCli } from '../../src/cli/run.js'
import type { DatabaseHandle } from '../../src/db/client.js'
import type { Db } from '../../src/db/db.js'
import type { Backend } from './app.js'
import { rememberSecretsIn } from './secrets.js'

const root = fileURLToPath(new URL('../../', import.meta.url))
const built = join(root, 'dist/cli/main.js')

export interface CliResult {
  code: number
  stdout: string
  stderr: string
}

/** Runs one command line in this process, on an open database (or on the settings of `env`). */
export async function runAdmin(args: string[], target: { database: Db } | { env: Record<string, string> }): Promise<CliResult> {
  let stdout = ''
  let stderr = ''
  const code = await runCli(args, {
    stdout: (text) => (stdout += text),
    stderr: (text) => (stderr += text),
    ...('database' in target ? { database: target.database, env: {} } : { env: target.env }),
  })
  rememberSecretsIn(stdout)
  return { code, stdout, stderr }
}

function newestSource(dir: string): number {
  let newest = 0
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) newest = Math.max(newest, statSync(join(entry.parentPath, entry.name)).mtimeMs)
  }
  return newest
}

/** `node dist/cli/main.js` when the build is current (no tsx: ~0.3 s instead of 2-4 s), else the sources. */
function adminProgram(): string[] {
  try {
    if (statSync(built).mtimeMs >= newestSource(join(root, 'src'))) return [built]
  } catch {
    // not built
  }
  return ['--import', 'tsx', join(root, 'src/cli/main.ts')]
}

/** Runs the admin command line as a user would: a child process with this environment. */
export function spawnAdmin(args: string[], env: Record<string, string>): Promise<CliResult> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [...adminProgram(), ...args],
      { cwd: root, env: { PATH: process.env.PATH ?? '', ...env }, timeout: 60_000 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0
        rememberSecretsIn(stdout)
        resolve({ code, stdout, stderr })
      },
    )
  })
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

/** A list command's --json output: `{"data": [...]}` and nothing else. */
export function expectList(result: CliResult): Record<string, unknown>[] {
  const value = expectJson(result)
  assert.deepEqual(Object.keys(value), ['data'])
  assert.ok(Array.isArray(value.data))
  return value.data as Record<string, unknown>[]
}

/** A command that failed: exit 1, one line on stderr, nothing on stdout. */
export function expectFailure(result: CliResult, pattern: RegExp): void {
  assert.equal(result.code, 1, result.stdout)
  assert.equal(result.stdout, '')
  assert.equal(result.stderr.trim().split('\n').length, 1, result.stderr)
  assert.match(result.stderr, pattern)
}

export interface AdminDatabase {
  /** The environment that points a spawned admin command line at this database. */
  env: Record<string, string>
  /** The database, open in this process. */
  handle: DatabaseHandle
  db: Db
  /** Runs a command line in this process on this database. */
  run: (args: string[]) => Promise<CliResult>
  drop: () => Promise<void>
}

/** A fresh database for admin commands, open here and reachable by URL from a child process. */
export async function adminDatabase(backend: Backend): Promise<AdminDatabase> {
  const opened = await backend.open()
  return {
    env: { DATABASE_URL: opened.url },
    handle: opened.database,
    db: opened.database.db,
    run: (args) => runAdmin(args, { database: opened.database.db }),
    drop: opened.drop,
  }
}
