import { Type, type Static } from 'typebox'
import { Id, MAX_ID, PagedList, PageParams, Ref, Timestamp, Timestamps } from '../../http/schemas.js'
import { SyncList, SyncParams } from '../../http/sync.js'
import { CompanyOption } from '../users/index.js'

export const DIRECTIONS = ['inbound', 'outbound'] as const
export const STATUSES = ['sent', 'delivered', 'read', 'failed', 'received'] as const

export const WhatsappMessage = Type.Object({
  id: Type.Integer(),
  contact_id: Type.Integer(),
  user_id: Type.Integer({ description: 'the responsible user' }),
  direction: Type.Enum(DIRECTIONS),
  body: Type.String(),
  status: Type.Enum(STATUSES),
  sent_at: Timestamp,
  ...Timestamps,
}, {
  $id: 'WhatsappMessage',
  description: 'A WhatsApp message between a contact and one of your users',
  examples: [{
    id: 90,
    contact_id: 7,
    user_id: 2,
    direction: 'inbound',
    body: 'Hi Ana, can we talk tomorrow?',
    status: 'received',
    sent_at: '2026-11-22T10:00:00.000Z',
    created_at: '2026-11-22T10:00:00.000Z',
    updated_at: '2026-11-22T10:00:00.000Z',
  }],
})

export const WhatsappChat = Type.Object({
  contact_id: Type.Integer(),
  user_id: Type.Integer({ description: 'the responsible user' }),
  messages_count: Type.Integer(),
  last_message: Ref(WhatsappMessage),
  last_message_at: Timestamp,
}, {
  $id: 'WhatsappChat',
  description: 'The conversation of a contact with one responsible user',
})

export const WhatsappQuery = Type.Object({
  ...PageParams,
  contact_id: Type.Integer({ minimum: 1, maximum: MAX_ID, description: 'the contact (404 if it is not one of your company)' }),
  user_id: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_ID, description: 'only the conversation with this user' })),
})
export type WhatsappQuery = Static<typeof WhatsappQuery>

/** The messages list: WhatsappQuery, or an updated_since walk of the company's messages. */
export const WhatsappMessagesQuery = Type.Object({
  page: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_ID, description: 'required, except in an `updated_since` walk' })),
  per_page: PageParams.per_page,
  contact_id: Type.Optional(Type.Integer({
    minimum: 1,
    maximum: MAX_ID,
    description: 'the contact (404 if it is not one of your company); required, except in an `updated_since` walk',
  })),
  user_id: WhatsappQuery.properties.user_id,
  ...SyncParams,
})

export const WhatsappMessagesPage = PagedList(WhatsappMessage, 'WhatsappMessagePage', 'A page of WhatsApp messages, newest first')
export const WhatsappMessagesSyncPage = SyncList(
  Ref(WhatsappMessage),
  'WhatsappMessageSyncPage',
  'A page of an `updated_since` walk of the WhatsApp messages of your live contacts',
)
export const WhatsappMessagesResponse = Type.Union([Ref(WhatsappMessagesPage), Ref(WhatsappMessagesSyncPage)], {
  description: "A page of a contact's messages; with `updated_since` or `cursor`, a page of the walk",
})
export const WhatsappChatsPage = PagedList(WhatsappChat, 'WhatsappChatPage', 'A page of WhatsApp chats, latest message first')

/** One line of a `whatsapp import` file. WhatsApp itself caps a text at 65,536 characters. */
export const ImportLine = Type.Object({
  contact_id: Id,
  user_id: Id,
  direction: Type.Enum(DIRECTIONS),
  body: Type.String({ maxLength: 65_536 }),
  status: Type.Enum(STATUSES),
  sent_at: Type.String({ format: 'date-time' }),
})
export type ImportLine = Static<typeof ImportLine>

/** `whatsapp import`'s options, with their help. */
export const ImportInput = Type.Object({
  company: CompanyOption,
  file: Type.With(Type.String({ minLength: 1 }), {
    placeholder: 'F',
    description: 'JSON Lines, one {contact_id, user_id, direction, body, status, sent_at} per line',
  }),
})
