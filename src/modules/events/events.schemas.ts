import { Type } from 'typebox'
import { Nullable, PagedList, PageParams, Timestamp, Timestamps } from '../../http/schemas.js'
import { contactEventKind } from '../../db/schema.js'

export const ContactEvent = Type.Object(
  {
    id: Type.Integer(),
    contact_id: Type.Integer(),
    kind: Type.Enum(contactEventKind.enumValues),
    user_id: Nullable(Type.Integer({ description: 'who caused it; null for the admin command line' })),
    data: Type.Record(Type.String(), Type.Unknown(), {
      description:
        'contact_updated: {changes: {field: [old, new]}}; stage_changed: {from, to}; tag_added/tag_removed: {tag_id, name}',
    }),
    occurred_at: Timestamp,
    ...Timestamps,
  },
  {
    examples: [
      {
        id: 41,
        contact_id: 7,
        kind: 'stage_changed',
        user_id: 2,
        data: { from: 'lead', to: 'mql' },
        occurred_at: '2026-11-22T10:00:00.000Z',
        created_at: '2026-11-22T10:00:00.000Z',
        updated_at: '2026-11-22T10:00:00.000Z',
      },
    ],
  },
)

export const ContactEventsQuery = Type.Object({ ...PageParams })
export const ContactEventsPage = PagedList(ContactEvent)
