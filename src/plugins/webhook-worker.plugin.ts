// Runs the webhook delivery worker (src/modules/webhooks-api/delivery-worker.ts) with the app
// (worker-plugin.ts): it stops letting the posts in flight finish (bounded).
// `app.webhookWorker` lets tests wake it or prune at once.
import { DeliveryWorker, type WorkerOptions } from '../modules/webhooks-api/index.js'
import { workerPlugin } from './worker-plugin.js'

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

export default workerPlugin<WebhookWorkerOptions>('webhook-worker', 'webhookWorker', (app, { allowPrivate, settings }) =>
  new DeliveryWorker(
    { db: app.db, clock: () => app.clock(), secretKey: app.keys.derive('webhook secrets'), allowPrivate, log: app.log },
    settings,
  ))
