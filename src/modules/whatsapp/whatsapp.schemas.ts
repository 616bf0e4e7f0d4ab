import { Type, type Static } from 'typebox'
import { Id, PagedList, PageParams, Timestamp, Timestamps } from '../../http/schemas.js'

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
})

export const WhatsappChat = Type.Object({
  contact_id: Type.Integer(),
  user_id: Type.Integer({ description: 'the responsible user' }),
  messages_count: Type.Integer(),
  last_message: WhatsappMessage,
  last_message_at: Timestamp,
})

export const WhatsappQuery = Type.Object({
  ...PageParams,
  contact_id: Id,
  user_id: Type.Optional(Id),
})
export type WhatsappQuery = Static<typeof WhatsappQuery>

export const WhatsappMessagesPage = PagedList(WhatsappMessage)
export const WhatsappChatsPage = PagedList(WhatsappChat)

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

export const ImportInput = Type.Object({ company: Id, file: Type.String({ minLength: 1 }) })
