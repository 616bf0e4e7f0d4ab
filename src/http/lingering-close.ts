// An answer given before the request's body has all arrived (413 over the body limit, 415
// for another content type, whose body is never read) must reach a client that is still
// sending. Closing the connection then leaves unread bytes in the socket, the
// kernel answers them with a reset, and a client that writes its whole body before reading
// gets EPIPE and never sees the answer. So, as nginx's lingering close: the answer goes
// first, with `Connection: close`; then the write side is shut (FIN) and the rest of the
// body is read and dropped until it ends, for at most `ms` and `bytes`; then the connection
// is closed. Past a bound the close may reset the connection: a client that reads while it
// sends (curl, browsers, undici) still has the answer; one that only reads after sending
// everything does not. docs/api-conventions.md ("Edges outside the routes") says the same.
import type { IncomingMessage, ServerResponse } from 'node:http'
import { Socket } from 'node:net'
import type { FastifyPluginCallback } from 'fastify'
import fp from 'fastify-plugin'

export interface LingerBounds {
  /** Longest time spent reading the rest of a refused body after the answer. */
  ms: number
  /** Most bytes of it read and dropped. */
  bytes: number
}

/** Ten seconds is ample for a body already on its way (256 MiB takes 2 s at 1 Gbit/s); nginx lingers 30 s at most. */
export const LINGER: LingerBounds = { ms: 10_000, bytes: 256 * 1024 * 1024 }

// Connections in a lingering close: a request that still follows on one (pipelined after
// the refused body) is not served, as its answer could not be sent.
const lingering = new WeakSet<Socket>()

/** The request declared a body (Content-Length > 0 or chunked) that has not all arrived. */
function bodyStillComing(req: IncomingMessage): boolean {
  if (req.complete) return false
  return req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0
}

/**
 * Node's server ends a connection whose answer says `Connection: close` with
 * `socket.destroySoon()` once the answer is written: destroy as soon as the output is flushed.
 * This socket's own `destroySoon` lingers instead while the request's body is still coming.
 */
function lingerOnClose(req: IncomingMessage, bounds: LingerBounds) {
  const socket = req.socket
  socket.destroySoon = () => {
    if (!bodyStillComing(req)) {
      Socket.prototype.destroySoon.call(socket)
      return
    }
    lingering.add(socket)
    // Node's parser reads the connection itself and drops the body of a request already
    // answered (no 'data' events): the socket's byte count says how much came.
    const start = socket.bytesRead
    const close = () => {
      clearTimeout(timer)
      clearInterval(watch)
      socket.destroy()
    }
    const timer = setTimeout(close, bounds.ms)
    const watch = setInterval(() => {
      if (socket.bytesRead - start > bounds.bytes) close()
    }, 50)
    socket.once('close', () => {
      clearTimeout(timer)
      clearInterval(watch)
    })
    socket.once('end', close) // the client closed its side: nothing more will come
    req.once('end', close) // the whole body was read: closing now resets nothing
    req.once('error', close)
    req.resume()
    socket.end()
  }
}

const CONTINUE = /(?:^|\W)100-continue(?:$|\W)/i // as Node matches it

/**
 * The hooks: an answer before the whole body becomes a close that lingers (`onSend`); a
 * body announced over the route's limit with `Expect: 100-continue` (curl sends it for
 * bodies over 1 MiB) is refused before the client sends it, as RFC 9110 10.1.1 means it to be.
 */
const lingeringClose: FastifyPluginCallback<{ bounds?: LingerBounds }> = (app, opts, done) => {
  const bounds = opts.bounds ?? LINGER
  // Node would send "100 Continue" at once; the route's limit is known only here.
  app.server.on('checkContinue', (req: IncomingMessage, res: ServerResponse) => {
    app.server.emit('request', req, res)
  })
  app.addHook('onRequest', (request, reply, next) => {
    if (lingering.has(request.raw.socket)) {
      reply.hijack()
      request.raw.socket.destroy()
      return
    }
    // Only where Node emitted checkContinue: HTTP/1.1 (an HTTP/1.0 client gets no 100).
    const expect = request.headers.expect
    const overLimit = Number(request.headers['content-length']) > request.routeOptions.bodyLimit
    if (expect !== undefined && request.raw.httpVersionMinor >= 1 && CONTINUE.test(expect) && !overLimit) {
      reply.raw.writeContinue()
    }
    next()
  })
  app.addHook('onSend', (request, reply, payload, next) => {
    if (bodyStillComing(request.raw)) {
      // Also on a keep-alive answer: Node would otherwise read the rest of any body, unbounded.
      reply.header('connection', 'close')
      lingerOnClose(request.raw, bounds)
    }
    next(null, payload)
  })
  done()
}

export default fp(lingeringClose, { name: 'lingering-close' })
