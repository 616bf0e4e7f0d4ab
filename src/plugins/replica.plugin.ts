// Read-replica routing for API requests (src/db/replica.ts): every request runs in a read
// context that learns its caller after authentication, so the statements marked `replica`
// know whose writes they must see; a write request by a token notes the primary's WAL
// position before its answer leaves (a request with an Idempotency-Key: after its COMMIT,
// which src/plugins/idempotency.plugin.ts makes in a later onSend hook, and notes there), so that
// token's next reads wait for the replica to have replayed it (or go to the primary). With
// REDIS_URL too, the position is shared, and each request first learns its token's writes
// through the other instances (one Redis GET; none without Redis). Without
// DATABASE_REPLICA_URL: nothing is added.
import fp from 'fastify-plugin'
import { runWithReadContext, setReadCaller } from '../db/replica.js'

const READS = new Set(['GET', 'HEAD', 'OPTIONS'])

export default fp(
  (app, _options, done) => {
    if (!app.database.replica?.()) {
      done()
      return
    }
    app.addHook('onRequest', (_request, _reply, next) => {
      runWithReadContext(next)
    })
    app.addHook('preHandler', async (request) => {
      const caller = request.caller as typeof request.caller | null
      if (caller) {
        setReadCaller(caller.tokenId)
        await app.database.learnWrites?.(caller.tokenId)
      }
    })
    app.addHook('onSend', async (request, reply) => {
      const caller = request.caller as typeof request.caller | null
      if (caller && !READS.has(request.method) && reply.statusCode < 400 && request.idempotencyClaim === null) {
        // The write is done and answered either way; a primary that does not answer here
        // fails the token's next request too.
        await app.database.noteWrite?.(caller.tokenId).catch((err: unknown) => {
          request.log.warn({ err }, 'could not note the write for read-your-writes')
        })
      }
    })
    done()
  },
  { name: 'replica', dependencies: ['db'] },
)
