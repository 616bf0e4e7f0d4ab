// These are the OAuth 2.0 endpoints that apps call server to server: POST /oauth/token,
// /oauth/revoke and /oauth/introspect, which take form bodies and client authentication, and
// the RFC 8414 metadata. They are not operations of the token-authenticated /api (they need no
// scope, because the client authenticates itself), so they are kept out of the OpenAPI
// document, and every error they answer is RFC 6749 §5.2 JSON. Each endpoint is rate limited
// per client once the client is authenticated, and a failed client authentication is charged
// to the caller's address, so naming an app (its client_id is public) spends nothing of the
// app's budget. The authorization and consent pages belong to the web application
// (src/web/oauth/oauth.page-routes.ts).
import type { FastifyError, FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify'
import type { Config } from '../../config.js'
import { isDatabaseUnavailable } from '../../db/pg-errors.js'
import { ApiError } from '../../errors.js'
import { hideFromOpenApi, scopeRateLimiter } from '../../http/non-api-scope.js'
import { FormError, parsePairs } from '../../http/nested-params.js'
import { requestContext } from '../../acting.js'
import { basicCredentials, OAuthError, repeatedParameter, TokenBody, TokenOfClientBody, type ClientRow } from '../oauth/index.js'
import { anyAppExists, authenticateClient, exchangeCode, introspect, issuerOf, metadata, refreshTokens, revokeOAuthToken, type Form } from './oauth-server.service.js'

export interface OAuthRoutesOptions {
  config: Config
}

const FORM_BODY_LIMIT = 64 * 1024

function errorBody(error: OAuthError) {
  return { error: error.error, error_description: error.description }
}

/** Describes a parameter that failed its schema in the words of RFC 6749 §5.2's error_description. */
function parameterProblem(error: ApiError, params: unknown): OAuthError {
  const repeated = repeatedParameter(params)
  if (repeated !== undefined) return new OAuthError('invalid_request', `${repeated.slice(0, 64)} is given more than once (RFC 6749 §3.2)`)
  const [name, problems] = Object.entries(error.details ?? {})[0] ?? ['base', ['is invalid']]
  return new OAuthError('invalid_request', `${name.slice(0, 64)} ${problems[0] ?? 'is invalid'}`)
}

type Endpoint = 'token' | 'revoke' | 'introspect'

const oauthRoutes: FastifyPluginAsync<OAuthRoutesOptions> = async (app, { config }) => {
  const limiter = await scopeRateLimiter(app, config, config.rateLimit, 'oauth')
  hideFromOpenApi(app)

  // Apps compare the issuer they were configured with against the metadata and `iss`, so a
  // guessed address (PUBLIC_URL unset) breaks them, and the start warns about it once.
  app.addHook('onReady', async () => {
    // A database that cannot answer yet is no reason to refuse the start, so the warning is then left out.
    if (config.publicUrl !== undefined || !(await anyAppExists(app.db).catch(() => false))) return
    app.log.warn({ issuer: issuerOf(config) }, 'PUBLIC_URL is unset while OAuth apps are registered: the OAuth issuer is a guess (set PUBLIC_URL to the address apps reach this service at)')
  })

  // The form parser keeps flat pairs and turns a repeated name into a list, so that the schemas refuse it.
  app.removeContentTypeParser('application/x-www-form-urlencoded')
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_request, body, parsed) => {
    try {
      parsed(null, parsePairs(body as string))
    } catch (err) {
      parsed(err instanceof FormError ? new OAuthError('invalid_request', `the body is not a valid form: ${err.message}`) : (err as Error), undefined)
    }
  })

  // These checks run before the schema: secrets must never travel in a URL, which logs and proxies
  // keep, and the body must be a form.
  app.addHook('preValidation', async (request) => {
    if (request.method !== 'POST') return
    if (request.url.includes('?')) throw new OAuthError('invalid_request', 'send the parameters in the form body, not the query string')
    if (!/^application\/x-www-form-urlencoded\b/i.test(request.headers['content-type'] ?? '')) {
      throw new OAuthError('invalid_request', 'the body must be application/x-www-form-urlencoded')
    }
  })

  app.setErrorHandler((error: FastifyError, request, reply) => {
    void reply.header('cache-control', 'no-store').header('pragma', 'no-cache')
    if (error instanceof ApiError && error.statusCode === 422) error = parameterProblem(error, request.body) as unknown as FastifyError
    if (error instanceof OAuthError) {
      if (error.status === 401 && /^Basic\b/i.test(request.headers.authorization ?? '')) void reply.header('www-authenticate', 'Basic realm="engage"')
      return reply.code(error.status).send(errorBody(error))
    }
    if (isDatabaseUnavailable(error)) throw error // the app's handler answers 503
    const status = error instanceof ApiError ? error.statusCode : (error.statusCode ?? 500)
    if (status >= 500) throw error // the app's handler logs it and answers without internals
    return reply.code(status === 413 ? 413 : 400).send(errorBody(new OAuthError('invalid_request', status === 413 ? 'the body is too large' : 'the body could not be read as a form')))
  })

  /** Spends one request of a budget, and answers 429 with Retry-After once the budget is spent. */
  async function spend(reply: FastifyReply, key: string, message: string) {
    const decision = await limiter.consume(key)
    void reply.header('x-ratelimit-limit', decision.limit).header('x-ratelimit-remaining', decision.remaining).header('x-ratelimit-reset', decision.resetSeconds)
    if (!decision.allowed) {
      void reply.header('retry-after', Math.max(1, decision.resetSeconds))
      throw new OAuthError('rate_limited', message, 429)
    }
  }

  /**
   * Authenticates the calling client and spends one request of its budget for the endpoint. A
   * confidential client has one budget, while a public client, which anyone can name, has one
   * per address. A failed authentication is logged and charged to the caller's address instead.
   */
  async function client(request: FastifyRequest, reply: FastifyReply, form: Form, endpoint: Endpoint): Promise<ClientRow> {
    const basic = basicCredentials(request.headers.authorization)
    let found: ClientRow
    try {
      if (basic === 'malformed') throw new OAuthError('invalid_client', 'the Authorization header is not valid Basic credentials', 401)
      found = await authenticateClient(app.db, basic, form, app.clock())
    } catch (err) {
      if (!(err instanceof OAuthError)) throw err
      const named = typeof basic === 'object' ? basic.clientId : form.client_id
      request.log.warn({ endpoint, clientId: typeof named === 'string' ? named.slice(0, 64) : undefined, ip: request.ip, error: err.error }, 'oauth client authentication failed')
      await spend(reply, `failed:ip:${request.ip}`, 'too many failed client authentications from this address: wait and try again')
      throw err
    }
    const key = found.secret_hash === null ? `${endpoint}:client:${found.client_id}:ip:${request.ip}` : `${endpoint}:client:${found.client_id}`
    await spend(reply, key, `too many ${endpoint} requests for this client: wait and try again`)
    return found
  }

  const appContext = (request: FastifyRequest, found: ClientRow) => requestContext(request, { type: 'oauth_app', id: found.id, label: found.name })

  app.post('/oauth/token', { bodyLimit: FORM_BODY_LIMIT, schema: { body: TokenBody } }, async (request, reply) => {
    const form = request.body as Form
    const found = await client(request, reply, form, 'token')
    const grantType = form.grant_type
    const now = app.clock()
    let body
    if (grantType === 'authorization_code') body = await exchangeCode(app.db, found, form, now)
    else if (grantType === 'refresh_token') body = await refreshTokens(app.db, { now, audit: appContext(request, found) }, found, form)
    else if (grantType === undefined || grantType === '') throw new OAuthError('invalid_request', 'grant_type is required')
    else throw new OAuthError('unsupported_grant_type', 'grant_type must be authorization_code or refresh_token')
    return reply.header('cache-control', 'no-store').header('pragma', 'no-cache').send(body)
  })

  app.post('/oauth/revoke', { bodyLimit: FORM_BODY_LIMIT, schema: { body: TokenOfClientBody } }, async (request, reply) => {
    const form = request.body as Form
    const found = await client(request, reply, form, 'revoke')
    await revokeOAuthToken(app.db, { now: app.clock(), audit: appContext(request, found) }, found, form)
    return reply.header('cache-control', 'no-store').code(200).send({})
  })

  app.post('/oauth/introspect', { bodyLimit: FORM_BODY_LIMIT, schema: { body: TokenOfClientBody } }, async (request, reply) => {
    const form = request.body as Form
    const found = await client(request, reply, form, 'introspect')
    return reply.header('cache-control', 'no-store').send(await introspect(app.db, found, form, app.clock()))
  })

  // The issuer is PUBLIC_URL, never the request's Host; without it the address this
  // machine guesses must not be kept by a shared cache.
  app.get('/.well-known/oauth-authorization-server', async (_request, reply) => {
    const cacheControl = config.publicUrl === undefined ? 'no-store' : 'public, max-age=3600'
    return reply.header('cache-control', cacheControl).send(metadata(issuerOf(config)))
  })
}

export default oauthRoutes
