// The one place errors become the contract's body:
// {"error": {"status", "message", "code", "details"?, "detail_codes"?, "request_id"}}.
// 5xx never show internals; they are logged with the request id. Also the errors that
// happen before a request reaches a route (a bad URL, a request the HTTP parser refuses or
// that times out, a request during shutdown) answer the same body and X-Request-Id.
import { randomUUID } from 'node:crypto'
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { Socket } from 'node:net'
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import { isDatabaseUnavailable, isRetryableConflict } from '../db/pg-errors.js'
import { redactUrl } from '../logging.js'
import { ApiError, CODES, detailCodes, MESSAGES, type ErrorCode, type ErrorDetails, type ErrorStatus } from '../errors.js'

const RETRY_AFTER_SECONDS = 5

const REQUEST_ID = /^[A-Za-z0-9._-]{1,128}$/

/** The caller's X-Request-Id when it is 1-128 of A-Za-z0-9._-, else a new one. */
export function requestId(req: IncomingMessage): string {
  const given = req.headers['x-request-id']
  return typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID()
}

function errorBody(status: ErrorStatus, message: string, code: ErrorCode, id: string, details?: ErrorDetails) {
  return {
    error: {
      status,
      message,
      code,
      ...(details ? { details, detail_codes: detailCodes(details) } : {}),
      request_id: id,
    },
  }
}

/**
 * The API's `WWW-Authenticate` of a 401 or 403 (RFC 6750 section 3): the realm alone when no
 * token was sent (or for a role the token's user lacks), else why the token was refused.
 */
export function bearerChallenge(code: ErrorCode, details?: ErrorDetails): string {
  const realm = 'Bearer realm="engage"'
  switch (code) {
    case 'token_invalid':
      return `${realm}, error="invalid_token"`
    case 'token_expired':
      return `${realm}, error="invalid_token", error_description="The access token expired"`
    case 'insufficient_scope':
      return `${realm}, error="insufficient_scope", scope="${(details?.scope ?? []).join(' ')}"`
    default:
      return realm
  }
}

export function sendError(
  request: FastifyRequest,
  reply: FastifyReply,
  status: ErrorStatus,
  message: string = MESSAGES[status],
  details?: ErrorDetails,
  code: ErrorCode = CODES[status],
) {
  if ((status === 401 || status === 403) && request.url.startsWith('/api/')) reply.header('www-authenticate', bearerChallenge(code, details))
  return reply
    .code(status)
    .header('x-request-id', request.id)
    .type('application/json; charset=utf-8')
    .send(errorBody(status, message, code, request.id, details))
}

function classify(error: FastifyError): ApiError | undefined {
  if (error instanceof ApiError) return error
  switch (error.code) {
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new ApiError(415)
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new ApiError(413)
  }
  const status = error.statusCode
  if (status !== undefined && status >= 400 && status < 500) {
    return new ApiError(status in MESSAGES ? (status as ErrorStatus) : 400)
  }
  return undefined
}

function sendUnavailable(request: FastifyRequest, reply: FastifyReply) {
  reply.header('retry-after', String(RETRY_AFTER_SECONDS))
  return sendError(request, reply, 503)
}

/**
 * The HTML error page for a request target that is a web page (docs/web.md: pages answer
 * HTML, also for their errors), or undefined where the contract's JSON applies. Given by the
 * app (src/web knows its paths), for the errors answered before any route runs.
 */
export type ErrorPageFor = (url: string, status: ErrorStatus) => string | undefined

/**
 * Fastify's `frameworkErrors`: a path with a bad percent escape (FST_ERR_BAD_URL) and the
 * like, before any route or hook runs. Fastify would answer its own body, echoing the URL.
 */
export function frameworkErrors(pageFor: ErrorPageFor) {
  return (error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    const known = classify(error) ?? new ApiError(400)
    // Fastify writes no "request completed" line for these: this is the request's one line.
    request.log.info(
      { method: request.method, url: redactUrl(request.url), statusCode: known.statusCode, reason: error.code },
      'rejected request',
    )
    const page = pageFor(request.url, known.statusCode)
    if (page !== undefined) {
      void reply.code(known.statusCode).header('x-request-id', request.id).header('cache-control', 'no-store').type('text/html; charset=utf-8').send(page)
      return
    }
    void sendError(request, reply, known.statusCode, known.message, known.details, known.code)
  }
}

// The id Fastify gave a request whose body is still arriving, for a 408 that ends it.
const requestIds = new WeakMap<IncomingMessage, string>()

const CLIENT_ERROR_STATUS: Record<string, ErrorStatus> = {
  ERR_HTTP_REQUEST_TIMEOUT: 408,
  HPE_HEADER_OVERFLOW: 431,
}

const LENGTH_PROBLEM = 'give the body length twice or in an invalid form (Content-Length, Transfer-Encoding)'

/** What was wrong, by llhttp's error code, for the 400s of the HTTP parser. */
const PARSER_PROBLEMS: Record<string, ErrorDetails> = {
  HPE_INVALID_METHOD: { method: ['is not an HTTP method'] },
  HPE_INVALID_URL: { url: ['has a character not allowed in a request target'] },
  HPE_INVALID_CONSTANT: { request_line: ['is not an HTTP/1.1 request line'] },
  HPE_INVALID_VERSION: { request_line: ['is not an HTTP/1.1 request line'] },
  HPE_PAUSED_H2_UPGRADE: { request_line: ['is not an HTTP/1.1 request line'] },
  HPE_CR_EXPECTED: { request_line: ['must end its lines with CRLF'] },
  HPE_LF_EXPECTED: { request_line: ['must end its lines with CRLF'] },
  HPE_INVALID_HEADER_TOKEN: { headers: ['have a name or a value with a character not allowed'] },
  HPE_INVALID_CONTENT_LENGTH: { headers: [LENGTH_PROBLEM] },
  HPE_UNEXPECTED_CONTENT_LENGTH: { headers: [LENGTH_PROBLEM] },
  HPE_INVALID_TRANSFER_ENCODING: { headers: [LENGTH_PROBLEM] },
  HPE_INVALID_CHUNK_SIZE: { body: ['has a malformed chunk'] },
  HPE_STRICT: { body: ['has a malformed chunk'] },
}

/**
 * The HTTP server's `clientError`: a request Node's parser refuses (headers or URL over
 * 16 KiB: 431, malformed: 400) or that did not arrive in time (408). Fastify never sees
 * these; the answer is written on the socket, complete, and the connection closed.
 */
export function clientErrorHandler(pageFor: ErrorPageFor) {
  return function (this: FastifyInstance, err: NodeJS.ErrnoException, socket: Socket) {
    answerClientError(this, pageFor, err, socket)
  }
}

// The request target of the request line a refused packet starts with (to tell a page's path).
const REQUEST_TARGET = /^[A-Z]+ (\S+)/

function answerClientError(app: FastifyInstance, pageFor: ErrorPageFor, err: NodeJS.ErrnoException, socket: Socket) {
  if (err.code === 'ECONNRESET' || socket.destroyed) return
  // A second error on a socket already answered (more bytes after a parse error).
  if (socket.writableEnded) return
  const status = CLIENT_ERROR_STATUS[err.code ?? ''] ?? 400
  const inFlight = (socket as Socket & { _httpMessage?: ServerResponse | null })._httpMessage
  // Part of a response was written already: another response cannot follow; only close.
  if (!socket.writable || inFlight?.headersSent) {
    socket.destroy()
    return
  }
  const id = (inFlight && requestIds.get(inFlight.req)) ?? randomUUID()
  app.log.info({ reqId: id, reason: err.code, statusCode: status }, 'rejected request')
  const packet = (err as { rawPacket?: unknown }).rawPacket
  const line = Buffer.isBuffer(packet) ? packet.subarray(0, 4096).toString('latin1') : ''
  const target = inFlight?.req.url ?? REQUEST_TARGET.exec(line)?.[1]
  const page = target === undefined ? undefined : pageFor(target, status)
  answerOnSocket(socket, status, id, status === 400 ? PARSER_PROBLEMS[err.code ?? ''] : undefined, page)
}

/**
 * Writes the contract's error (or a page's HTML error page) on a connection no response
 * object owns, complete, and closes the connection.
 */
function answerOnSocket(socket: Socket, status: ErrorStatus, id: string, details?: ErrorDetails, page?: string) {
  const body = page ?? JSON.stringify(errorBody(status, MESSAGES[status], CODES[status], id, details))
  socket.end(
    `HTTP/1.1 ${String(status)} ${MESSAGES[status]}\r\n` +
      (page === undefined ? 'Content-Type: application/json; charset=utf-8\r\n' : 'Content-Type: text/html; charset=utf-8\r\nCache-Control: no-store\r\n') +
      `Content-Length: ${String(Buffer.byteLength(body))}\r\n` +
      `X-Request-Id: ${id}\r\n` +
      'Connection: close\r\n\r\n' +
      body,
  )
  // Closing at once with unread bytes in the socket makes the kernel send a reset, which
  // may destroy the answer before the client reads it: read and drop what still comes,
  // and close after a moment.
  socket.resume()
  setTimeout(() => socket.destroy(), 1_000).unref()
}

/**
 * The requests Node's server would answer itself, with an empty body, or not at all:
 * - CONNECT (a proxy request; Node closes the connection without a word): 400;
 * - an `Expect` other than `100-continue` (Node: 417): ignored, as RFC 9110 allows, and the
 *   request served as if it had none.
 * (A missing Host is answered by the onRequest hook below; app.ts turns Node's check off.)
 */
function answerWhatNodeWould(app: FastifyInstance) {
  app.server.on('connect', (req: IncomingMessage, socket: Socket) => {
    const id = requestId(req)
    app.log.info({ reqId: id, method: req.method, reason: 'CONNECT', statusCode: 400 }, 'rejected request')
    answerOnSocket(socket, 400, id, { method: ['is not supported: this is not a proxy'] })
  })
  app.server.on('checkExpectation', (req: IncomingMessage, res: ServerResponse) => {
    app.server.emit('request', req, res)
  })
}

export default fp(
  (app, _opts, done) => {
    app.setErrorHandler((error: FastifyError, request, reply) => {
      const known = classify(error)
      if (known) {
        if (known.statusCode === 422 || known.statusCode === 400) {
          // The code only for Fastify's own errors: a JSON parse message quotes the body.
          const reason = known === error ? error.message : error.code
          request.log.info({ details: known.details, reason }, 'rejected request')
        }
        if (known.statusCode === 503) return sendUnavailable(request, reply) // busy (search slots)
        return sendError(request, reply, known.statusCode, known.message, known.details, known.code)
      }
      if (isDatabaseUnavailable(error)) {
        request.log.error({ err: error }, 'database unavailable')
        return sendUnavailable(request, reply)
      }
      // A deadlock or serialization failure that outlived the writes' own retries: rolled
      // back whole, so "try again" (503 with Retry-After) is the true answer, not a 500.
      if (isRetryableConflict(error)) {
        request.log.warn({ err: error }, 'transaction conflict, rolled back')
        return sendUnavailable(request, reply)
      }
      request.log.error({ err: error }, 'unhandled error')
      return sendError(request, reply, 500)
    })

    app.setNotFoundHandler((request, reply) => sendError(request, reply, 404))

    // During shutdown (app.close() until the server has closed) requests still arriving on
    // open connections get the contract's 503 with Retry-After, on a connection that closes
    // (app.ts sets return503OnClosing: false so that they reach this hook). Requests in
    // flight when it began finish normally. Every request's id is noted for clientErrorHandler
    // and answered in X-Request-Id.
    let closing = false
    app.addHook('preClose', (next) => {
      closing = true
      next()
    })
    answerWhatNodeWould(app)
    app.addHook('onRequest', (request, reply, next) => {
      requestIds.set(request.raw, request.id)
      reply.header('x-request-id', request.id)
      // RFC 9112 section 3.2: an HTTP/1.1 request without a Host header is a 400.
      if (request.raw.headers.host === undefined && request.raw.httpVersionMinor >= 1) {
        request.log.info({ reason: 'no Host header', statusCode: 400 }, 'rejected request')
        reply.header('connection', 'close')
        void sendError(request, reply, 400, MESSAGES[400], { host: ["can't be blank: HTTP/1.1 requires a Host header"] })
        return
      }
      if (!closing) {
        next()
        return
      }
      reply.header('connection', 'close')
      void sendUnavailable(request, reply)
    })
    done()
  },
  { name: 'errors' },
)
