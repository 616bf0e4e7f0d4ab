// Runs the admin command line as a user would, in a child process, against a database
// given by its environment (DATABASE_URL or DATA_DIR).
import { execFile } from 'node:child_process'
import { fileURLToPath } from 'node:url'

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
