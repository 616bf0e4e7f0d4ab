// Starts the process: read the config, build the app, load demo data on an empty
// database, listen, and shut down gracefully on SIGTERM/SIGINT. Nothing else lives here.
// A person at a terminal is told what a slow first start is doing and reads the log as
// lines (pino-pretty); anything else gets JSON lines. Problems a person can fix (a bad
// setting, a port in use) are one line on stderr and exit code 1; a start that fails in any
// other way says what failed, the tool's own words and what to do, and exits 1.
import { resolve } from 'node:path'
import closeWithGrace from 'close-with-grace'
import { setTimeout as sleep } from 'node:timers/promises'
import { buildApp, type App } from './app.js'
import { ConfigError, loadConfig, publicBaseUrl, type Config } from './config.js'
import { EmbeddedClusterError } from './db/embedded.js'
import { seedDemoIfEmpty } from './demo/index.js'
import { terminalLogger } from './logging.js'
import { isFreshDatabase } from './modules/users-api/index.js'

let config: Config
try {
  config = loadConfig()
} catch (err) {
  if (!(err instanceof ConfigError)) throw err
  process.stderr.write(`engage: ${err.message}\n`)
  process.exit(1)
}

const say = (message: string) => process.stdout.write(`engage: ${message}\n`)

/** What to do about a database that DATABASE_URL names but that cannot be used, by error code. */
function databaseProblem(err: unknown): string | undefined {
  const code = (err as { code?: string }).code
  if (!config.databaseUrl || code === undefined) return undefined
  if (['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENOENT'].includes(code)) {
    return 'check that the PostgreSQL server DATABASE_URL names is running and reachable from here, or unset DATABASE_URL to use the embedded database in DATA_DIR'
  }
  if (code === '28P01' || code === '28000') return 'check the user and password in DATABASE_URL'
  if (code === '3D000') return 'create that database (createdb), or name an existing one in DATABASE_URL'
  return undefined
}

/** What to do about DATA_DIR when a file in it cannot be made or written (secret.key, the cluster). */
function dataDirProblem(err: unknown): string | undefined {
  const { code, path } = err as NodeJS.ErrnoException
  const full = code === 'ENOSPC' || code === 'EDQUOT' // a write reports no path
  if (!full && (path === undefined || !resolve(path).startsWith(resolve(config.dataDir)))) return undefined
  if (full) {
    return `free space on the disk that holds DATA_DIR ${config.dataDir} (df -h), or choose a DATA_DIR on another disk`
  }
  return `choose a DATA_DIR this user can create and write (for example ./data or /var/lib/engage), or make ${config.dataDir} writable`
}

/**
 * The start failed: say what, and exit 1 at once. The error's own words are shown (the
 * embedded cluster's carry the tool's output and what to do); a start must never end silently.
 */
async function startFailed(err: unknown, app?: App): Promise<never> {
  const lines =
    err instanceof EmbeddedClusterError
      ? [`could not start the embedded database: ${err.message}`]
      : [`could not start: ${err instanceof Error ? err.message : String(err)}`]
  const todo = err instanceof EmbeddedClusterError ? undefined : (databaseProblem(err) ?? dataDirProblem(err))
  if (todo) lines.push(`What to do: ${todo}`)
  else if (!(err instanceof EmbeddedClusterError) && err instanceof Error && err.stack) lines.push(err.stack)
  process.stderr.write(`engage: ${lines.join('\n')}\n`)
  await app?.close().catch(() => undefined) // releases the database (the embedded cluster stops)
  process.exit(1)
}

const appReady = buildApp(config, {
  onProgress: say,
  logger: process.stdout.isTTY ? terminalLogger(config.logLevel) : undefined,
  webhookWorker: true,
  importWorker: true,
  searchFold: true,
  auditRetention: true,
  backups: true,
})

// Signals are ours, not close-with-grace's: a signal to npm start's process group reaches
// node twice (directly and forwarded by npm), and a repeated one must not cut the shutdown
// short; only the grace delay does. A signal during start-up waits for it, then closes.
const state = { stopping: false }
const grace = closeWithGrace({ delay: 10_000, skip: ['SIGTERM', 'SIGINT'] }, async ({ err }) => {
  const app = await appReady.catch(() => undefined)
  if (err && app) app.log.error({ err }, 'fatal error, closing')
  else if (err) process.stderr.write(`engage: fatal error: ${err.stack ?? err.message}\n`)
  await app?.close()
})
function onSignal(signal: NodeJS.Signals) {
  if (state.stopping) return
  state.stopping = true
  // The grace delay bounds the closing, not a start still under way (a first start on a busy
  // machine may take longer than the delay, and a half-made database folder is worse than a
  // late exit): closing begins once the start is done.
  void appReady
    .then(
      async (app) => {
        // In a fleet: out of the balancer's rotation first, still serving (SHUTDOWN_DRAIN_MS).
        app.drain()
        if (config.shutdownDrainMs > 0) {
          app.log.info({ signal, drainMs: config.shutdownDrainMs }, 'draining: /readyz answers 503, requests still served')
          await sleep(config.shutdownDrainMs)
        }
        app.log.info({ signal }, 'closing: finishing requests in flight')
      },
      () => undefined,
    )
    .finally(() => {
      grace.close()
    })
}
process.on('SIGTERM', onSignal)
process.on('SIGINT', onSignal)

const app = await appReady.catch(startFailed)

if (config.seedDemo && !state.stopping && (await isFreshDatabase(app.db).catch((err: unknown) => startFailed(err, app)))) {
  say('loading demo data…')
  const demo = await seedDemoIfEmpty(app.db).catch((err: unknown) => startFailed(err, app))
  if (demo) {
    const base = publicBaseUrl(config)
    process.stdout.write(
      [
        '',
        'Demo data loaded (company "Acme Sales"). Demo api_token, shown only this once:',
        '',
        `  ${demo.token}`,
        '',
        'Try it:',
        `  curl ${base}/api/v1/users/authorize_api -H "Authorization: Bearer ${demo.token}"`,
        `API reference: ${base}/docs/v1`,
        '',
        `Sign in at ${base}/login as ${demo.email} with password ${demo.password}`,
        '',
      ].join('\n') + '\n',
    )
  }
}

/** What to do about a port or address the server cannot listen on, or undefined for other errors. */
function listenProblem(err: unknown): string | undefined {
  switch ((err as NodeJS.ErrnoException).code) {
    case 'EADDRINUSE':
      return `port ${config.port} is already in use (set PORT to another)`
    case 'EACCES':
      return `no permission to listen on port ${config.port} (set PORT to one above 1023)`
    case 'EADDRNOTAVAIL':
      return `HOST ${config.host} is not an address of this machine (set HOST to one, or 0.0.0.0)`
    default:
      return undefined
  }
}

if (!state.stopping) {
  try {
    await app.listen({ port: config.port, host: config.host })
  } catch (err) {
    const problem = listenProblem(err)
    if (problem === undefined) await startFailed(err, app)
    else {
      process.stderr.write(`engage: ${problem}\n`)
      state.stopping = true
      await app.close() // releases the database (the embedded cluster stops)
      grace.uninstall()
      process.exitCode = 1
    }
  }
}
