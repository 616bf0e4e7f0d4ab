import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { apiActing } from '../../acting.js'
import { sendListPage } from '../../http/pagination.js'
import { operation, recordRoute, sendCreated, tagRoutes } from '../../http/routes.js'
import { IdParams, Ref } from '../../http/schemas.js'
import { AddContactBody, Enrollment, Flow, FlowCreateBody, FlowsListQuery, FlowsPage, FlowUpdateBody } from '../flows/index.js'
import { addContact, changeFlow, createFlow, flowsPage, getFlow } from './flows-api.service.js'
import texts from './flows-api.operations.json' with { type: 'json' }

const NO_FLOW = 'No flow with this id in your company'

const flowsRoutes: FastifyPluginAsyncTypebox = async (app) => {
  tagRoutes(app, 'flows')

  app.get('/v1/flows', operation(texts, 'listFlows', { scope: 'flows:read' }, {
    querystring: FlowsListQuery, response: { 200: Ref(FlowsPage) },
  }), async (request, reply) => sendListPage(request, reply, await flowsPage(app.db, request.caller, request.query)))

  recordRoute(app, '/v1/flows/:id', texts, 'getFlow', { scope: 'flows:read', notFound: NO_FLOW }, Flow, getFlow)

  app.post('/v1/flows', operation(texts, 'createFlow', { scope: 'flows:write', rootKey: 'flow' }, {
    body: FlowCreateBody, response: { 201: Ref(Flow) },
  }), async (request, reply) => sendCreated(reply, '/api/v1/flows', await createFlow(request.db, apiActing(request), request.body)))

  app.put('/v1/flows/:id', operation(texts, 'updateFlow', { scope: 'flows:write', rootKey: 'flow', notFound: NO_FLOW }, {
    params: IdParams, body: FlowUpdateBody, response: { 200: Ref(Flow) },
  }), async (request) => changeFlow(request.db, apiActing(request), request.params.id, request.body))

  app.put('/v1/flows/:id/add_contact', operation(texts, 'addContactToFlow', { scope: 'flows:write', notFound: NO_FLOW }, {
    params: IdParams, body: AddContactBody, response: { 200: Ref(Enrollment) },
  }), async (request) => addContact(request.db, request.caller, request.params.id, request.body.contact_id))
}

export default flowsRoutes
