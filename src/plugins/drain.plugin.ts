// Draining before a shutdown in a fleet: once drain() is called, /readyz answers 503 so the
// load balancer takes the instance out of rotation, while every other request is still
// served (server.ts waits SHUTDOWN_DRAIN_MS before closing). Answers sent during the drain
// carry `Connection: close`, so kept-alive connections (a balancer's included) move elsewhere;
// and the idle ones are closed as the drain starts, since the close after it would destroy
// them under a request just sent on one (a reset instead of an answer).
import fp from 'fastify-plugin'

declare module 'fastify' {
  interface FastifyInstance {
    /** Starts draining: /readyz answers 503 from now on. */
    drain(): void
    /** Whether drain() was called. */
    readonly draining: boolean
  }
}

export default fp(
  (app, _options, done) => {
    let draining = false
    app.decorate('drain', () => {
      draining = true
      app.server.closeIdleConnections()
    })
    app.decorate('draining', {
      getter: () => draining,
    })
    // At sending, not at arriving: a request that came before the drain is its connection's last too.
    app.addHook('onSend', async (_request, reply) => {
      if (draining) reply.header('connection', 'close')
    })
    done()
  },
  { name: 'drain' },
)
