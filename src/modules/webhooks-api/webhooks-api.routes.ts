import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { FastifyReply } from 'fastify'
import { Type } from 'typebox'
import { sendListPage } from '../../http/pagination.js'
import { operation, recordRoute, sendCreated, tagRoutes, textsWith } from '../../http/routes.js'
import { Deleted, IdParams, NoBody, PageParams, Ref } from '../../http/schemas.js'
import { apiActing } from '../../acting.js'
import * as webhooks from '../webhooks/index.js'
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
} from './webhooks-api.service.js'
import operationTexts from './webhooks-api.operations.json' with { type: 'json' }

const texts = textsWith(operationTexts, { MAX_SUBSCRIPTIONS: webhooks.MAX_SUBSCRIPTIONS })
const NO_WEBHOOK = 'No webhook subscription with this id in your company'
const NO_DELIVERY = 'No such webhook subscription in your company, or no such delivery of it'
const NO_EVENT = 'No event with this id in your company (events are kept 30 days)'
const QUEUED = { 202: { ...Ref(webhooks.WebhookDelivery), description: 'Queued: the delivery, pending' } }
const PageQuery = Type.Object(PageParams)

const webhooksRoutes: FastifyPluginAsyncTypebox = async (app) => {
  tagRoutes(app, 'webhooks') // the event log's two routes name their own tag, 'events'
  const settings = (): WebhookSettings => ({ secretKey: app.keys.derive('webhook secrets'), allowPrivate: app.config.webhookAllowPrivate })
  /**
   * Answers a delivery just queued with 202 and its path, and wakes the worker so that it looks
   * for the delivery at once instead of at its next poll.
   */
  const sendQueued = (reply: FastifyReply, webhookId: number, delivery: { id: number }) => {
    app.webhookWorker?.wake()
    return reply.code(202).header('location', `/api/v1/webhooks/${String(webhookId)}/deliveries/${String(delivery.id)}`).send(delivery)
  }

  app.get('/v1/webhooks', operation(texts, 'listWebhooks', { scope: 'webhooks:read' }, {
    querystring: PageQuery, response: { 200: Ref(webhooks.WebhookSubscriptionsPage) },
  }), async (request, reply) => sendListPage(request, reply, await subscriptionsOf(app.db, request.caller, request.query)))

  app.post('/v1/webhooks', operation(texts, 'createWebhook', { scope: 'webhooks:write', role: 'admin', rootKey: 'webhook', secret: true }, {
    body: webhooks.CreateWebhookBody, response: { 201: Ref(webhooks.WebhookSubscriptionWithSecret) },
  }), async (request, reply) => sendCreated(reply, '/api/v1/webhooks', await createSubscription(request.db, apiActing(request), request.body, settings())))

  recordRoute(app, '/v1/webhooks/:id', texts, 'getWebhook', { scope: 'webhooks:read', notFound: NO_WEBHOOK }, webhooks.WebhookSubscription, subscriptionOf)

  app.put('/v1/webhooks/:id', operation(texts, 'updateWebhook', { scope: 'webhooks:write', role: 'admin', rootKey: 'webhook', notFound: NO_WEBHOOK }, {
    params: IdParams, body: webhooks.UpdateWebhookBody, response: { 200: Ref(webhooks.WebhookSubscription) },
  }), async (request) => changeSubscription(request.db, apiActing(request), request.params.id, request.body, settings()))

  app.delete('/v1/webhooks/:id', operation(texts, 'deleteWebhook', { scope: 'webhooks:write', role: 'admin', notFound: NO_WEBHOOK }, {
    params: IdParams, response: { 204: Deleted },
  }), async (request, reply) => {
    await removeSubscription(request.db, apiActing(request), request.params.id)
    return reply.code(204).send(null)
  })

  app.post('/v1/webhooks/:id/rotate_secret', operation(texts, 'rotateWebhookSecret', { scope: 'webhooks:write', role: 'admin', notFound: NO_WEBHOOK, secret: true }, {
    params: IdParams, body: NoBody, response: { 200: Ref(webhooks.WebhookSubscriptionWithSecret) },
  }), async (request) => rotateSubscriptionSecret(request.db, apiActing(request), request.params.id, settings()))

  app.post('/v1/webhooks/:id/test', operation(texts, 'testWebhook', { scope: 'webhooks:write', role: 'admin', notFound: NO_WEBHOOK }, {
    params: IdParams, body: NoBody, response: QUEUED,
  }), async (request, reply) => sendQueued(reply, request.params.id, await pingSubscription(request.db, apiActing(request), request.params.id)))

  app.get('/v1/webhooks/:id/deliveries', operation(texts, 'listWebhookDeliveries', { scope: 'webhooks:read', notFound: NO_WEBHOOK }, {
    params: IdParams, querystring: PageQuery, response: { 200: Ref(webhooks.WebhookDeliveriesPage) },
  }), async (request, reply) => sendListPage(request, reply, await deliveriesOf(app.db, request.caller, request.params.id, request.query)))

  app.get('/v1/webhooks/:id/deliveries/:delivery_id', operation(texts, 'getWebhookDelivery', { scope: 'webhooks:read', notFound: NO_DELIVERY }, {
    params: webhooks.DeliveryParams, response: { 200: Ref(webhooks.WebhookDelivery) },
  }), async (request) => deliveryOf(app.db, request.caller, request.params.id, request.params.delivery_id))

  app.post('/v1/webhooks/:id/deliveries/:delivery_id/retry', operation(texts, 'retryWebhookDelivery', { scope: 'webhooks:write', role: 'admin', notFound: NO_DELIVERY }, {
    params: webhooks.DeliveryParams, body: NoBody, response: QUEUED,
  }), async (request, reply) => {
    const { id, delivery_id: deliveryId } = request.params
    return sendQueued(reply, id, await retrySubscriptionDelivery(request.db, apiActing(request), id, deliveryId))
  })

  app.get('/v1/events', operation(texts, 'listEvents', { scope: 'webhooks:read' }, {
    tags: ['events'], querystring: webhooks.EventsQuery, response: { 200: Ref(webhooks.EventsPage) },
  }), async (request, reply) => sendListPage(request, reply, await eventLog(app.db, request.caller, request.query)))

  app.get('/v1/events/:id', operation(texts, 'getEvent', { scope: 'webhooks:read', notFound: NO_EVENT }, {
    tags: ['events'], params: IdParams, response: { 200: Ref(webhooks.Event) },
  }), async (request) => eventOf(app.db, request.caller, request.params.id))
}

export default webhooksRoutes
