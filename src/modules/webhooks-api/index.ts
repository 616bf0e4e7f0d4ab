// The webhooks-api module's public face: the webhook subscriptions' operations and the delivery
// worker, above audit (they record audits) and ../webhooks/ (the statements).
export { default as webhooksRoutes } from './webhooks-api.routes.js'
export {
  changeSubscription,
  createSubscription,
  removeSubscription,
  rotateSubscriptionSecret,
  subscriptionOf,
  subscriptionsOverviewOf,
} from './webhooks-api.service.js'
export type { WebhookSettings } from './webhooks-api.service.js'
export { DeliveryWorker } from './delivery-worker.js'
export type { WorkerOptions } from './delivery-worker.js'
