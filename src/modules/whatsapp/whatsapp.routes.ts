import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { pageWindow, sendPage } from '../../http/pagination.js'
import { Ref } from '../../http/schemas.js'
import { sendListPage, sendWalkPage, walkRequest } from '../../http/sync.js'
import { requireGiven } from '../../http/validation.js'
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
  }, async (request, reply) => {
    const query = request.query
    const { companyId } = request.caller
    const walk = walkRequest(app, 'whatsapp_messages', companyId, query, ['contact_id', 'user_id'])
    if (walk) return sendWalkPage(request, reply, await messagesWalk(app.db, companyId, walk))
    requireGiven(query, ['page', 'contact_id'])
    const window = pageWindow(query)
    const { total, data } = await messagesPage(app.db, companyId, query.contact_id, query.user_id, window)
    return sendListPage(reply, PAGE, sendPage(request, reply, window, total, data))
  })

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
  }, async (request, reply) => {
    const window = pageWindow(request.query)
    const { contact_id, user_id } = request.query
    const { total, data } = await chatsPage(app.db, request.caller.companyId, contact_id, user_id, window)
    return sendPage(request, reply, window, total, data)
  })
}

export default whatsappRoutes
