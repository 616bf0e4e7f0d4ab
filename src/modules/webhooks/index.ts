// The webhooks module's public face: subscriptions, publishing and delivery.
export { MAX_URL_LENGTH } from './destination.js'
export { webhookBacklog } from './webhooks.delivery.repository.js'
export type { SubscriptionOverview, SubscriptionRow } from './webhooks.repository.js'
export { default as webhooksRoutes } from './webhooks.routes.js'
export {
  Event,
  EventsPage,
  WebhookDeliveriesPage,
  WebhookDelivery,
  WebhookSubscription,
  WebhookSubscriptionsPage,
  WebhookSubscriptionWithSecret,
} from './webhooks.schemas.js'
export {
  changeSubscription,
  createSubscription,
  removeSubscription,
  rotateSubscriptionSecret,
  subscriptionOf,
  subscriptionsOverviewOf,
} from './webhooks.service.js'
export type { WebhookSettings } from './webhooks.service.js'
export { DeliveryWorker } from './delivery-worker.js'
export type { WorkerOptions } from './delivery-worker.js'
