import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { sendPage } from '../../http/pagination.js'
import { tagRoutes } from '../../http/routes.js'
import { Ref } from '../../http/schemas.js'
import { answerList, walkingList } from '../../http/sync.js'
import {
  WhatsappChatsPage,
  WhatsappMessagesPage,
  WhatsappMessagesQuery,
  WhatsappMessagesResponse,
  WhatsappQuery,
} from './whatsapp.schemas.js'
import { chatsPage, messagesPage, messagesWalk } from './whatsapp.service.js'

const MESSAGES_LIST = walkingList({
  resource: 'whatsapp_messages',
  query: WhatsappMessagesQuery,
  walkRefuses: ['contact_id', 'user_id'],
  pageNeeds: ['page', 'contact_id'],
  pageSchema: WhatsappMessagesPage,
  walk: messagesWalk,
  page: messagesPage,
})

const whatsappRoutes: FastifyPluginAsyncTypebox = async (app) => {
  tagRoutes(app, 'whatsapp_messages')

  app.get('/v1/whatsapp_messages', {
    config: { scope: 'whatsapp:read', notFound: 'No live contact with this contact_id in your company' },
    schema: {
      operationId: 'listWhatsappMessages',
      summary: 'List the WhatsApp messages of a contact, newest first',
      description:
        'Messages between the contact and its responsible users (one user with `user_id`). A contact outside your company or deleted: 404.\n\n' +
        'With `updated_since` (then `cursor`): the messages of all your live contacts changed at or after it, in ' +
        '(updated_at, id) order; `page`, `contact_id` and `user_id` are refused.',
      querystring: WhatsappMessagesQuery,
      response: { 200: WhatsappMessagesResponse },
    },
  }, async (request, reply) => answerList(app, request, reply, request.query, MESSAGES_LIST))

  app.get('/v1/whatsapp_messages/chats', {
    config: { scope: 'whatsapp:read', notFound: 'No live contact with this contact_id in your company' },
    schema: {
      operationId: 'listWhatsappChats',
      summary: 'List the WhatsApp conversations of a contact, latest message first',
      description: 'One chat per responsible user, with its message count and last message. A contact outside your company or deleted: 404.',
      querystring: WhatsappQuery,
      response: { 200: Ref(WhatsappChatsPage) },
    },
  }, async (request, reply) => sendPage(request, reply, await chatsPage(app.db, request.caller, request.query)))
}

export default whatsappRoutes
