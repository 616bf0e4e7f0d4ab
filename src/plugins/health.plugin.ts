import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import { schemaVersion } from '../db/migrate.js'
import { VERSION } from '../version.js'
import { sendError } from './errors.plugin.js'

const Status = Type.Object({
  status: Type.String(),
  version: Type.String({ description: "This build's version (package.json)" }),
  schema_version: Type.String({ description: "This build's schema version: the name of its last migration" }),
})
const Readiness = Type.Object({
  status: Type.String(),
  replica: Type.Optional(
    Type.Object(
      {
        state: Type.Union([Type.Literal('ok'), Type.Literal('lagging'), Type.Literal('down')]),
        lag_ms: Type.Union([Type.Integer(), Type.Null()]),
      },
      { description: 'With DATABASE_REPLICA_URL: whether reads go to the replica (ok) or to the primary (lagging, down)' },
    ),
  ),
  backup: Type.Optional(
    Type.Object(
      {
        last_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
        size_bytes: Type.Union([Type.Integer(), Type.Null()]),
        ok: Type.Boolean({ description: 'false when the last attempt failed (the service log says why)' }),
      },
      { description: 'With BACKUP_DIR and BACKUP_EVERY: the last scheduled backup written (time, size) and whether the last attempt succeeded' },
    ),
  ),
})

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
  const alive = { status: 'ok', version: VERSION, schema_version: schemaVersion() }
  app.get('/healthz', { schema: { tags: ['health'], security: [], response: { 200: Status } } }, () => alive)

  app.get('/readyz', { schema: { tags: ['health'], security: [], response: { 200: Readiness } } }, async (request, reply) => {
    if (app.draining) {
      // Shutting down (SIGTERM, src/plugins/drain.plugin.ts): out of the balancer's rotation.
      reply.header('retry-after', String(RETRY_AFTER_SECONDS))
      return sendError(request, reply, 503)
    }
    try {
      await within(app.database.ping(), READY_TIMEOUT_MS)
      // A replica down or lagging does not make the instance unready: reads use the primary.
      const replica = app.database.replica?.()
      const backup = app.backupState
      return {
        status: 'ok',
        ...(replica ? { replica: { state: replica.state, lag_ms: replica.lagMs } } : {}),
        ...(backup
          ? {
              backup: {
                last_at: backup.lastAt?.toISOString() ?? null,
                size_bytes: backup.lastBytes,
                ok: backup.lastError === null,
              },
            }
          : {}),
      }
    } catch (err) {
      request.log.warn({ err }, 'readiness check failed')
      reply.header('retry-after', String(RETRY_AFTER_SECONDS))
      return sendError(request, reply, 503)
    }
  })
}

export default health
