import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import { sendError } from './errors.js'

const Status = Type.Object({ status: Type.String() })

/** Liveness (no I/O) and readiness (the database answers); no token, no rate limit. */
const health: FastifyPluginAsyncTypebox = async (app) => {
  app.get('/healthz', { schema: { tags: ['health'], security: [], response: { 200: Status } } }, () => ({ status: 'ok' }))

  app.get('/readyz', { schema: { tags: ['health'], security: [], response: { 200: Status } } }, async (request, reply) => {
    try {
      await app.database.ping()
      return { status: 'ok' }
    } catch (err) {
      request.log.warn({ err }, 'readiness check failed')
      reply.header('retry-after', '5')
      return sendError(request, reply, 503)
    }
  })
}

export default health
