// OpenAPI 3.1 generated from the route schemas (the same ones requests are validated with
// and responses serialized with), served at /docs/v1/openapi.json, with Swagger UI at
// /docs/v1 from the package's own files: no CDN.
//
// What the route schemas do not say operation by operation is the contract's, and is added
// here for the document only: each error status an operation can answer (instead of the
// 4xx/5xx ranges the serializer uses), the response headers, and the form-encoded bodies.
import swagger from '@fastify/swagger'
import swaggerUi from '@fastify/swagger-ui'
import type { FastifyReply, FastifyRequest, RouteOptions } from 'fastify'
import fp from 'fastify-plugin'
import { CODES, forbiddenRole, insufficientScope, type ErrorCode, type ErrorDetails, type ErrorStatus } from '../errors.js'
import { EXAMPLE_REQUEST_ID, exampleError } from '../http/schemas.js'
import { acceptedScopes, NO_SCOPE, type RouteScope } from '../scopes.js'
import { INVALID_KEY, KEY_IN_USE, REUSED_KEY } from './idempotency.plugin.js'
import { PRODUCT } from '../version.js'


// The reference's sections, in this order: the resources, then the logs of what happened and
// the probes.
const RESOURCE_TAGS = [
  { name: 'users', description: 'The users of your company, and the user a token acts for' },
  { name: 'contacts', description: 'People you sell to: their fields, tags, custom field values, events and business' },
  { name: 'custom_fields', description: 'Custom field definitions: the extra fields every contact can carry' },
  { name: 'tags', description: 'Labels for contacts' },
  { name: 'flows', description: 'Sequences of steps; adding a contact to a flow makes one task per step' },
  { name: 'tasks', description: "Things to do about contacts (calls, emails, meetings…), by due date" },
  { name: 'leads', description: 'Leads from prospecting providers, linked to the contact with the same email' },
  { name: 'meet_transcriptions', description: 'Meeting transcriptions: recording → stopped → transcribed, optionally linked to a task' },
  { name: 'whatsapp_messages', description: 'WhatsApp conversations between contacts and your users' },
  { name: 'webhooks', description: 'Webhook subscriptions: every change posted to your URL, signed (Standard Webhooks), retried for 3 days, replayable' },
]
const TAGS = [
  ...RESOURCE_TAGS,
  { name: 'events', description: 'The event log: every change of the last 30 days, as webhooks deliver it; for polling clients' },
  { name: 'audit', description: 'The audit log: who did what, when, from where (sign-ins, tokens, users, webhooks, admin commands); admins only' },
  { name: 'health', description: 'Probes for load balancers and orchestrators: no token, no rate limit' },
]

const integer = { type: 'integer' }
const HEADERS = {
  'X-Request-Id': {
    description: "The request's id: yours when you send one (1-128 of `A-Za-z0-9._-`), else a new one; also the error body's `request_id`",
    schema: { type: 'string' },
  },
  'X-RateLimit-Limit': { description: 'Requests allowed per window (per token)', schema: integer },
  'X-RateLimit-Remaining': { description: 'Requests left in the window ending now, this one included', schema: integer },
  'X-RateLimit-Reset': { description: 'Whole seconds until a slot frees (0 when the window is empty)', schema: integer },
  'Retry-After': { description: 'Whole seconds to wait before trying again (at least 1)', schema: integer },
  Location: { description: 'The path of the new record', schema: { type: 'string' } },
  'Idempotent-Replayed': {
    description: '`true` when this is the stored answer of an earlier request with the same `Idempotency-Key`: nothing ran again',
    schema: { type: 'string', enum: ['true'] },
  },
  'X-Accepted-Scopes': {
    description: 'The scopes that let a token call this operation (comma-separated; empty when every token may)',
    schema: { type: 'string' },
  },
  'WWW-Authenticate': {
    description:
      'RFC 6750 section 3: `Bearer realm="engage"` alone when no token was sent (and on 403 `forbidden_role`); ' +
      '`error="invalid_token"` for an unknown, revoked or expired token (an expired one also with `error_description`); ' +
      '`error="insufficient_scope", scope="…"` on 403 `insufficient_scope`, naming the scope the operation needs',
    schema: { type: 'string' },
  },
  'Cache-Control': {
    description: '`no-store`: the answer shows a secret once; no cache (a proxy, the browser) may keep it',
    schema: { type: 'string', enum: ['no-store'] },
  },
  Link: {
    description: 'URLs (paths with query) of the `first` and `last` pages always, `prev` and `next` where such a page exists',
    schema: { type: 'string' },
  },
}
type HeaderName = keyof typeof HEADERS

/** Response headers as @fastify/swagger takes them: a schema with its description. */
const headers = (names: HeaderName[]) =>
  Object.fromEntries(names.map((name) => [name, { ...HEADERS[name].schema, description: HEADERS[name].description }]))

const RATE_HEADERS: HeaderName[] = ['X-Request-Id', 'X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset', 'X-Accepted-Scopes']

/** An example of an error status, named by its code. */
function errorExample(status: ErrorStatus, code: ErrorCode = CODES[status], message?: string, details?: ErrorDetails, codes?: ErrorDetails) {
  return { summary: code, value: { error: exampleError(status, code, message, details, codes) } }
}

/** The responses of each error status: description, headers, real examples. */
function errorResponse(status: ErrorStatus, description: string, examples: Record<string, { summary: string; value: unknown }>) {
  // Requests without a valid token are not counted against a token: no X-RateLimit-*.
  const names: HeaderName[] = status === 401 || status === 500 ? ['X-Request-Id'] : [...RATE_HEADERS]
  if (status === 429) names.push('Retry-After')
  if (status === 401 || status === 403) names.push('WWW-Authenticate')
  return {
    description,
    headers: headers(status === 503 ? ['X-Request-Id', 'Retry-After'] : names),
    content: { 'application/json': { schema: { $ref: 'Error#' }, examples } },
  }
}

const COMMON_ERRORS = {
  401: errorResponse(401, 'No api_token, or one that is unknown, revoked, expired or of an inactive user', {
    token_missing: errorExample(401, 'token_missing', 'Missing api_token'),
    token_invalid: errorExample(401, 'token_invalid', 'Invalid api_token'),
    token_expired: errorExample(401, 'token_expired', 'Expired api_token'),
  }),
  429: errorResponse(429, 'Over the rate limit (60 requests per 10 seconds per token): retry after `Retry-After` seconds', {
    rate_limited: errorExample(429),
  }),
  500: errorResponse(500, 'A bug: the body shows nothing of it; the log has it under the request id', {
    internal_error: errorExample(500),
  }),
  503: errorResponse(503, 'The database cannot be reached, or this instance is shutting down: retry after `Retry-After` seconds', {
    service_unavailable: errorExample(503),
  }),
}

const BODY_ERRORS = {
  400: errorResponse(400, 'The body could not be parsed (or is not a JSON object)', { bad_request: errorExample(400) }),
  413: errorResponse(413, 'The body is over 1 MiB (10 MiB for a transcript)', { payload_too_large: errorExample(413) }),
  415: errorResponse(415, 'A body that is neither JSON nor a form (application/x-www-form-urlencoded)', {
    unsupported_media_type: errorExample(415),
  }),
}

const QUERY_422 = errorResponse(422, 'A parameter is missing or invalid: `details` names each one with its problems', {
  validation_failed: errorExample(422, 'validation_failed', undefined, { per_page: ['must be less than or equal to 100'] }),
})
const BODY_422 = errorResponse(
  422,
  'A parameter or field is missing or invalid, a referenced id is not of your company, or the change is refused by the state of the record (`state_refused`)',
  {
    validation_failed: errorExample(422, 'validation_failed', undefined, { email: ['is invalid'], first_name: ["can't be blank"] }),
    taken: errorExample(422, 'validation_failed', undefined, { email: ['has already been taken'] }),
  },
)

// Idempotency-Key (src/plugins/idempotency.plugin.ts) on every POST and PUT: the header, its 409, its 422.
const IDEMPOTENCY_KEY = {
  type: 'string',
  minLength: 1,
  maxLength: 255,
  pattern: '^[ -~]+$',
  description:
    'Makes the request safe to retry: 1 to 255 printable ASCII characters (a new UUID per operation you mean to run). ' +
    'The first request with a key runs; its answer is kept 24 h for your token; a retry with the same key and the same ' +
    'parameters gets that answer again, with `Idempotent-Replayed: true`, without running. The same key with other ' +
    `parameters: 422 \`idempotency_key_reused\`; while the first still runs: 409 with \`Retry-After: 1\`. Invalid: 422 (${INVALID_KEY}).`,
  examples: ['5f0c8a52-7d4e-4a39-9a55-1c0f7e4b6d21'],
}
const KEYED_409 = {
  description: 'A request with the same `Idempotency-Key` is still running: retry after `Retry-After` seconds (1)',
  headers: headers([...RATE_HEADERS, 'Retry-After']),
  content: {
    'application/json': {
      schema: { $ref: 'Error#' },
      examples: {
        idempotency_key_in_use: {
          summary: 'idempotency_key_in_use',
          value: { error: { status: 409, message: KEY_IN_USE, code: 'idempotency_key_in_use', request_id: EXAMPLE_REQUEST_ID } },
        },
      },
    },
  },
}
const KEYED_422 = {
  ...BODY_422,
  description: `${BODY_422.description}, or the \`Idempotency-Key\` is invalid or was used with other parameters (\`idempotency_key_reused\`)`,
  content: {
    'application/json': {
      ...BODY_422.content['application/json'],
      examples: {
        ...BODY_422.content['application/json'].examples,
        idempotency_key_reused: errorExample(422, 'idempotency_key_reused', undefined, { 'Idempotency-Key': [REUSED_KEY] }, {
          'Idempotency-Key': ['reused'],
        }),
      },
    },
  },
}

const code = (text: string) => `\`${text}\``

/** Which tokens may call an operation, in words: its scope (and the one implying it), its role. */
function accessText(scope: RouteScope, admin: boolean): string {
  const [own, ...implying] = acceptedScopes(scope).map(code)
  const scopes = own === undefined ? 'Any token may call it, whatever its scopes.' : `Scope: ${own}${implying.length > 0 ? ` (or ${implying.join(', ')})` : ''}.`
  return admin ? `${scopes} Admins only: a member's token answers 403 ${code('forbidden_role')}.` : scopes
}

/** 403 of an operation: the token lacks its scope; for an admin's operation, also a member's token. */
function forbiddenResponse(scope: RouteScope, admin: boolean) {
  const examples: Record<string, { summary: string; value: unknown }> = {}
  const reasons: string[] = []
  if (scope !== NO_SCOPE) {
    const error = insufficientScope(scope)
    examples.insufficient_scope = errorExample(403, error.code, error.message, error.details)
    reasons.push(`the token lacks the scope ${code(scope)} (${code('insufficient_scope')})`)
  }
  if (admin) {
    examples.forbidden_role = errorExample(403, 'forbidden_role', forbiddenRole().message)
    reasons.push(`its user is a member: only admins may call this operation (${code('forbidden_role')})`)
  }
  const text = reasons.join(', or ')
  return errorResponse(403, `${text.charAt(0).toUpperCase()}${text.slice(1)}`, examples)
}

const notFoundResponse = (description: string) => errorResponse(404, description, { not_found: errorExample(404) })

const WITH_BODY = new Set(['POST', 'PUT', 'PATCH'])

const HEALTH_IDS: Record<string, string> = { '/healthz': 'getLiveness', '/readyz': 'getReadiness' }

interface DocSchema {
  response?: Record<string, unknown>
  [key: string]: unknown
}

/** The request body: JSON or a form, or for an operation that takes a file (an import), the file in its media type. */
function bodyOf(fileBody: string | undefined) {
  if (fileBody === undefined) return { consumes: ['application/json', 'application/x-www-form-urlencoded'] }
  return { body: { type: 'string', description: `the file itself, as \`${fileBody}\`` }, consumes: [fileBody] }
}

/** The route's schema as the document shows it. */
function documented(schema: DocSchema, route: RouteOptions, url: string): DocSchema {
  if (!url.startsWith('/api/')) {
    const ok = url === '/healthz' ? 'The process is alive' : 'The database answers'
    const response: Record<string, unknown> = {
      200: { ...(schema.response?.['200'] as object), description: ok, headers: headers(['X-Request-Id']) },
      431: errorResponse(431, 'The request line and headers are over 16 KiB (any path answers so)', { header_too_large: errorExample(431) }),
    }
    if (url === '/readyz') response['503'] = errorResponse(503, 'The database does not answer within 2 seconds', { service_unavailable: errorExample(503) })
    return { ...schema, operationId: HEALTH_IDS[url], summary: url === '/healthz' ? 'Liveness: the process answers (no I/O)' : 'Readiness: the database answers', response }
  }
  const method = String(route.method)
  const hasBody = WITH_BODY.has(method)
  const keyed = method === 'POST' || method === 'PUT' // Idempotency-Key
  const response: Record<string, unknown> = {}
  for (const [status, value] of Object.entries(schema.response ?? {})) {
    if (!/^2\d\d$/.test(status)) continue // the 4xx/5xx ranges: replaced by each status below
    const ref = (value as { $ref?: string }).$ref ?? ''
    const names: HeaderName[] = [...RATE_HEADERS]
    if (status === '201') names.push('Location')
    if (keyed) names.push('Idempotent-Replayed')
    if (route.config?.secret) names.push('Cache-Control')
    if (ref.endsWith('Page#') || (value as { anyOf?: { $ref?: string }[] }).anyOf?.some((s) => s.$ref?.endsWith('Page#'))) names.push('Link')
    response[status] = { ...(value as object), headers: headers(names) }
  }
  if (hasBody) Object.assign(response, { 400: BODY_ERRORS[400] })
  response['401'] = COMMON_ERRORS[401]
  const scope = route.config?.scope ?? NO_SCOPE
  const admin = route.config?.role === 'admin'
  if (scope !== NO_SCOPE || admin) response['403'] = forbiddenResponse(scope, admin)
  if (route.config?.notFound) response['404'] = notFoundResponse(route.config.notFound)
  if (keyed) response['409'] = KEYED_409
  if (hasBody) Object.assign(response, { 413: BODY_ERRORS[413], 415: BODY_ERRORS[415] })
  response['422'] = keyed ? KEYED_422 : hasBody ? BODY_422 : QUERY_422
  Object.assign(response, { 429: COMMON_ERRORS[429], 500: COMMON_ERRORS[500], 503: COMMON_ERRORS[503] })
  const given = schema.headers as { properties?: object } | undefined
  // The scope as the operation's security requirement (docs/access-control.md).
  const needs = scope === NO_SCOPE ? [] : [scope]
  const access = accessText(scope, admin)
  return {
    ...schema,
    description: typeof schema.description === 'string' ? `${schema.description}\n\n${access}` : access,
    security: [{ bearerToken: needs }, { queryToken: needs }],
    ...(keyed ? { headers: { type: 'object', ...given, properties: { ...given?.properties, 'Idempotency-Key': IDEMPOTENCY_KEY } } } : {}),
    response,
    ...(hasBody ? bodyOf(route.config?.fileBody) : {}),
  }
}

export default fp(
  async (app) => {
    await app.register(swagger, {
      openapi: {
        openapi: '3.1.0',
        info: {
          title: `${PRODUCT} API`,
          version: '1.0.0',
          summary: 'A self-hostable sales-engagement REST API',
          description:
            'Contacts, tags, custom fields, flows and their tasks, leads, meeting transcriptions and WhatsApp conversations.\n\n' +
            'Authenticate with `Authorization: Bearer <api_token>` (or `api_token` in the query string or body); ' +
            'tokens come from the admin command line (`npx engage-admin token create --user ID`). ' +
            '60 requests per 10 seconds per token. Bodies are JSON or `application/x-www-form-urlencoded` with ' +
            'Rails-style brackets (`tags[]=3&tags[]=4`); the fields of a record may also come wrapped in its root key ' +
            '(`{"contact": {...}}`).\n\n' +
            'Every error answers `{"error": {"status", "message", "code", "details", "detail_codes", "request_id"}}`: ' +
            'match `code` and `detail_codes`, which are stable.',
          license: { name: 'MIT', identifier: 'MIT' },
        },
        servers: [
          { url: '/', description: 'This server (`npm start` listens on http://localhost:3000 by default)' },
        ],
        tags: TAGS,
        components: {
          securitySchemes: {
            bearerToken: { type: 'http', scheme: 'bearer', description: 'The api_token: `Authorization: Bearer eng_…`' },
            queryToken: { type: 'apiKey', in: 'query', name: 'api_token', description: 'The api_token in the query string' },
          },
        },
        security: [{ bearerToken: [] }, { queryToken: [] }],
      },
      refResolver: {
        buildLocalReference: (json, _baseUri, _fragment, i) => (typeof json.$id === 'string' ? json.$id : `def-${i}`),
      },
      transform: ({ schema, url, route }) => ({ schema: documented(schema as DocSchema, route, url), url }),
    })
    // The document is made and serialized once and the same bytes are sent every time, because
    // the memory freed by serializing it per request was kept by the process (docs/performance.md,
    // "The API reference's memory").
    let document: Buffer | undefined
    const sendDocument = (_request: FastifyRequest, reply: FastifyReply) => {
      document ??= Buffer.from(JSON.stringify(app.swagger()))
      return reply.type('application/json; charset=utf-8').send(document)
    }
    // swagger-ui's own /json route (what the page loads) answers the same bytes.
    app.addHook('onRoute', (route) => {
      if (route.url === '/docs/v1/json') route.handler = sendDocument
    })
    await app.register(swaggerUi, {
      routePrefix: '/docs/v1',
      // BaseLayout: the reference without Swagger's top bar (its logo and URL box).
      uiConfig: { layout: 'BaseLayout', deepLinking: true, defaultModelsExpandDepth: 0, tryItOutEnabled: false },
      theme: { title: `${PRODUCT} API reference` },
      staticCSP: true,
      // The package's policy asks browsers to fetch every asset over https: on a plain-http
      // host other than localhost the page stays white. Assets are same-origin either way.
      transformStaticCSP: (header) => header.replace(/\s*upgrade-insecure-requests;?/, ''),
    })
    app.get('/docs/v1/openapi.json', { schema: { hide: true } }, sendDocument)
  },
  { name: 'docs' },
)
