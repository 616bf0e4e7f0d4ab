// Runs the search fold worker (src/modules/contacts/search-fold.ts) with the app
// (worker-plugin.ts): it stops after the batch in hand. `app.searchFold` lets tests run a
// round at once.
import { SearchFoldWorker, type SearchFoldOptions } from '../modules/contacts/index.js'
import { workerPlugin } from './worker-plugin.js'

declare module 'fastify' {
  interface FastifyInstance {
    /** The search fold worker, or null when this app does not run one. */
    searchFold: SearchFoldWorker | null
  }
}

export interface SearchFoldPluginOptions {
  /** false: no worker in this app (the tests' default: searches then add every change themselves). */
  enabled: boolean
  settings?: Partial<SearchFoldOptions>
}

export default workerPlugin<SearchFoldPluginOptions>('search-fold-worker', 'searchFold', (app, { settings }) =>
  new SearchFoldWorker({ db: app.db, log: app.log }, settings))
