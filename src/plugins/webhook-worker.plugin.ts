// Runs the webhook delivery worker (src/modules/webhooks-api/delivery-worker.ts) with the app: it starts
// once the app is ready and stops on close, before the database closes, letting the posts
// in flight finish (bounded). `app.webhookWorker` lets tests wake it or prune at once.
import fp from 'fastify-plugin'
import { DeliveryWorker, type WorkerOptions } from '../modules/webhooks-api/index.js'

declare module 'fastify' {
  interface FastifyInstance {
    /** The delivery worker, or null when this app does not run one. */
    webhookWorker: DeliveryWorker | null
  }
}

export interface WebhookWorkerOptions {
  /** false: no worker in this app (the tests' default). */
  enabled: boolean
  allowPrivate: boolean
  settings?: Partial<WorkerOptions>
}

export default fp<WebhookWorkerOptions>(
  (app, { enabled, allowPrivate, settings }, done) => {
    if (!enabled) {
      app.decorate('webhookWorker', null)
      done()
      return
    }
    const worker = new DeliveryWorker(
      {
        db: app.db,
        clock: () => app.clock(),
        secretKey: app.keys.derive('webhook secrets'),
        allowPrivate,
        log: app.log,
      },
      settings,
    )
    app.decorate('webhookWorker', worker)
    app.addHook('onReady', () => {
      worker.start()
      return Promise.resolve()
    })
    app.addHook('onClose', () => worker.stop())
    done()
  },
  { name: 'webhook-worker', dependencies: ['db'] },
)
