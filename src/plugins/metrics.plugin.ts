// Prometheus metrics (docs/operating.md, "Metrics"), served on a port of their own
// (METRICS_PORT), never on the API's, and behind a bearer token when METRICS_TOKEN is set.
// Requests are labelled by route pattern, method and status, never by raw path, so a scan
// of random paths adds no series. Registered only when METRICS_PORT is set: without it no
// hook runs.
import { createHash, timingSafeEqual } from 'node:crypto'
import { createServer, type Server } from 'node:http'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import pg from 'pg'
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client'
import { webhookBacklog } from '../modules/webhooks/index.js'
import { sharedRegistry } from '../metrics/shared.js'

export interface MetricsOptions {
  port: number
  host: string
  /** METRICS_TOKEN: the bearer token a scrape must send; none when unset. */
  token: string | undefined
}

/** Methods a route can have; anything else is one label value. */
const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'])
/** What a refused sign-in answered (POST /login), as the refusal's reason. */
const SIGN_IN_REFUSALS: Record<number, string> = { 401: 'invalid_credentials', 409: 'ambiguous', 422: 'invalid_input', 429: 'rate_limited' }
/** A scrape waits this long for the database's answers before it reports without them. */
const SCRAPE_DB_TIMEOUT_MS = 1000

const routeOf = (request: FastifyRequest) => request.routeOptions.url ?? 'unmatched'
const digest = (text: string) => createHash('sha256').update(text).digest()

function within<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  return Promise.race([
    promise,
    new Promise<never>((_resolve, reject) => {
      timer = setTimeout(() => {
        reject(new Error('the database did not answer in time'))
      }, ms)
    }),
  ]).finally(() => {
    clearTimeout(timer)
  })
}

async function metrics(app: FastifyInstance, options: MetricsOptions) {
  const registry = new Registry()
  collectDefaultMetrics({ register: registry, prefix: 'engage_' })
  const labelNames = ['route', 'method', 'status'] as const
  const requests = new Counter({ name: 'engage_http_requests_total', help: 'HTTP requests answered, by route pattern, method and status', labelNames, registers: [registry] })
  const durations = new Histogram({
    name: 'engage_http_request_duration_seconds',
    help: 'Time from the request to its answer, by route pattern, method and status',
    labelNames,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  })
  const rateLimited = new Counter({ name: 'engage_rate_limited_total', help: 'Requests refused with 429 by a rate limit, by route pattern', labelNames: ['route'], registers: [registry] })
  const signInRefusals = new Counter({ name: 'engage_sign_in_refusals_total', help: 'Refused web sign-ins, by reason', labelNames: ['reason'], registers: [registry] })

  const pool = app.db instanceof pg.Pool ? app.db : undefined
  new Gauge({
    name: 'engage_db_pool_connections',
    help: 'Connections of the database pool, by state (busy: checked out or running a statement)',
    labelNames: ['state'],
    registers: [registry],
    collect() {
      if (!pool) return
      this.set({ state: 'idle' }, pool.idleCount)
      this.set({ state: 'busy' }, pool.totalCount - pool.idleCount)
    },
  })
  new Gauge({
    name: 'engage_db_pool_waiting',
    help: 'Requests waiting for a connection of the database pool',
    registers: [registry],
    collect() {
      if (pool) this.set(pool.waitingCount)
    },
  })
  new Gauge({
    name: 'engage_database_up',
    help: 'Whether the database answered at the scrape (1) or not (0), by kind: embedded (the cluster under DATA_DIR) or postgres (DATABASE_URL)',
    labelNames: ['kind'],
    registers: [registry],
    async collect() {
      const up = await within(app.database.ping(), SCRAPE_DB_TIMEOUT_MS).then(() => 1, () => 0)
      this.set({ kind: app.database.kind }, up)
    },
  })
  let backlog: Promise<Awaited<ReturnType<typeof webhookBacklog>> | undefined> | undefined
  /** One backlog read per scrape, shared by the two gauges that show it. */
  const readBacklog = () => (backlog ??= within(webhookBacklog(app.db, app.clock()), SCRAPE_DB_TIMEOUT_MS).catch(() => undefined).finally(() => setImmediate(() => (backlog = undefined))))
  new Gauge({
    name: 'engage_webhook_backlog',
    help: 'Webhook work not done yet: events not yet fanned out to their subscriptions (events) and deliveries not yet delivered (deliveries)',
    labelNames: ['stage'],
    registers: [registry],
    async collect() {
      const read = await readBacklog()
      if (!read) return
      this.set({ stage: 'events' }, read.events)
      this.set({ stage: 'deliveries' }, read.deliveries)
    },
  })
  new Gauge({
    name: 'engage_webhook_oldest_undelivered_seconds',
    help: 'Age of the oldest webhook delivery not yet delivered (0 when none waits)',
    registers: [registry],
    async collect() {
      const read = await readBacklog()
      if (read) this.set(read.oldestSeconds)
    },
  })

  app.addHook('onResponse', async (request, reply) => {
    const route = routeOf(request)
    const labels = { route, method: METHODS.has(request.method) ? request.method : 'OTHER', status: String(reply.statusCode) }
    requests.inc(labels)
    durations.observe(labels, reply.elapsedTime / 1000)
    if (reply.statusCode === 429) rateLimited.inc({ route })
    const refusal = SIGN_IN_REFUSALS[reply.statusCode]
    if (refusal && route === '/login' && request.method === 'POST') signInRefusals.inc({ reason: refusal })
  })

  const scraped = Registry.merge([registry, sharedRegistry])
  const expected = options.token === undefined ? undefined : digest(`Bearer ${options.token}`)
  const server: Server = createServer((req, res) => {
    if (req.url !== '/metrics' || (req.method !== 'GET' && req.method !== 'HEAD')) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('Not found: metrics are at GET /metrics\n')
      return
    }
    if (expected && !timingSafeEqual(digest(req.headers.authorization ?? ''), expected)) {
      res.writeHead(401, { 'content-type': 'text/plain', 'www-authenticate': 'Bearer realm="engage metrics"' }).end('Unauthorized: send METRICS_TOKEN as a bearer token\n')
      return
    }
    scraped.metrics().then(
      (text) => {
        res.writeHead(200, { 'content-type': scraped.contentType, 'cache-control': 'no-store' }).end(req.method === 'HEAD' ? undefined : text)
      },
      (err: unknown) => {
        app.log.error({ err }, 'metrics: the scrape failed')
        res.writeHead(500, { 'content-type': 'text/plain' }).end('The metrics could not be collected; see the service log\n')
      },
    )
  })
  app.addHook('onReady', async () => {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject)
      server.listen(options.port, options.host, () => {
        server.off('error', reject)
        resolve()
      })
    })
  })
  app.addHook('onClose', async () => {
    if (!server.listening) return
    server.closeAllConnections()
    await new Promise<void>((resolve) => {
      server.close(() => {
        resolve()
      })
    })
  })
  app.decorate('metricsServer', server)
}

declare module 'fastify' {
  interface FastifyInstance {
    /** The metrics listener (METRICS_PORT); its address tells a test where to scrape. */
    metricsServer?: Server
  }
}

export default fp(metrics, { name: 'metrics' })
