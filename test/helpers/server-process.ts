// The built service as a process of its own (`node dist/server.js`; `npm run build` first) on a
// test database, for what only a real process shows: a SIGKILL right after a commit, a restart.
import { spawn, type ChildProcess } from 'node:child_process'
import { TEST_SECRET_KEY } from './app.js'
import { until } from './until.js'

const root = new URL('../..', import.meta.url).pathname

export interface ServerProcess {
  child: ChildProcess
  /** What the process wrote on stderr so far. */
  stderr: () => string
}

/**
 * Starts the service on `url`'s database at 127.0.0.1:`port` (settings `env` added) and waits
 * until /readyz answers; the child is pushed to `children` first, so that the caller's after
 * hook stops it even when it never answers.
 */
export async function startServerProcess(
  options: { url: string; port: number; children: ChildProcess[]; env?: Record<string, string> },
): Promise<ServerProcess> {
  const child = spawn(process.execPath, ['dist/server.js'], {
    cwd: root,
    env: {
      PATH: process.env.PATH ?? '',
      DATABASE_URL: options.url,
      PORT: String(options.port),
      HOST: '127.0.0.1',
      SEED_DEMO: 'false',
      LOG_LEVEL: 'warn',
      WEBHOOK_SECRET_KEY: TEST_SECRET_KEY,
      ...options.env,
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  })
  options.children.push(child)
  let stderr = ''
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
  await until('the service to answer', async () => {
    if (child.exitCode !== null) throw new Error(`the service exited: ${stderr}`)
    return (await fetch(`http://127.0.0.1:${String(options.port)}/readyz`).then((res) => res.ok, () => false)) || undefined
  }, 30_000)
  return { child, stderr: () => stderr }
}
