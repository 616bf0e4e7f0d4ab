// Starts the process: read the config, build the app, load demo data on an empty
// database, listen, and shut down gracefully on SIGTERM/SIGINT. Nothing else lives here.
import closeWithGrace from 'close-with-grace'
import { buildApp } from './app.js'
import { ConfigError, loadConfig, type Config } from './config.js'
import { seedDemoIfEmpty } from './demo/index.js'

let config: Config
try {
  config = loadConfig()
} catch (err) {
  if (!(err instanceof ConfigError)) throw err
  process.stderr.write(`engage: ${err.message}\n`)
  process.exit(1)
}

const appReady = buildApp(config, { onProgress: (message) => process.stdout.write(`engage: ${message}\n`) })

// Signals are ours, not close-with-grace's: a signal to npm start's process group reaches
// node twice (directly and forwarded by npm), and a repeated one must not cut the shutdown
// short; only the grace delay does. A signal during start-up waits for it, then closes.
const state = { stopping: false }
const grace = closeWithGrace({ delay: 10_000, skip: ['SIGTERM', 'SIGINT'] }, async ({ err }) => {
  const app = await appReady.catch(() => undefined)
  if (err) app?.log.error({ err }, 'fatal error, closing')
  await app?.close()
})
function onSignal(signal: NodeJS.Signals) {
  if (state.stopping) return
  state.stopping = true
  void appReady.then((app) => {
    app.log.info({ signal }, 'closing: finishing requests in flight')
  }, () => undefined)
  grace.close()
}
process.on('SIGTERM', onSignal)
process.on('SIGINT', onSignal)

const app = await appReady

if (config.seedDemo) {
  const demo = await seedDemoIfEmpty(app.db)
  if (demo) {
    const base = `http://localhost:${config.port}`
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
      ].join('\n') + '\n',
    )
  }
}

if (!state.stopping) await app.listen({ port: config.port, host: config.host })
