import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { sendPage } from '../../http/pagination.js'
import { operation, tagRoutes } from '../../http/routes.js'
import { IdParams, Ref } from '../../http/schemas.js'
import { AddContactBody, Enrollment, FlowsListQuery, FlowsPage } from './flows.schemas.js'
import { addContact, flowsPage } from './flows.service.js'
import texts from './flows.operations.json' with { type: 'json' }

const flowsRoutes: FastifyPluginAsyncTypebox = async (app) => {
  tagRoutes(app, 'flows')

  app.get('/v1/flows', operation(texts, 'listFlows', { scope: 'flows:read' }, {
    querystring: FlowsListQuery, response: { 200: Ref(FlowsPage) },
  }), async (request, reply) => sendPage(request, reply, await flowsPage(app.db, request.caller, request.query)))

  app.put('/v1/flows/:id/add_contact', operation(texts, 'addContactToFlow', { scope: 'flows:write', notFound: 'No flow with this id in your company' }, {
    params: IdParams, body: AddContactBody, response: { 200: Ref(Enrollment) },
  }), async (request) => addContact(request.db, request.caller, request.params.id, request.body.contact_id))
}

export default flowsRoutes
