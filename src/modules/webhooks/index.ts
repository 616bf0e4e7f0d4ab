// The webhooks module's public face: the subscriptions' and deliveries' statements, publishing,
// one delivery attempt and the signing secrets, below audit (its insert composes
// `subscriptionsToProbe`); the operations are ../webhooks-api/.
export { DELIVERY_TIMEOUT_MS, defaultSchedule, deliveryHeaders, nextAttempt, payload, post, webhookId } from './delivery.js'
export type { Schedule } from './delivery.js'
export { ForbiddenDestinationError, MAX_URL_LENGTH, resolveDestination, urlProblem } from './destination.js'
export { publishCompanyEvents, publishEvents } from './publish.js'
export { decryptSecret, encryptSecret, newSigningSecret } from './secrets.js'
export { claimDeliveries, pruneEvents, recordOutcomes, webhookBacklog } from './webhooks.delivery.repository.js'
export type { ClaimedDelivery, Outcome } from './webhooks.delivery.repository.js'
export {
  deleteSubscription,
  deliveriesPage,
  eventsPage,
  findDelivery,
  findEvent,
  findSubscription,
  insertPing,
  insertSubscription,
  lockCompanySubscriptions,
  retryDelivery,
  subscriptionsOverview,
  subscriptionsPage,
  subscriptionsToProbe,
  updateSubscription,
  writeSubscriptionSecret,
} from './webhooks.repository.js'
export type { DeliveryRow, SubscriptionOverview, SubscriptionRow } from './webhooks.repository.js'
export {
  CreateWebhookBody,
  DeliveryParams,
  Event,
  EventsPage,
  EventsQuery,
  MAX_SUBSCRIPTIONS,
  UpdateWebhookBody,
  WebhookDeliveriesPage,
  WebhookDelivery,
  WebhookSubscription,
  WebhookSubscriptionsPage,
  WebhookSubscriptionWithSecret,
} from './webhooks.schemas.js'
