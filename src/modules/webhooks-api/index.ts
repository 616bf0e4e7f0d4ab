// This file is the webhooks-api module's public face: it exports the webhook subscriptions'
// operations and the delivery worker. The module sits above audit, because its operations
// record audits, and above ../webhooks/, which holds the statements.
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
