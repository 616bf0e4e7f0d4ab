import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import { sendError } from './errors.js'

const Status = Type.Object({ status: Type.String() })

/** /readyz answers within this, even when the database does not answer at all (frozen). */
export const READY_TIMEOUT_MS = 2000
const RETRY_AFTER_SECONDS = 5

class NotReady extends Error {}

/** The ping, or a NotReady rejection after `ms`; a late ping's outcome is dropped. */
function within<T>(ping: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const late = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => {
      reject(new NotReady(`the database did not answer within ${String(ms)} ms`))
    }, ms)
  })
  ping.catch(() => undefined) // settles after the timer: nobody waits for it any more
  return Promise.race([ping, late]).finally(() => {
    clearTimeout(timer)
  })
}

/** Liveness (no I/O) and readiness (the database answers); no token, no rate limit. */
const health: FastifyPluginAsyncTypebox = async (app) => {
  app.get('/healthz', { schema: { tags: ['health'], security: [], response: { 200: Status } } }, () => ({ status: 'ok' }))

  app.get('/readyz', { schema: { tags: ['health'], security: [], response: { 200: Status } } }, async (request, reply) => {
    if (app.draining) {
      // Shutting down (SIGTERM, src/plugins/drain.ts): out of the balancer's rotation.
      reply.header('retry-after', String(RETRY_AFTER_SECONDS))
      return sendError(request, reply, 503)
    }
    try {
      await within(app.database.ping(), READY_TIMEOUT_MS)
      return { status: 'ok' }
    } catch (err) {
      request.log.warn({ err }, 'readiness check failed')
      reply.header('retry-after', String(RETRY_AFTER_SECONDS))
      return sendError(request, reply, 503)
    }
  })
}

export default health
