import { Type, type Static } from 'typebox'
import { Id, Nullable, PagedList, PageParams, Str, Timestamp, Timestamps } from '../../http/schemas.js'
import { MAX_URL_LENGTH } from './destination.js'
import { EVENT_TYPES } from '../outbox/index.js'

/** Subscriptions a company may have at once (docs/webhooks.md). */
export const MAX_SUBSCRIPTIONS = 20

const EVENTS_DESCRIPTION = `event types (${EVENT_TYPES.map((t) => `\`${t}\``).join(', ')}), or \`["*"]\` for every type, present and future, but \`audit_event.created\` (admins with \`audit:read\` name it to stream the audit log)`

const EXAMPLE_TIME = '2026-11-22T10:00:00.000Z'
const EXAMPLE_SUBSCRIPTION = {
  id: 4,
  url: 'https://hooks.example.com/engage',
  events: ['contact.created', 'contact.updated'],
  description: 'CRM sync',
  enabled: true,
  disabled_reason: null,
  disabled_at: null,
  created_at: EXAMPLE_TIME,
  updated_at: EXAMPLE_TIME,
}
const EXAMPLE_SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw5bOSx1lNFb0='

const subscriptionFields = {
  id: Type.Integer(),
  url: Type.String({ description: 'where events are posted' }),
  events: Type.Array(Type.String(), { description: EVENTS_DESCRIPTION }),
  description: Nullable(Type.String()),
  enabled: Type.Boolean({ description: 'false: nothing is delivered (disabled by you, or after 3 days of failed deliveries)' }),
  disabled_reason: Nullable(Type.String({ description: 'why it was disabled; null while enabled' })),
  disabled_at: Nullable(Timestamp),
  ...Timestamps,
}

export const WebhookSubscription = Type.Object(subscriptionFields, {
  $id: 'WebhookSubscription',
  description: 'A webhook subscription: the events of your company posted to a URL, signed (the secret is never shown here)',
  examples: [EXAMPLE_SUBSCRIPTION],
})

export const WebhookSubscriptionWithSecret = Type.Object(
  {
    ...subscriptionFields,
    secret: Type.String({ description: 'the signing secret (Standard Webhooks `whsec_…`): shown only now; keep it' }),
    previous_secret_expires_at: Nullable(Timestamp),
  },
  {
    $id: 'WebhookSubscriptionWithSecret',
    description:
      'A subscription with its signing secret: answered by create and rotate_secret only. After a rotation the previous secret ' +
      'also signs every delivery until `previous_secret_expires_at` (24 hours), so receivers can switch without losing events.',
    examples: [{ ...EXAMPLE_SUBSCRIPTION, secret: EXAMPLE_SECRET, previous_secret_expires_at: null }],
  },
)

export const WebhookSubscriptionsPage = PagedList(WebhookSubscription, 'WebhookSubscriptionPage', 'A page of your webhook subscriptions, id ascending')

const EventsParam = Type.Array(Type.String({ maxLength: 64 }), {
  minItems: 1,
  maxItems: EVENT_TYPES.length,
  description: EVENTS_DESCRIPTION,
})
const UrlParam = Type.String({ minLength: 1, maxLength: MAX_URL_LENGTH, description: 'an https URL on a public address (no redirects are followed)' })

export const CreateWebhookBody = Type.Object(
  {
    url: UrlParam,
    events: EventsParam,
    description: Type.Optional(Nullable(Str(255))),
  },
  { examples: [{ url: 'https://hooks.example.com/engage', events: ['contact.created', 'contact.updated'], description: 'CRM sync' }] },
)
export type CreateWebhookBody = Static<typeof CreateWebhookBody>

export const UpdateWebhookBody = Type.Object(
  {
    url: Type.Optional(UrlParam),
    events: Type.Optional(EventsParam),
    description: Type.Optional(Nullable(Str(255))),
    enabled: Type.Optional(
      Type.Boolean({ description: 'true re-enables a disabled subscription (clearing disabled_reason); false stops deliveries' }),
    ),
  },
  { examples: [{ enabled: true }, { events: ['*'] }] },
)
export type UpdateWebhookBody = Static<typeof UpdateWebhookBody>

export const DELIVERY_STATUSES = ['pending', 'delivered', 'failed'] as const

export const WebhookDelivery = Type.Object(
  {
    id: Type.Integer(),
    event_id: Type.Integer({ description: 'the event delivered (`webhook-id` is `evt_<event_id>`)' }),
    event_type: Type.String(),
    status: Type.Enum(DELIVERY_STATUSES, {
      description: '`pending` (waiting for its next attempt), `delivered` (a 2xx answer) or `failed` (gave up after 3 days)',
    }),
    attempts: Type.Integer({ description: 'attempts made since the delivery was created or last retried' }),
    last_response_status: Nullable(Type.Integer({ description: 'the HTTP status of the last answer; null without an answer' })),
    last_attempt_at: Nullable(Timestamp),
    next_attempt_at: Nullable(Timestamp),
    last_error: Nullable(Type.String({ description: 'why the last attempt failed (status, start of the body, timeout, refused address…)' })),
    delivered_at: Nullable(Timestamp),
    created_at: Timestamp,
  },
  {
    $id: 'WebhookDelivery',
    description: 'One event for one subscription, and how its delivery went',
    examples: [
      {
        id: 812,
        event_id: 5120,
        event_type: 'contact.created',
        status: 'pending',
        attempts: 2,
        last_response_status: 500,
        last_attempt_at: '2026-11-22T10:00:35.000Z',
        next_attempt_at: '2026-11-22T10:02:35.000Z',
        last_error: 'HTTP 500: Internal Server Error',
        delivered_at: null,
        created_at: EXAMPLE_TIME,
      },
    ],
  },
)

export const WebhookDeliveriesPage = PagedList(WebhookDelivery, 'WebhookDeliveryPage', "A page of a subscription's deliveries, newest first")

export const DeliveryParams = Type.Object({ id: Id, delivery_id: Id })

export const DeliveriesQuery = Type.Object(PageParams)

export const Event = Type.Object(
  {
    id: Type.Integer({ description: 'increases in the order events were committed, within your company' }),
    type: Type.String({ description: 'the event type (docs/webhook-events.md)' }),
    created_at: Timestamp,
    sequence: Type.Integer({ description: 'your company’s event number: 1, 2, 3… without gaps, in the order events are published (after their change commits)' }),
    data: Type.Object({}, {
      additionalProperties: true,
      description: 'the record exactly as the API returns it; for a deletion `{id, deleted_at}`',
    }),
  },
  {
    $id: 'Event',
    description: 'A change in your company, exactly as webhooks deliver it',
    examples: [
      {
        id: 5120,
        type: 'tag.created',
        created_at: EXAMPLE_TIME,
        sequence: 311,
        data: { id: 3, name: 'Hot', color: '#e11d48', created_at: EXAMPLE_TIME, updated_at: EXAMPLE_TIME },
      },
    ],
  },
)

export const EventsPage = PagedList(Event, 'EventPage', 'A page of your company’s events, oldest first (id ascending)')

export const EventsQuery = Type.Object(
  {
    ...PageParams,
    type: Type.Optional(Type.String({ maxLength: 2048, description: 'one event type, or several separated by commas' })),
    since: Type.Optional(Type.String({ format: 'date-time', description: 'only events created at or after this instant (ISO 8601 with offset)' })),
    after_id: Type.Optional(Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER, description: 'only events with a greater id: the last id you processed, for polling' })),
  },
  { examples: [{ page: 1, type: 'contact.created,contact.updated', after_id: 5120 }] },
)
export type EventsQuery = Static<typeof EventsQuery>
