// Runs the contact import worker (src/modules/contact-imports/import-worker.ts) with the app
// (worker-plugin.ts): it stops after the batch in hand. `app.importWorker` lets the import
// routes wake it.
import { ImportWorker, type ImportWorkerOptions } from '../modules/contact-imports/index.js'
import { workerPlugin } from './worker-plugin.js'

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

export default workerPlugin<ImportWorkerPluginOptions>('import-worker', 'importWorker', (app, { settings }) =>
  new ImportWorker({ db: app.db, clock: () => app.clock(), log: app.log }, settings))
