import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { FastifyReply } from 'fastify'
import { Type } from 'typebox'
import { sendPage } from '../../http/pagination.js'
import { sendCreated, tagRoutes } from '../../http/routes.js'
import { Deleted, IdParams, PageParams, Ref } from '../../http/schemas.js'
import { apiActing } from '../audit/audit.context.js'
import {
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
import {
  changeSubscription,
  createSubscription,
  deliveriesOf,
  deliveryOf,
  eventLog,
  eventOf,
  pingSubscription,
  removeSubscription,
  retrySubscriptionDelivery,
  rotateSubscriptionSecret,
  subscriptionOf,
  subscriptionsOf,
  type WebhookSettings,
} from './webhooks.service.js'

const NO_WEBHOOK = 'No webhook subscription with this id in your company'
const NO_DELIVERY = 'No such webhook subscription in your company, or no such delivery of it'
const NoBody = Type.Object({})
const QUEUED = { 202: { ...Ref(WebhookDelivery), description: 'Queued: the delivery, pending' } }
const PageQuery = Type.Object(PageParams)

const webhooksRoutes: FastifyPluginAsyncTypebox = async (app) => {
  tagRoutes(app, 'webhooks') // the event log's two routes name their own tag, 'events'
  const settings = (): WebhookSettings => ({ secretKey: app.keys.derive('webhook secrets'), allowPrivate: app.config.webhookAllowPrivate })
  /** Answers a delivery just queued: 202 and its path. The worker looks for it at once instead of at its next poll. */
  const sendQueued = (reply: FastifyReply, webhookId: number, delivery: { id: number }) => {
    app.webhookWorker?.wake()
    return reply.code(202).header('location', `/api/v1/webhooks/${String(webhookId)}/deliveries/${String(delivery.id)}`).send(delivery)
  }

  app.get('/v1/webhooks', {
    config: { scope: 'webhooks:read' },
    schema: {
      operationId: 'listWebhooks',
      summary: 'List the webhook subscriptions of your company (id ascending)',
      querystring: PageQuery,
      response: { 200: Ref(WebhookSubscriptionsPage) },
    },
  }, async (request, reply) => sendPage(request, reply, await subscriptionsOf(app.db, request.caller, request.query)))

  app.post('/v1/webhooks', {
    config: { scope: 'webhooks:write', role: 'admin', rootKey: 'webhook' },
    schema: {
      operationId: 'createWebhook',
      summary: 'Subscribe a URL to events; the answer holds the signing secret, shown only this once',
      description:
        '`url` must be https and resolve to public addresses only (unless the service runs with WEBHOOK_ALLOW_PRIVATE=true); ' +
        `\`events\` lists event types, or is \`["*"]\` for all. A company has at most ${String(MAX_SUBSCRIPTIONS)} subscriptions ` +
        '(`state_refused` past that). Only admins manage them; every user of the company may read them.',
      body: CreateWebhookBody,
      response: { 201: Ref(WebhookSubscriptionWithSecret) },
    },
  }, async (request, reply) => sendCreated(reply, '/api/v1/webhooks', await createSubscription(app.db, apiActing(request), request.body, settings())))

  app.get('/v1/webhooks/:id', {
    config: { scope: 'webhooks:read', notFound: NO_WEBHOOK },
    schema: {
      operationId: 'getWebhook',
      summary: 'Show a webhook subscription (without its secret)',
      params: IdParams,
      response: { 200: Ref(WebhookSubscription) },
    },
  }, async (request) => subscriptionOf(app.db, request.caller, request.params.id))

  app.put('/v1/webhooks/:id', {
    config: { scope: 'webhooks:write', role: 'admin', rootKey: 'webhook', notFound: NO_WEBHOOK },
    schema: {
      operationId: 'updateWebhook',
      summary: 'Change a subscription: url, events, description; enabled=true re-enables a disabled one',
      description: 'Omitted fields are left unchanged; `description: null` clears it. Re-enabling clears `disabled_reason` and `disabled_at`.',
      params: IdParams,
      body: UpdateWebhookBody,
      response: { 200: Ref(WebhookSubscription) },
    },
  }, async (request) => changeSubscription(app.db, apiActing(request), request.params.id, request.body, settings()))

  app.delete('/v1/webhooks/:id', {
    config: { scope: 'webhooks:write', role: 'admin', notFound: NO_WEBHOOK },
    schema: {
      operationId: 'deleteWebhook',
      summary: 'Delete a subscription and its deliveries',
      params: IdParams,
      response: { 204: Deleted },
    },
  }, async (request, reply) => {
    await removeSubscription(app.db, apiActing(request), request.params.id)
    return reply.code(204).send(null)
  })

  app.post('/v1/webhooks/:id/rotate_secret', {
    config: { scope: 'webhooks:write', role: 'admin', notFound: NO_WEBHOOK },
    schema: {
      operationId: 'rotateWebhookSecret',
      summary: 'Replace the signing secret; the old one keeps signing deliveries for 24 hours',
      description: 'The answer holds the new secret, shown only this once. Until `previous_secret_expires_at` every delivery carries a signature with each secret.',
      params: IdParams,
      body: NoBody,
      response: { 200: Ref(WebhookSubscriptionWithSecret) },
    },
  }, async (request) => rotateSubscriptionSecret(app.db, apiActing(request), request.params.id, settings()))

  app.post('/v1/webhooks/:id/test', {
    config: { scope: 'webhooks:write', role: 'admin', notFound: NO_WEBHOOK },
    schema: {
      operationId: 'testWebhook',
      summary: 'Send a `ping` event to the subscription now; answers its delivery, to follow',
      description:
        'The ping is delivered, signed and retried like any event: `{"type": "ping", "sequence": 0, "data": {"webhook_id": …}}`. ' +
        'It is not part of the event log. A disabled subscription: `state_refused`.',
      params: IdParams,
      body: NoBody,
      response: QUEUED,
    },
  }, async (request, reply) => sendQueued(reply, request.params.id, await pingSubscription(app.db, apiActing(request), request.params.id)))

  app.get('/v1/webhooks/:id/deliveries', {
    config: { scope: 'webhooks:read', notFound: NO_WEBHOOK },
    schema: {
      operationId: 'listWebhookDeliveries',
      summary: "List a subscription's deliveries, newest first (kept 30 days)",
      params: IdParams,
      querystring: PageQuery,
      response: { 200: Ref(WebhookDeliveriesPage) },
    },
  }, async (request, reply) => sendPage(request, reply, await deliveriesOf(app.db, request.caller, request.params.id, request.query)))

  app.get('/v1/webhooks/:id/deliveries/:delivery_id', {
    config: { scope: 'webhooks:read', notFound: NO_DELIVERY },
    schema: {
      operationId: 'getWebhookDelivery',
      summary: 'Show one delivery of a subscription',
      params: DeliveryParams,
      response: { 200: Ref(WebhookDelivery) },
    },
  }, async (request) => deliveryOf(app.db, request.caller, request.params.id, request.params.delivery_id))

  app.post('/v1/webhooks/:id/deliveries/:delivery_id/retry', {
    config: { scope: 'webhooks:write', role: 'admin', notFound: NO_DELIVERY },
    schema: {
      operationId: 'retryWebhookDelivery',
      summary: 'Send a delivery again now, from the start of the retry schedule (a delivered one too: a replay)',
      description:
        'The delivery becomes `pending`, due now, with `attempts` back at 0 and a new 3-day retry window. The event keeps its ' +
        '`webhook-id`, so a receiver that drops repeats will drop a replay too. A disabled subscription: `state_refused`.',
      params: DeliveryParams,
      body: NoBody,
      response: QUEUED,
    },
  }, async (request, reply) => {
    const { id, delivery_id: deliveryId } = request.params
    return sendQueued(reply, id, await retrySubscriptionDelivery(app.db, apiActing(request), id, deliveryId))
  })

  app.get('/v1/events', {
    config: { scope: 'webhooks:read' },
    schema: {
      operationId: 'listEvents',
      tags: ['events'],
      summary: "Your company's event log, oldest first (id ascending), kept 30 days",
      description:
        'Each item is exactly the body a webhook delivers. `type` filters by one type or a comma-separated list; `since` keeps events ' +
        'created at or after an instant; `after_id` keeps events after the one you processed last. To poll, ask for `after_id` = the ' +
        'last id you saw, `page=1`: ids are given as events are published after their change commits, increasing within your ' +
        'company in the order events appear here, so no event is skipped (`created_at` is the time of the request that made the ' +
        'change, which may commit later). Your company\'s committed events are published before the log is read.',
      querystring: EventsQuery,
      response: { 200: Ref(EventsPage) },
    },
  }, async (request, reply) => sendPage(request, reply, await eventLog(app.db, request.caller, request.query)))

  app.get('/v1/events/:id', {
    config: { scope: 'webhooks:read', notFound: 'No event with this id in your company (events are kept 30 days)' },
    schema: {
      operationId: 'getEvent',
      tags: ['events'],
      summary: 'Show one event of your company',
      params: IdParams,
      response: { 200: Ref(Event) },
    },
  }, async (request) => eventOf(app.db, request.caller, request.params.id))
}

export default webhooksRoutes
