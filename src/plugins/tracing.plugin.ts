// A server span per request (src/tracing.ts), named by method and route pattern, the
// statements and deliveries of the request as its children. Registered only when tracing is on.
import type { Span } from '@opentelemetry/api'
import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import { endServerSpan, startServerSpan, withContext } from '../tracing.js'

declare module 'fastify' {
  interface FastifyRequest {
    traceSpan?: Span
  }
}

async function tracing(app: FastifyInstance) {
  app.addHook('onRequest', (request, _reply, done) => {
    const route = request.routeOptions.url ?? 'unmatched'
    const started = startServerSpan(`${request.method} ${route}`, request.headers, { 'http.request.method': request.method, 'http.route': route })
    if (!started) {
      done()
      return
    }
    request.traceSpan = started.span
    withContext(started.context, done)
  })
  app.addHook('onResponse', async (request, reply) => {
    if (request.traceSpan) endServerSpan(request.traceSpan, reply.statusCode)
  })
  app.addHook('onError', async (request, _reply, err) => {
    request.traceSpan?.recordException(err)
  })
}

export default fp(tracing, { name: 'tracing' })
