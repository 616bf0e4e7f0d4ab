import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { sendCreated, tagRoutes } from '../../http/routes.js'
import { CountResponse, IdParams, Ref } from '../../http/schemas.js'
import { answerList, walkingList } from '../../http/sync.js'
import { Lead, LeadCreateBody, LeadsCountQuery, LeadsPage, LeadsQuery, LeadsResponse } from './leads.schemas.js'
import { createLead, getLead, leadsCount, leadsPage, leadsWalk } from './leads.service.js'

const LEADS_LIST = walkingList({
  resource: 'leads',
  query: LeadsQuery,
  walkRefuses: ['id', 'user_id', 'with_contact', 'without_contact'],
  pageNeeds: ['page', 'user_id'],
  pageSchema: LeadsPage,
  walk: leadsWalk,
  one: getLead,
  page: leadsPage,
})

const leadsRoutes: FastifyPluginAsyncTypebox = async (app) => {
  tagRoutes(app, 'leads')

  app.get('/v1/leads', {
    config: { scope: 'leads:read', notFound: 'With `id`: no lead with this id in your company' },
    schema: {
      operationId: 'listLeads',
      summary: 'List the leads of a user, or show one lead with id',
      description:
        'With `id`: that lead (404 if it is not one of your company). Without: the leads created by ' +
        '`user_id`, a page at a time, id ascending; `page` and `user_id` are then required. With `updated_since` ' +
        '(then `cursor`): every lead of your company changed at or after it, in (updated_at, id) order; `id`, `page`, ' +
        '`user_id` and the link filters are refused.',
      querystring: LeadsQuery,
      response: { 200: LeadsResponse },
    },
  }, async (request, reply) => answerList(app, request, reply, request.query, LEADS_LIST))

  app.get('/v1/leads/count', {
    config: { scope: 'leads:read' },
    schema: {
      operationId: 'countLeads',
      summary: 'Count the leads of a user',
      querystring: LeadsCountQuery,
      response: { 200: CountResponse },
    },
  }, async (request) => ({ count: await leadsCount(app.db, request.caller, request.query) }))

  app.get('/v1/leads/:id', {
    config: { scope: 'leads:read', notFound: 'No lead with this id in your company' },
    schema: {
      operationId: 'getLead',
      summary: 'Show one lead',
      params: IdParams,
      response: { 200: Ref(Lead) },
    },
  }, async (request) => getLead(app.db, request.caller, request.params.id))

  app.post('/v1/leads', {
    config: { scope: 'leads:write', rootKey: 'lead' },
    schema: {
      operationId: 'createLead',
      summary: 'Create a lead (linked to the contact with the same email, if any)',
      body: LeadCreateBody,
      response: { 201: Ref(Lead) },
    },
  }, async (request, reply) => sendCreated(reply, '/api/v1/leads', await createLead(app.db, request.caller, request.body)))
}

export default leadsRoutes
