// The token-authenticated, rate-limited API under /api: the auth plugin's hooks apply to
// these routes only (health and docs stay open).
import type { FastifyPluginAsync } from 'fastify'
import { Count, ErrorResponse, PageMeta } from './http/schemas.js'
import { SyncMeta } from './http/sync.js'
import { AuditEvent, AuditEventLine, AuditEventsPage, AuditMeta } from './modules/audit/audit.schemas.js'
import { Business } from './modules/businesses/businesses.schemas.js'
import { ContactImport } from './modules/contact-imports/contact-imports.schemas.js'
import { ContactBatchItem, ContactBatchRequest, ContactBatchResponse, ContactBatchResult } from './modules/contacts/contacts.batch.schemas.js'
import { Contact, ContactsPage, ContactsSyncPage, ContactTombstone } from './modules/contacts/contacts.schemas.js'
import { CustomField, CustomFieldsList } from './modules/custom-fields/custom-fields.schemas.js'
import { ContactEvent, ContactEventKinds, ContactEventsPage } from './modules/events/events.schemas.js'
import { Enrollment, Flow, FlowsPage, FlowStep } from './modules/flows/flows.schemas.js'
import { resourceRoutes } from './modules/index.js'
import { Lead, LeadsPage, LeadsSyncPage } from './modules/leads/leads.schemas.js'
import {
  MeetTranscription,
  MeetTranscriptionItem,
  MeetTranscriptionsPage,
  MeetTranscriptionsSyncPage,
} from './modules/meet-transcriptions/meet-transcriptions.schemas.js'
import { Tag, TagsList } from './modules/tags/tags.schemas.js'
import { Task, TasksPage, TasksSyncPage } from './modules/tasks/tasks.schemas.js'
import { AuthorizeResponse, Company, TokenInfo, User, UsersPage } from './modules/users/users.schemas.js'
import {
  Event,
  EventsPage,
  WebhookDeliveriesPage,
  WebhookDelivery,
  WebhookSubscription,
  WebhookSubscriptionsPage,
  WebhookSubscriptionWithSecret,
} from './modules/webhooks/webhooks.schemas.js'
import {
  WhatsappChat,
  WhatsappChatsPage,
  WhatsappMessage,
  WhatsappMessagesPage,
  WhatsappMessagesSyncPage,
} from './modules/whatsapp/whatsapp.schemas.js'
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
  Contact,
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
  Lead,
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
