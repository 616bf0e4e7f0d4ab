import { Type, type Static } from 'typebox'
import { ACTOR_TYPES } from '../../acting.js'
import { Id, Nullable, Ref, Timestamp } from '../../http/schemas.js'
import { AUDIT_ACTIONS } from './audit.actions.js'

const Instant = (description: string) => Type.Optional(Type.String({ format: 'date-time', description }))

export const AuditEvent = Type.Object(
  {
    id: Type.Integer(),
    occurred_at: Timestamp,
    action: Type.String({ description: `a stable dotted name; its first segment is the target's type. Known: ${AUDIT_ACTIONS.map((a) => `\`${a}\``).join(', ')}` }),
    actor: Type.Object({
      type: Type.String({ description: ACTOR_TYPES.join(', ') }),
      id: Nullable(Type.Integer({ description: 'the user or api token id; null for `cli` and `system`' })),
      label: Nullable(Type.String({ description: 'its name or label when it acted (the system user for `cli`)' })),
      on_behalf_of: Nullable(
        Type.Object(
          {
            id: Type.Integer({ description: 'the user id' }),
            label: Nullable(Type.String({ description: "the user's name when the app acted" })),
          },
          { description: 'for an `oauth_app`: the user whose authorisation (grant) it acted with; null for every other actor' },
        ),
      ),
    }),
    target: Type.Object({
      type: Type.String(),
      id: Nullable(Type.Integer()),
      label: Nullable(Type.String({ description: 'its name, email, label or URL when it happened' })),
    }),
    outcome: Type.Union([Type.Literal('success'), Type.Literal('failure')]),
    reason: Nullable(Type.String({ description: 'why it failed, a stable code (`wrong_password`, `rate_limited`, `deactivated`); null on success' })),
    ip: Nullable(Type.String({ description: 'the client address of the request; null from the command line' })),
    user_agent: Nullable(Type.String({ description: 'the request\'s User-Agent, cut to 512 characters' })),
    request_id: Nullable(Type.String({ description: 'the X-Request-Id of the request that did it' })),
    changes: Nullable(Type.Record(Type.String(), Type.Unknown(), { description: 'field → [old, new]; never a secret, password, token or hash' })),
  },
  {
    $id: 'AuditEvent',
    description: 'One recorded action: who (actor) did what (action) to what (target), when, from where, and what changed',
  },
)

/** One line of the export (application/x-ndjson): an AuditEvent as JSON, then a newline. */
export const AuditEventLine = Type.Unsafe<Static<typeof AuditEvent>>({
  $id: 'AuditEventLine',
  description: 'One line of the audit export (`application/x-ndjson`): an AuditEvent as one line of JSON, then `\\n`',
  allOf: [Ref(AuditEvent)],
})

export const AuditMeta = Type.Object(
  {
    per_page: Type.Integer(),
    has_more: Type.Boolean({ description: 'older records may follow: ask again with `cursor` = `next_cursor`' }),
    next_cursor: Type.String({ description: 'the position after the last record read: pass it as `cursor` for the next (older) page' }),
  },
  { $id: 'AuditMeta', description: 'Where the newest-first walk stands' },
)

export const AuditEventsPage = Type.Object(
  { data: Type.Array(Ref(AuditEvent)), meta: Ref(AuditMeta) },
  { $id: 'AuditEventsPage', description: 'A page of the audit log, newest first' },
)

export const AuditEventsQuery = Type.Object({
  action: Type.Optional(Type.String({ maxLength: 64, description: 'an action (`api_token.created`) or a prefix ending with a dot (`api_token.`)' })),
  actor_type: Type.Optional(Type.Union(ACTOR_TYPES.map((t) => Type.Literal(t)))),
  actor_id: Type.Optional(Id),
  target_type: Type.Optional(Type.String({ maxLength: 32 })),
  target_id: Type.Optional(Id),
  outcome: Type.Optional(Type.Union([Type.Literal('success'), Type.Literal('failure')])),
  since: Instant('records at or after this instant (ISO 8601 with offset)'),
  until: Instant('records before this instant'),
  cursor: Type.Optional(Type.String({ maxLength: 1000, description: '`meta.next_cursor` of the previous page' })),
  per_page: Type.Optional(Type.Integer({ minimum: 1, maximum: 100 })),
})
export type AuditEventsQuery = Static<typeof AuditEventsQuery>

export const AuditExportQuery = Type.Object({
  since: Type.String({ format: 'date-time', description: 'from this instant (inclusive, ISO 8601 with offset)' }),
  until: Type.String({ format: 'date-time', description: 'to this instant (exclusive)' }),
})
export type AuditExportQuery = Static<typeof AuditExportQuery>
