import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { notFound } from '../../errors.js'
import { sendJsonText } from '../../http/json-text.js'
import { pageWindow, sendPageJson } from '../../http/pagination.js'
import { findAuthorizationJson, usersPageJson } from './users.repository.js'
import { withToken } from './users.service.js'
import { Ref } from '../../http/schemas.js'
import { AuthorizeResponse, UsersListQuery, UsersPage } from './users.schemas.js'

const usersRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get('/v1/users', {
    config: { scope: 'users:read' },
    schema: {
      operationId: 'listUsers',
      tags: ['users'],
      summary: 'List the users of your company (id ascending)',
      querystring: UsersListQuery,
      response: { 200: Ref(UsersPage) },
    },
  }, async (request, reply) => {
    const { companyId } = request.caller
    const window = pageWindow(request.query)
    const { total, data } = await usersPageJson(app.db, companyId, window)
    return sendPageJson(request, reply, window, total, data)
  })

  app.get('/v1/users/authorize_api', {
    config: { scope: 'none' },
    schema: {
      tags: ['users'],
      summary: 'Check an api_token: the user it acts for, its company, and the token\'s scopes, kind and expiry',
      operationId: 'authorizeApi',
      response: { 200: Ref(AuthorizeResponse) },
    },
  }, async (request, reply) => {
    const { companyId, userId } = request.caller
    const json = await findAuthorizationJson(app.db, companyId, userId)
    if (json === undefined) throw notFound()
    return sendJsonText(reply, withToken(json, request.caller.access))
  })
}

export default usersRoutes
