import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { sendListPage } from '../../http/pagination.js'
import { operation, tagRoutes } from '../../http/routes.js'
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
import texts from './whatsapp.operations.json' with { type: 'json' }

const MESSAGES_LIST = walkingList({
  resource: 'whatsapp_messages', walkRefuses: ['contact_id', 'user_id'], pageNeeds: ['page', 'contact_id'],
  query: WhatsappMessagesQuery, pageSchema: WhatsappMessagesPage,
  walk: messagesWalk, page: messagesPage,
})

const NO_CONTACT = 'No live contact with this contact_id in your company'

const whatsappRoutes: FastifyPluginAsyncTypebox = async (app) => {
  tagRoutes(app, 'whatsapp_messages')

  app.get('/v1/whatsapp_messages', operation(texts, 'listWhatsappMessages', { scope: 'whatsapp:read', notFound: NO_CONTACT }, {
    querystring: WhatsappMessagesQuery, response: { 200: WhatsappMessagesResponse },
  }), async (request, reply) => answerList(app, request, reply, request.query, MESSAGES_LIST))

  app.get('/v1/whatsapp_messages/chats', operation(texts, 'listWhatsappChats', { scope: 'whatsapp:read', notFound: NO_CONTACT }, {
    querystring: WhatsappQuery, response: { 200: Ref(WhatsappChatsPage) },
  }), async (request, reply) => sendListPage(request, reply, await chatsPage(app.db, request.caller, request.query)))
}

export default whatsappRoutes
