import { Type, type TProperties, type TSchema } from 'typebox'
import { Nullable, PagedList, PageParams, Ref, Timestamp, Timestamps } from '../../http/schemas.js'

/** The kinds of contact event: the values of the enum contact_event_kind (migrations/0001_domain.sql). */
export const CONTACT_EVENT_KINDS = [
  'contact_created', 'contact_updated', 'stage_changed', 'tag_added', 'tag_removed',
  'added_to_flow', 'task_completed', 'meet_transcription_linked', 'contact_deleted',
] as const
export type ContactEventKind = (typeof CONTACT_EVENT_KINDS)[number]

/**
 * `data` comes out of a jsonb column, whose keys come back shortest first (then bytewise).
 * The serializer writes declared properties in schema order (required ones first), so they
 * are declared in that order too and a response keeps its bytes; undeclared ones still
 * follow (additionalProperties).
 */
function jsonbOrdered(properties: TProperties): TProperties {
  const byJsonb = (a: string, b: string) => a.length - b.length || Buffer.compare(Buffer.from(a), Buffer.from(b))
  return Object.fromEntries(Object.keys(properties).sort(byJsonb).map((key) => [key, properties[key] as TSchema]))
}

const Change = Type.Array(Type.Unknown(), { minItems: 2, maxItems: 2, description: '[old, new]' })

/** What `data` holds for each kind (every property is there for events written by this version). */
const EVENT_DATA: Record<ContactEventKind, { summary: string; data: TProperties; example: Record<string, unknown> }> = {
  contact_created: { summary: 'The contact was created', data: {}, example: {} },
  contact_updated: {
    summary: 'Fields of the contact changed',
    data: {
      changes: Type.Record(Type.String(), Change, {
        description: 'each changed field with its old and new value (custom_fields and tags as whole lists)',
      }),
    },
    example: { changes: { position: ['SDR', 'Head of Sales'] } },
  },
  stage_changed: {
    summary: 'The stage changed',
    data: { from: Nullable(Type.String()), to: Nullable(Type.String()) },
    example: { to: 'mql', from: 'lead' },
  },
  tag_added: {
    summary: 'A tag was put on the contact',
    data: { tag_id: Type.Integer(), name: Type.String({ description: 'the tag name at the time' }) },
    example: { name: 'Hot', tag_id: 3 },
  },
  tag_removed: {
    summary: 'A tag was taken off the contact',
    // tag_id is always there too; declared optional only so that it keeps its place after
    // `reason` (the serializer writes required properties first).
    data: {
      tag_id: Type.Optional(Type.Integer({ description: 'always present' })),
      name: Type.String({ description: 'the tag name at the time' }),
      reason: Type.Optional(Type.Literal('tag_deleted', { description: 'present when the tag itself was deleted' })),
    },
    example: { name: 'Hot', tag_id: 3 },
  },
  added_to_flow: {
    summary: 'The contact was added to a flow',
    data: {
      flow_id: Type.Integer(),
      flow_name: Type.String(),
      enrollment_id: Type.Integer(),
      task_ids: Type.Array(Type.Integer(), { description: 'the tasks created, one per step' }),
    },
    example: { flow_id: 1, task_ids: [142, 143], flow_name: 'Inbound follow-up', enrollment_id: 31 },
  },
  task_completed: {
    summary: 'A task about the contact was done',
    data: {
      task_id: Type.Integer(),
      title: Type.String(),
      kind: Type.String({ description: 'the task kind' }),
      flow_id: Nullable(Type.Integer({ description: 'null for a task outside any flow' })),
    },
    example: { kind: 'phonecall', title: 'Intro call', flow_id: 1, task_id: 142 },
  },
  meet_transcription_linked: {
    summary: 'A meeting transcription was linked to a task about the contact',
    data: { meet_transcription_id: Type.Integer(), meet_id: Type.String(), task_id: Type.Integer() },
    example: { meet_id: 'abc-defg-hij', task_id: 142, meet_transcription_id: 13 },
  },
  contact_deleted: { summary: 'The contact was deleted', data: {}, example: {} },
}

const pascal = (kind: string) => kind.replace(/(^|_)([a-z])/g, (_m, _sep: string, c: string) => c.toUpperCase())

/** One named schema per kind (`StageChangedEvent`, …), `kind` telling them apart. */
export const ContactEventKinds = CONTACT_EVENT_KINDS.map((kind) => {
  const { summary, data, example } = EVENT_DATA[kind]
  return Type.Object(
    {
      id: Type.Integer(),
      contact_id: Type.Integer(),
      kind: Type.Literal(kind),
      user_id: Nullable(Type.Integer({ description: 'who caused it; null for the admin command line' })),
      data: Type.Object(jsonbOrdered(data), { additionalProperties: true }),
      occurred_at: Timestamp,
      ...Timestamps,
    },
    {
      $id: `${pascal(kind)}Event`,
      description: `\`${kind}\`: ${summary}`,
      examples: [
        {
          id: 41,
          contact_id: 7,
          kind,
          user_id: 2,
          data: example,
          occurred_at: '2026-11-22T10:00:00.000Z',
          created_at: '2026-11-22T10:00:00.000Z',
          updated_at: '2026-11-22T10:00:00.000Z',
        },
      ],
    },
  )
})

/** An event of any kind; `kind` says which, and so what `data` holds. */
export const ContactEvent = Type.Unsafe<{
  id: number
  contact_id: number
  kind: ContactEventKind
  user_id: number | null
  data: Record<string, unknown>
  occurred_at: Date | string
  created_at: Date | string
  updated_at: Date | string
}>({
  $id: 'ContactEvent',
  oneOf: ContactEventKinds.map((schema) => Ref(schema)),
  discriminator: {
    propertyName: 'kind',
    mapping: Object.fromEntries(CONTACT_EVENT_KINDS.map((kind) => [kind, `#/components/schemas/${pascal(kind)}Event`])),
  },
})

export const ContactEventsQuery = Type.Object({ ...PageParams })
export const ContactEventsPage = PagedList(ContactEvent, 'ContactEventPage', "A page of a contact's events, newest first")
