import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { sendListPage } from '../../http/pagination.js'
import { operation, tagRoutes } from '../../http/routes.js'
import { Ref } from '../../http/schemas.js'
import { walkingListRoute } from '../../http/sync.js'
import { WhatsappChatsPage, WhatsappQuery } from './whatsapp.schemas.js'
import { chatsPage, MESSAGES_LIST } from './whatsapp.service.js'
import texts from './whatsapp.operations.json' with { type: 'json' }


const NO_CONTACT = 'No live contact with this contact_id in your company'

const whatsappRoutes: FastifyPluginAsyncTypebox = async (app) => {
  tagRoutes(app, 'whatsapp_messages')

  walkingListRoute(app, '/v1/whatsapp_messages', texts, 'listWhatsappMessages', { scope: 'whatsapp:read', notFound: NO_CONTACT }, MESSAGES_LIST)

  app.get('/v1/whatsapp_messages/chats', operation(texts, 'listWhatsappChats', { scope: 'whatsapp:read', notFound: NO_CONTACT }, {
    querystring: WhatsappQuery, response: { 200: Ref(WhatsappChatsPage) },
  }), async (request, reply) => sendListPage(request, reply, await chatsPage(app.db, request.caller, request.query)))
}

export default whatsappRoutes
