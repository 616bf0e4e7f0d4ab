// The one place errors become the contract's body:
// {"error": {"status", "message", "details"?, "request_id"}}. 5xx never show internals;
// they are logged with the request id.
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import { isDatabaseUnavailable } from '../db/errors.js'
import { ApiError, MESSAGES, type ErrorDetails, type ErrorStatus } from '../errors.js'

const RETRY_AFTER_SECONDS = 5

export function sendError(
  request: FastifyRequest,
  reply: FastifyReply,
  status: ErrorStatus,
  message: string = MESSAGES[status],
  details?: ErrorDetails,
) {
  return reply
    .code(status)
    .type('application/json; charset=utf-8')
    .send({ error: { status, message, ...(details ? { details } : {}), request_id: request.id } })
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

export default fp(
  (app, _opts, done) => {
    app.setErrorHandler((error: FastifyError, request, reply) => {
      const known = classify(error)
      if (known) {
        if (known.statusCode === 422 || known.statusCode === 400) {
          request.log.info({ details: known.details, reason: error.message }, 'rejected request')
        }
        return sendError(request, reply, known.statusCode, known.message, known.details)
      }
      if (isDatabaseUnavailable(error)) {
        request.log.error({ err: error }, 'database unavailable')
        reply.header('retry-after', String(RETRY_AFTER_SECONDS))
        return sendError(request, reply, 503)
      }
      request.log.error({ err: error }, 'unhandled error')
      return sendError(request, reply, 500)
    })

    app.setNotFoundHandler((request, reply) => sendError(request, reply, 404))
    done()
  },
  { name: 'errors' },
)
