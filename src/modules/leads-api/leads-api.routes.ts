import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { apiActing } from '../../acting.js'
import { operation, recordRoute, sendCreated, tagRoutes } from '../../http/routes.js'
import { CountResponse, IdParams, Ref } from '../../http/schemas.js'
import { walkingListRoute } from '../../http/sync.js'
import { LeadSchema as Lead, LeadContactBody, LeadCreateBody, LeadsCountQuery } from '../leads/index.js'
import { createLead, getLead, leadsCount, LEADS_LIST, linkLeadToContact } from './leads-api.service.js'
import texts from './leads-api.operations.json' with { type: 'json' }


const leadsRoutes: FastifyPluginAsyncTypebox = async (app) => {
  tagRoutes(app, 'leads')

  walkingListRoute(app, '/v1/leads', texts, 'listLeads', { scope: 'leads:read', notFound: 'With `id`: no lead with this id in your company' }, LEADS_LIST)

  app.get('/v1/leads/count', operation(texts, 'countLeads', { scope: 'leads:read' }, {
    querystring: LeadsCountQuery, response: { 200: CountResponse },
  }), async (request) => ({ count: await leadsCount(app.db, request.caller, request.query) }))

  recordRoute(app, '/v1/leads/:id', texts, 'getLead', { scope: 'leads:read', notFound: 'No lead with this id in your company' }, Lead, getLead)

  app.post('/v1/leads', operation(texts, 'createLead', { scope: 'leads:write', rootKey: 'lead' }, {
    body: LeadCreateBody, response: { 201: Ref(Lead) },
  }), async (request, reply) => sendCreated(reply, '/api/v1/leads', await createLead(request.db, request.caller, request.body)))

  app.put('/v1/leads/:id/contact', operation(texts, 'linkLeadToContact', { scope: 'leads:write', notFound: 'No lead with this id in your company' }, {
    params: IdParams, body: LeadContactBody, response: { 200: Ref(Lead) },
  }), async (request) => linkLeadToContact(request.db, apiActing(request), request.params.id, request.body))
}

export default leadsRoutes
