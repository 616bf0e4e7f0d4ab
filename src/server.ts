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

const app = await buildApp(config, { onProgress: (message) => process.stdout.write(`engage: ${message}\n`) })

closeWithGrace({ delay: 10_000 }, async ({ signal, err }) => {
  if (err) app.log.error({ err }, 'fatal error, closing')
  else app.log.info({ signal }, 'closing: finishing requests in flight')
  await app.close()
})

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

await app.listen({ port: config.port, host: config.host })
