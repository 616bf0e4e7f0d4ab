// Runs the contact import worker (src/modules/contact-imports/import-worker.ts) with the app: it
// starts once the app is ready and stops on close, before the database closes, after the
// batch in hand. `app.importWorker` lets the import routes wake it.
import fp from 'fastify-plugin'
import { ImportWorker, type ImportWorkerOptions } from '../modules/contact-imports/index.js'

declare module 'fastify' {
  interface FastifyInstance {
    /** The import worker, or null when this app does not run one. */
    importWorker: ImportWorker | null
  }
}

export interface ImportWorkerPluginOptions {
  /** false: no worker in this app (the tests' default). */
  enabled: boolean
  settings?: Partial<ImportWorkerOptions>
}

export default fp<ImportWorkerPluginOptions>(
  (app, { enabled, settings }, done) => {
    if (!enabled) {
      app.decorate('importWorker', null)
      done()
      return
    }
    const worker = new ImportWorker({ db: app.db, clock: () => app.clock(), log: app.log }, settings)
    app.decorate('importWorker', worker)
    app.addHook('onReady', () => {
      worker.start()
      return Promise.resolve()
    })
    app.addHook('onClose', () => worker.stop())
    done()
  },
  { name: 'import-worker', dependencies: ['db'] },
)
