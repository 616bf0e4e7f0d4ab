// Runs the search fold worker (src/modules/contacts/search-fold.ts) with the app: it starts
// once the app is ready and stops on close, before the database closes, after the batch in
// hand. `app.searchFold` lets tests run a round at once.
import fp from 'fastify-plugin'
import { SearchFoldWorker, type SearchFoldOptions } from '../modules/contacts/index.js'

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

export default fp<SearchFoldPluginOptions>(
  (app, { enabled, settings }, done) => {
    if (!enabled) {
      app.decorate('searchFold', null)
      done()
      return
    }
    const worker = new SearchFoldWorker({ db: app.db, log: app.log }, settings)
    app.decorate('searchFold', worker)
    app.addHook('onReady', () => {
      worker.start()
      return Promise.resolve()
    })
    app.addHook('onClose', () => worker.stop())
    done()
  },
  { name: 'search-fold-worker', dependencies: ['db'] },
)
