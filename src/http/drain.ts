// Shutdown order: the database pool and the rate limiter close only once every request in
// flight has been answered. Fastify runs the plugins' onClose hooks while its HTTP server is
// still finishing those requests, so the hooks that close what requests use wait here first
// (close-with-grace's delay bounds the wait).
import type { Server } from 'node:http'
import { setTimeout as sleep } from 'node:timers/promises'

function openConnections(server: Server): Promise<number> {
  return new Promise((resolve) => {
    server.getConnections((err, count) => {
      resolve(err ? 0 : count)
    })
  })
}

/** Resolves when the server has no connection left (at once for an app that never listened). */
export async function requestsDrained(server: Server): Promise<void> {
  while ((await openConnections(server)) > 0) await sleep(20)
}
