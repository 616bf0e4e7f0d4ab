import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { sendPage } from '../../http/pagination.js'
import { Ref } from '../../http/schemas.js'
import { answerList } from '../../http/sync.js'
import {
  WhatsappChatsPage,
  WhatsappMessagesPage,
  WhatsappMessagesQuery,
  WhatsappMessagesResponse,
  WhatsappQuery,
} from './whatsapp.schemas.js'
import { chatsPage, messagesPage, messagesWalk } from './whatsapp.service.js'

// The list page's own serializer (the route's response is the union of a page and a walk's page).
const PAGE = Ref(WhatsappMessagesPage)

const whatsappRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get('/v1/whatsapp_messages', {
    config: { scope: 'whatsapp:read', notFound: 'No live contact with this contact_id in your company' },
    schema: {
      operationId: 'listWhatsappMessages',
      tags: ['whatsapp_messages'],
      summary: 'List the WhatsApp messages of a contact, newest first',
      description:
        'Messages between the contact and its responsible users (one user with `user_id`). A contact outside your company or deleted: 404.\n\n' +
        'With `updated_since` (then `cursor`): the messages of all your live contacts changed at or after it, in ' +
        '(updated_at, id) order; `page`, `contact_id` and `user_id` are refused.',
      querystring: WhatsappMessagesQuery,
      response: { 200: WhatsappMessagesResponse },
    },
  }, async (request, reply) => answerList(app, request, reply, request.query, {
    resource: 'whatsapp_messages',
    walkRefuses: ['contact_id', 'user_id'],
    pageNeeds: ['page', 'contact_id'],
    pageSchema: PAGE,
    walk: (walk) => messagesWalk(app.db, request.caller, walk),
    page: (query) => messagesPage(app.db, request.caller, query),
  }))


  app.get('/v1/whatsapp_messages/chats', {
    config: { scope: 'whatsapp:read', notFound: 'No live contact with this contact_id in your company' },
    schema: {
      operationId: 'listWhatsappChats',
      tags: ['whatsapp_messages'],
      summary: 'List the WhatsApp conversations of a contact, latest message first',
      description: 'One chat per responsible user, with its message count and last message. A contact outside your company or deleted: 404.',
      querystring: WhatsappQuery,
      response: { 200: Ref(WhatsappChatsPage) },
    },
  }, async (request, reply) => sendPage(request, reply, await chatsPage(app.db, request.caller, request.query)))
}

export default whatsappRoutes
