// Shared by the delivery tests: a real receiver on 127.0.0.1, subscriptions inserted as rows
// (secrets encrypted as the service stores them) and events recorded through the outbox.
import { once } from 'node:events'
import http, { type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import pg from 'pg'
import { encryptSecret, newSigningSecret } from '../../src/modules/webhooks/secrets.js'

export interface Received {
  headers: IncomingHttpHeaders
  body: string
  at: number
}

export type Handler = (request: IncomingMessage, response: ServerResponse, received: Received) => void

export interface Receiver {
  url: string
  port: number
  received: Received[]
  /** TCP connections accepted so far. */
  connections: number
  handler: Handler
  close(): Promise<void>
}

export const ok: Handler = (_request, response) => {
  response.end('ok')
}

/** An HTTP server on 127.0.0.1 that records every request, then lets `handler` answer. */
export async function startReceiver(handler: Handler = ok, port = 0): Promise<Receiver> {
  const receiver: Receiver = {
    url: '',
    port: 0,
    received: [],
    connections: 0,
    handler,
    close: () => Promise.resolve(),
  }
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = []
    request.on('data', (chunk: Buffer) => chunks.push(chunk))
    request.on('end', () => {
      const received = { headers: request.headers, body: Buffer.concat(chunks).toString('utf8'), at: Date.now() }
      receiver.received.push(received)
      receiver.handler(request, response, received)
    })
  })
  server.on('connection', () => {
    receiver.connections++
  })
  server.listen(port, '127.0.0.1')
  await once(server, 'listening')
  receiver.port = (server.address() as AddressInfo).port
  receiver.url = `http://127.0.0.1:${String(receiver.port)}/hook`
  receiver.close = async () => {
    server.closeAllConnections()
    server.close()
    await once(server, 'close')
  }
  return receiver
}

export interface Subscription {
  id: number
  secret: string
}

/** A subscription row, its secret encrypted with `key` (the app's 'webhook secrets' key). */
export async function subscribe(
  sql: pg.Pool,
  key: Buffer,
  companyId: number,
  url: string,
  options: { events?: string[]; previousSecret?: string; previousExpiresAt?: Date } = {},
): Promise<Subscription> {
  const secret = newSigningSecret()
  const { rows } = await sql.query<{ id: number }>(
    `insert into webhook_subscriptions (company_id, url, events, secret, previous_secret, previous_secret_expires_at)
     values ($1, $2, $3, $4, $5, $6) returning id`,
    [
      companyId,
      url,
      options.events ?? ['*'],
      encryptSecret(key, secret),
      options.previousSecret ? encryptSecret(key, options.previousSecret) : null,
      options.previousExpiresAt ?? null,
    ],
  )
  const id = rows[0]?.id
  if (id === undefined) throw new Error('no subscription')
  return { id, secret }
}

export interface DeliveryRow {
  id: number
  subscription_id: number
  event_id: number
  status: string
  attempts: number
  next_attempt_at: Date | null
  last_attempt_at: Date | null
  first_attempt_at: Date | null
  last_response_status: number | null
  last_error: string | null
  delivered_at: Date | null
}

export async function deliveries(sql: pg.Pool, subscriptionId: number): Promise<DeliveryRow[]> {
  const { rows } = await sql.query<DeliveryRow>(
    `select id, subscription_id, event_id, status, attempts, next_attempt_at, last_attempt_at, first_attempt_at,
            last_response_status, last_error, delivered_at
       from webhook_deliveries where subscription_id = $1 order by id`,
    [subscriptionId],
  )
  return rows
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

/** Polls `check` until it holds; throws with `what` after timeoutMs. */
export async function until(what: string, check: () => boolean | Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await sleep(10)
  }
}
