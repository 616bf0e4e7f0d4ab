import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { pageWindow, sendPage } from '../../http/pagination.js'
import { Ref } from '../../http/schemas.js'
import { WhatsappChatsPage, WhatsappMessagesPage, WhatsappQuery } from './whatsapp.schemas.js'
import { chatsPage, messagesPage } from './whatsapp.service.js'

const whatsappRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get('/v1/whatsapp_messages', {
    config: { notFound: 'No live contact with this contact_id in your company' },
    schema: {
      operationId: 'listWhatsappMessages',
      tags: ['whatsapp_messages'],
      summary: 'List the WhatsApp messages of a contact, newest first',
      description: 'Messages between the contact and its responsible users (one user with `user_id`). A contact outside your company or deleted: 404.',
      querystring: WhatsappQuery,
      response: { 200: Ref(WhatsappMessagesPage) },
    },
  }, async (request, reply) => {
    const window = pageWindow(request.query)
    const { contact_id, user_id } = request.query
    const { total, data } = await messagesPage(app.db, request.caller.companyId, contact_id, user_id, window)
    return sendPage(request, reply, window, total, data)
  })

  app.get('/v1/whatsapp_messages/chats', {
    config: { notFound: 'No live contact with this contact_id in your company' },
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
