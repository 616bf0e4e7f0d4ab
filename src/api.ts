// The token-authenticated, rate-limited API under /api: the auth plugin's hooks apply to
// these routes only (health and docs stay open).
import type { FastifyPluginAsync } from 'fastify'
import { Count, ErrorResponse, PageMeta } from './http/schemas.js'
import { SyncMeta } from './http/sync.js'
import { AuditEvent, AuditEventLine, AuditEventsPage, AuditMeta } from './modules/audit/index.js'
import { Business } from './modules/businesses/index.js'
import { ContactImport } from './modules/contact-imports/index.js'
import {
  ContactBatchItem,
  ContactBatchRequest,
  ContactBatchResponse,
  ContactBatchResult,
  ContactSchema,
  ContactsPage,
  ContactsSyncPage,
  ContactTombstone,
} from './modules/contacts/index.js'
import { CustomField, CustomFieldsList } from './modules/custom-fields/index.js'
import { ContactEvent, ContactEventKinds, ContactEventsPage } from './modules/events/index.js'
import { Enrollment, Flow, FlowsPage, FlowStep } from './modules/flows/index.js'
import { resourceRoutes } from './modules/index.js'
import { LeadSchema, LeadsPage, LeadsSyncPage } from './modules/leads/index.js'
import { MeetTranscription, MeetTranscriptionItem, MeetTranscriptionsPage, MeetTranscriptionsSyncPage } from './modules/meet-transcriptions/index.js'
import { Tag, TagsList } from './modules/tags/index.js'
import { Task, TasksPage, TasksSyncPage } from './modules/tasks/index.js'
import { AuthorizeResponse, Company, TokenInfo, User, UsersPage } from './modules/users/index.js'
import {
  Event,
  EventsPage,
  WebhookDeliveriesPage,
  WebhookDelivery,
  WebhookSubscription,
  WebhookSubscriptionsPage,
  WebhookSubscriptionWithSecret,
} from './modules/webhooks/index.js'
import { WhatsappChat, WhatsappChatsPage, WhatsappMessage, WhatsappMessagesPage, WhatsappMessagesSyncPage } from './modules/whatsapp/index.js'
import access, { type AccessRule } from './plugins/access.plugin.js'
import auth from './plugins/auth.plugin.js'
import idempotency from './plugins/idempotency.plugin.js'
import type { RateLimiter } from './rate-limit/limiter.js'

declare module 'fastify' {
  interface FastifyContextConfig {
    /** When the operation answers 404 (its subject is not one of the caller's company): the reference says so. */
    notFound?: string
    /** The answer shows a secret once (a signing secret): sent `Cache-Control: no-store`, so no cache keeps it. */
    secret?: true
  }
}

/**
 * Every named schema of the API, registered once on the app (`app.addSchema`) and referenced
 * by the route schemas with `Ref`: one definition serializes the responses and is a named
 * component of the OpenAPI document (`Contact`, `ContactPage`, …).
 */
export const componentSchemas = [
  ErrorResponse,
  PageMeta,
  Count,
  User,
  UsersPage,
  Company,
  TokenInfo,
  AuthorizeResponse,
  SyncMeta,
  ContactSchema,
  ContactsPage,
  ContactBatchItem,
  ContactBatchRequest,
  ContactBatchResult,
  ContactBatchResponse,
  ContactTombstone,
  ContactsSyncPage,
  ContactImport,
  Business,
  ...ContactEventKinds,
  ContactEvent,
  ContactEventsPage,
  CustomField,
  CustomFieldsList,
  Tag,
  TagsList,
  FlowStep,
  Flow,
  FlowsPage,
  Task,
  TasksPage,
  TasksSyncPage,
  Enrollment,
  LeadSchema,
  LeadsPage,
  LeadsSyncPage,
  MeetTranscription,
  MeetTranscriptionItem,
  MeetTranscriptionsPage,
  MeetTranscriptionsSyncPage,
  WhatsappMessage,
  WhatsappMessagesPage,
  WhatsappMessagesSyncPage,
  WhatsappChat,
  WhatsappChatsPage,
  WebhookSubscription,
  WebhookSubscriptionWithSecret,
  WebhookSubscriptionsPage,
  WebhookDelivery,
  WebhookDeliveriesPage,
  Event,
  EventsPage,
  AuditEvent,
  AuditEventLine,
  AuditMeta,
  AuditEventsPage,
]

const ERROR_REF = { $ref: 'Error#' }

const api: FastifyPluginAsync<{ limiter: RateLimiter; accessTable: AccessRule[] }> = async (app, { limiter, accessTable }) => {
  // Every operation can answer with the contract's error body: declared once, here, so
  // Fastify serializes it fast. The OpenAPI document lists each status an operation can
  // answer instead of these ranges (plugins/docs.plugin.ts).
  app.addHook('onRoute', (route) => {
    route.schema = {
      ...route.schema,
      response: { ...(route.schema?.response as object | undefined), '4xx': ERROR_REF, '5xx': ERROR_REF },
    }
  })
  app.addHook('onSend', async (request, reply) => {
    if (request.routeOptions.config.secret) void reply.header('cache-control', 'no-store')
  })
  await app.register(auth, { limiter })
  await app.register(access, { table: accessTable }) // right after auth: a refused request runs nothing else
  await app.register(idempotency) // after auth: keys are per token, and a replay is still a request
  for (const routes of resourceRoutes) await app.register(routes)
}

export default api
