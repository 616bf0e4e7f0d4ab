// The one shape of the plugins that run a background worker with the app: the worker starts
// once the app is ready and stops on close, before the database closes; an app that does not
// run it (the tests' default) decorates null in its place.
import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'

/** A loop the app runs beside its requests. */
export interface BackgroundWorker {
  start(): void
  /** Resolves once the work in hand is done and the loop has ended. */
  stop(): Promise<void>
}

/** A plugin named `name` that decorates the app's `decoration` with the worker `make` builds, or with null when not `enabled`. */
export function workerPlugin<Options extends { enabled: boolean }>(
  name: string,
  decoration: string,
  make: (app: FastifyInstance, options: Options) => BackgroundWorker,
) {
  return fp<Options>(
    (app, options, done) => {
      if (!options.enabled) {
        app.decorate(decoration, null)
        done()
        return
      }
      const worker: BackgroundWorker = make(app, options)
      app.decorate(decoration, worker)
      app.addHook('onReady', () => {
        worker.start()
        return Promise.resolve()
      })
      app.addHook('onClose', () => worker.stop())
      done()
    },
    { name, dependencies: ['db'] },
  )
}
