// The OAuth 2.0 endpoints apps call server to server: POST /oauth/token, /oauth/revoke,
// /oauth/introspect (form bodies, client authentication) and the RFC 8414 metadata. Not
// operations of the token-authenticated /api (no scope: the client authenticates itself), so
// kept out of the OpenAPI document; every error is RFC 6749 §5.2 JSON. /oauth/token is
// rate limited per client (and per address for requests that name none). The authorization
// and consent pages are the web application's (src/web/oauth.routes.ts).
import type { FastifyError, FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify'
import type { Config } from '../../config.js'
import { isDatabaseUnavailable } from '../../db/errors.js'
import { ApiError } from '../../errors.js'
import { hideFromOpenApi, scopeRateLimiter } from '../../http/beside-api.js'
import { requestContext } from '../audit/audit.context.js'
import { basicCredentials, OAuthError } from './oauth.protocol.js'
import type { ClientRow } from './oauth.repository.js'
import { authenticateClient, exchangeCode, introspect, metadata, refreshTokens, revokeOAuthToken, type Form } from './oauth.service.js'

export interface OAuthRoutesOptions {
  config: Config
}

const FORM_BODY_LIMIT = 64 * 1024

function errorBody(error: OAuthError) {
  return { error: error.error, error_description: error.description }
}

const oauthRoutes: FastifyPluginAsync<OAuthRoutesOptions> = async (app, { config }) => {
  const limiter = await scopeRateLimiter(app, config, config.rateLimit, 'oauth')
  hideFromOpenApi(app)

  app.setErrorHandler((error: FastifyError, request, reply) => {
    void reply.header('cache-control', 'no-store').header('pragma', 'no-cache')
    if (error instanceof OAuthError) {
      if (error.status === 401 && /^Basic\b/i.test(request.headers.authorization ?? '')) void reply.header('www-authenticate', 'Basic realm="engage"')
      return reply.code(error.status).send(errorBody(error))
    }
    if (isDatabaseUnavailable(error)) throw error // the app's 503
    const status = error instanceof ApiError ? error.statusCode : (error.statusCode ?? 500)
    if (status >= 500) throw error // logged and answered by the app's handler, no internals
    return reply.code(status === 413 ? 413 : 400).send(errorBody(new OAuthError('invalid_request', status === 413 ? 'the body is too large' : 'the body could not be read as a form')))
  })

  const formOf = (request: FastifyRequest): Form => {
    // Secrets never travel in a URL (logs, proxies): the parameters are the body's only.
    if (request.url.includes('?')) throw new OAuthError('invalid_request', 'send the parameters in the form body, not the query string')
    if (!/^application\/x-www-form-urlencoded\b/i.test(request.headers['content-type'] ?? '')) {
      throw new OAuthError('invalid_request', 'the body must be application/x-www-form-urlencoded')
    }
    return (request.body ?? {}) as Form
  }

  async function client(request: FastifyRequest, form: Form): Promise<ClientRow> {
    const basic = basicCredentials(request.headers.authorization)
    if (basic === 'malformed') throw new OAuthError('invalid_client', 'the Authorization header is not valid Basic credentials', 401)
    return authenticateClient(app.db, basic, form, app.clock())
  }

  /** One request of the client's budget (the client_id it names, else the address). */
  async function spend(request: FastifyRequest, reply: FastifyReply, form: Form) {
    const basic = basicCredentials(request.headers.authorization)
    const named = typeof basic === 'object' ? basic.clientId : typeof form.client_id === 'string' ? form.client_id : undefined
    const key = named !== undefined && named !== '' && named.length <= 64 ? `client:${named}` : `ip:${request.ip}`
    const decision = await limiter.consume(key)
    void reply.header('x-ratelimit-limit', decision.limit).header('x-ratelimit-remaining', decision.remaining).header('x-ratelimit-reset', decision.resetSeconds)
    if (!decision.allowed) {
      void reply.header('retry-after', Math.max(1, decision.resetSeconds))
      throw new OAuthError('rate_limited', 'too many token requests for this client: wait and try again', 429)
    }
  }

  const appContext = (request: FastifyRequest, found: ClientRow) => requestContext(request, { type: 'oauth_app', id: found.id, label: found.name })

  app.post('/oauth/token', { bodyLimit: FORM_BODY_LIMIT }, async (request, reply) => {
    const form = formOf(request)
    await spend(request, reply, form)
    const found = await client(request, form)
    const grantType = form.grant_type
    const now = app.clock()
    let body
    if (grantType === 'authorization_code') body = await exchangeCode(app.db, found, form, now)
    else if (grantType === 'refresh_token') body = await refreshTokens(app.db, { now, audit: appContext(request, found) }, found, form)
    else if (grantType === undefined || grantType === '') throw new OAuthError('invalid_request', 'grant_type is required')
    else throw new OAuthError('unsupported_grant_type', 'grant_type must be authorization_code or refresh_token')
    return reply.header('cache-control', 'no-store').header('pragma', 'no-cache').send(body)
  })

  app.post('/oauth/revoke', { bodyLimit: FORM_BODY_LIMIT }, async (request, reply) => {
    const form = formOf(request)
    const found = await client(request, form)
    await revokeOAuthToken(app.db, { now: app.clock(), audit: appContext(request, found) }, found, form)
    return reply.header('cache-control', 'no-store').code(200).send({})
  })

  app.post('/oauth/introspect', { bodyLimit: FORM_BODY_LIMIT }, async (request, reply) => {
    const form = formOf(request)
    const found = await client(request, form)
    return reply.header('cache-control', 'no-store').send(await introspect(app.db, found, form, app.clock()))
  })

  app.get('/.well-known/oauth-authorization-server', async (request, reply) => {
    const issuer = (config.publicUrl ?? `${request.protocol}://${request.host}`).replace(/\/+$/, '')
    return reply.header('cache-control', 'public, max-age=3600').send(metadata(issuer))
  })
}

export default oauthRoutes
