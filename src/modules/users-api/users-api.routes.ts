import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { sendJsonText } from '../../http/json-text.js'
import { sendListPage } from '../../http/pagination.js'
import { authorization, usersPage } from './users-api.service.js'
import { operation, tagRoutes } from '../../http/routes.js'
import { Ref } from '../../http/schemas.js'
import { AuthorizeResponse, UsersListQuery, UsersPage } from '../users/index.js'
import texts from './users-api.operations.json' with { type: 'json' }

const usersRoutes: FastifyPluginAsyncTypebox = async (app) => {
  tagRoutes(app, 'users')

  app.get('/v1/users', operation(texts, 'listUsers', { scope: 'users:read' }, {
    querystring: UsersListQuery, response: { 200: Ref(UsersPage) },
  }), async (request, reply) => sendListPage(request, reply, await usersPage(app.db, request.caller, request.query)))

  app.get('/v1/users/authorize_api', operation(texts, 'authorizeApi', { scope: 'none' }, {
    response: { 200: Ref(AuthorizeResponse) },
  }), async (request, reply) => sendJsonText(reply, await authorization(app.db, request.caller)))
}

export default usersRoutes
