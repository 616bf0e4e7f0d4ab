import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { sendPage } from '../../http/pagination.js'
import { tagRoutes } from '../../http/routes.js'
import { IdParams, Ref } from '../../http/schemas.js'
import { AddContactBody, Enrollment, FlowsListQuery, FlowsPage } from './flows.schemas.js'
import { addContact, flowsPage } from './flows.service.js'

const flowsRoutes: FastifyPluginAsyncTypebox = async (app) => {
  tagRoutes(app, 'flows')

  app.get('/v1/flows', {
    config: { scope: 'flows:read' },
    schema: {
      operationId: 'listFlows',
      summary: 'List flows (id ascending), optionally of one user or matching a name',
      description: '`search_term` matches a case-insensitive substring of the flow name.',
      querystring: FlowsListQuery,
      response: { 200: Ref(FlowsPage) },
    },
  }, async (request, reply) => sendPage(request, reply, await flowsPage(app.db, request.caller, request.query)))

  app.put('/v1/flows/:id/add_contact', {
    config: { scope: 'flows:write', notFound: 'No flow with this id in your company' },
    schema: {
      operationId: 'addContactToFlow',
      summary: 'Add a contact to a flow: one task per step, due from today in your company time zone',
      description:
        "Each task is due on today (company time zone) plus the step's day, assigned to the contact's owner. " +
        'A contact already active in the flow, a deleted or unknown contact, or a paused flow: 422.',
      params: IdParams,
      body: AddContactBody,
      response: { 200: Ref(Enrollment) },
    },
  }, async (request) => addContact(app.db, request.caller, request.params.id, request.body.contact_id))
}

export default flowsRoutes
