import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { sendJsonText } from '../../http/json-text.js'
import { sendPage } from '../../http/pagination.js'
import { authorization, usersPage } from './users.service.js'
import { tagRoutes } from '../../http/routes.js'
import { Ref } from '../../http/schemas.js'
import { AuthorizeResponse, UsersListQuery, UsersPage } from './users.schemas.js'

const usersRoutes: FastifyPluginAsyncTypebox = async (app) => {
  tagRoutes(app, 'users')

  app.get('/v1/users', {
    config: { scope: 'users:read' },
    schema: {
      operationId: 'listUsers',
      summary: 'List the users of your company (id ascending)',
      querystring: UsersListQuery,
      response: { 200: Ref(UsersPage) },
    },
  }, async (request, reply) => sendPage(request, reply, await usersPage(app.db, request.caller, request.query)))

  app.get('/v1/users/authorize_api', {
    config: { scope: 'none' },
    schema: {
      summary: 'Check an api_token: the user it acts for, its company, and the token\'s scopes, kind and expiry',
      operationId: 'authorizeApi',
      response: { 200: Ref(AuthorizeResponse) },
    },
  }, async (request, reply) => sendJsonText(reply, await authorization(app.db, request.caller)))
}

export default usersRoutes
