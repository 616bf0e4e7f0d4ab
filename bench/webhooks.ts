// npm run bench -- --webhooks: what webhooks cost the API's writes (issue 12: at most 15 %
// less throughput with 3 active subscriptions). POST /api/v1/contacts over ten companies, as
// in the side-by-side benchmark, in runs without subscriptions alternating with runs with 3
// per company to a fast local receiver (the delivery worker runs in the service process, as
// in production). Processes: the service (`--serve`), the receiver (`--receive`), and this
// one driving autocannon.
import { spawn, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { createInterface } from 'node:readline'
import autocannon from 'autocannon'
import pg from 'pg'

const seconds = Number(process.env.BENCH_SECONDS ?? 10)
/** Runs with subscriptions, each between two without (BENCH_WEBHOOK_ROUNDS). */
const rounds = Number(process.env.BENCH_WEBHOOK_ROUNDS ?? 2)
const connections = 32
const adminUrl = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres'
/** The service's master key (the benchmark encrypts the subscriptions' secrets with it). */
const MASTER_KEY = 'be7c'.repeat(16)
const self = new URL(import.meta.url).pathname

interface ServiceInfo {
  port: number
  tokens: string[]
  companyIds: number[]
}

async function child(mode: string, env: Record<string, string>): Promise<{ process: ChildProcess; line: string }> {
  const started = spawn(process.execPath, ['--import', 'tsx', self, mode], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  const [line] = (await once(createInterface({ input: started.stdout }), 'line')) as [string]
  return { process: started, line }
}

async function stop(started: ChildProcess) {
  const exited = once(started, 'exit')
  started.kill('SIGTERM')
  await exited
}

/** The service with its delivery worker, ten companies with a token each. */
async function serve() {
  const production = await import('./production.js')
  const { buildApp } = production.app
  const { loadConfig } = production.config
  const { createToken } = production.tokens
  const { createCompany, createUser } = production.users
  const { systemActing } = production.auditContext
  const base = loadConfig()
  const app = await buildApp({ ...base, logLevel: 'warn', rateLimit: { ...base.rateLimit, max: 100_000_000 } }, { webhookWorker: true })
  const tokens: string[] = []
  const companyIds: number[] = []
  for (let i = 0; i < 10; i++) {
    const company = await createCompany(app.db, systemActing(), { name: `Hooks ${String(i)}`, timezone: 'UTC' })
    const user = await createUser(app.db, systemActing(), { company: company.id, name: 'Writer', email: `writer${String(i)}@hooks.example`, role: 'admin' })
    tokens.push((await createToken(app.db, systemActing(), user.id)).token)
    companyIds.push(company.id)
  }
  await app.listen({ port: 0, host: '127.0.0.1' })
  process.stdout.write(JSON.stringify({ port: (app.server.address() as AddressInfo).port, tokens, companyIds }) + '\n')
  process.on('SIGTERM', () => {
    void app.close().then(() => process.exit(0))
  })
}

/** A receiver that answers 204 at once and counts what it got (GET /count). */
async function receive() {
  let count = 0
  const server = http.createServer((request, response) => {
    if (request.method === 'GET') {
      response.end(String(count))
      return
    }
    request.resume()
    request.on('end', () => {
      count++
      response.statusCode = 204
      response.end()
    })
  })
  server.keepAliveTimeout = 30_000
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  process.stdout.write(JSON.stringify({ port: (server.address() as AddressInfo).port }) + '\n')
  process.on('SIGTERM', () => process.exit(0))
}

function writes(tokens: string[]): autocannon.Options['requests'] {
  let n = 0
  const run = Date.now()
  return [
    {
      method: 'POST',
      setupRequest: (request) => {
        const i = n++
        return {
          ...request,
          headers: { ...request.headers, 'content-type': 'application/json', authorization: `Bearer ${tokens[i % tokens.length] ?? ''}` },
          body: JSON.stringify({ first_name: 'Writer', last_name: `Number ${String(i)}`, email: `h${String(run)}.${String(i)}@hooks.example`, business: `Business ${String(i % 20)}`, stage: 'lead' }),
        }
      },
    },
  ]
}

interface Row {
  scenario: string
  rps: number
  p50: number
  p99: number
  errors: number
}

async function measure(scenario: string, url: string, tokens: string[]): Promise<Row> {
  await autocannon({ url, connections, requests: writes(tokens), duration: 2 })
  const result = await autocannon({ url, connections, requests: writes(tokens), duration: seconds })
  return { scenario, rps: Math.round(result.requests.average), p50: result.latency.p50, p99: result.latency.p99, errors: result.errors + result.non2xx }
}

export async function runWebhooks() {
  const { encryptSecret, newSigningSecret } = await import('../src/modules/webhooks/secrets.js')
  const { secretKeys } = await import('../src/secret-key.js')
  const dbName = `engage_bench_hooks_${String(Date.now())}`
  const admin = new pg.Client({ connectionString: adminUrl })
  await admin.connect()
  await admin.query(`CREATE DATABASE ${dbName}`)
  const benchUrl = new URL(adminUrl)
  benchUrl.pathname = `/${dbName}`
  const sql = new pg.Client({ connectionString: benchUrl.toString() })
  let service: ChildProcess | undefined
  let receiver: ChildProcess | undefined
  try {
    const receiving = await child('--receive', {})
    receiver = receiving.process
    const hooks = JSON.parse(receiving.line) as { port: number }
    const serving = await child('--serve', { DATABASE_URL: benchUrl.toString(), WEBHOOK_SECRET_KEY: MASTER_KEY, WEBHOOK_ALLOW_PRIVATE: 'true' })
    service = serving.process
    const info = JSON.parse(serving.line) as ServiceInfo
    await sql.connect()
    const url = `http://127.0.0.1:${String(info.port)}/api/v1/contacts`
    const received = async () => Number(await (await fetch(`http://127.0.0.1:${String(hooks.port)}/count`)).text())
    const counts = async () =>
      (await sql.query<{ events: number; deliveries: number; pending: number }>(
        `select (select count(*)::int from api_events) as events, (select count(*)::int from webhook_deliveries) as deliveries,
                (select count(*)::int from webhook_deliveries where status = 'pending')
                + (select count(*)::int from api_event_outbox) as pending`,
      )).rows[0]

    const key = secretKeys(Buffer.from(MASTER_KEY, 'hex')).derive('webhook secrets')
    for (const companyId of info.companyIds) {
      for (let k = 0; k < 3; k++) {
        await sql.query('insert into webhook_subscriptions (company_id, url, events, secret, enabled) values ($1, $2, $3, $4, false)', [
          companyId, `http://127.0.0.1:${String(hooks.port)}/hook/${String(k)}`, ['*'], encryptSecret(key, newSigningSecret()),
        ])
      }
    }

    // Alternating runs (the machine drifts, the table grows), each after the previous
    // run's deliveries are all made, so a backlog never weighs on the next run.
    const rows: (Row & { delivered: number; backlog: number; drainS: number })[] = []
    for (let round = 0; round < rounds * 2 + 1; round++) {
      const subscribed = round % 2 === 1
      await sql.query('update webhook_subscriptions set enabled = $1', [subscribed])
      const before = await received()
      const row = await measure(subscribed ? '3 subscriptions per company' : 'no subscriptions', url, info.tokens)
      const delivered = (await received()) - before
      const backlog = (await counts())?.pending ?? 0
      const drainStart = Date.now()
      while (((await counts())?.pending ?? 0) > 0 && Date.now() - drainStart < 300_000) await new Promise((resolve) => setTimeout(resolve, 250))
      rows.push({ ...row, delivered, backlog, drainS: Math.round((Date.now() - drainStart) / 100) / 10 })
    }

    const mean = (subscribed: boolean) => {
      const picked = rows.filter((r) => r.scenario.startsWith('3') === subscribed)
      return picked.reduce((sum, r) => sum + r.rps, 0) / picked.length
    }
    const drop = Math.round((1 - mean(true) / mean(false)) * 1000) / 10
    const after = await counts()
    console.log(`\nengage bench --webhooks: POST /api/v1/contacts, ${String(connections)} connections over ten companies, ${String(seconds)} s per row after a 2 s warm-up`)
    console.table(rows.map((r) => ({
      scenario: r.scenario, 'req/s': r.rps, 'p50 ms': r.p50, 'p99 ms': r.p99, errors: r.errors,
      'delivered during the run': r.delivered, 'pending at its end': r.backlog, 'drained in s': r.drainS,
    })))
    console.log(`throughput with 3 subscriptions: ${String(drop)} % below the runs without (goal ≤ 15 %: ${drop <= 15 ? 'met' : 'NOT met'})`)
    console.log(`events ${String(after?.events)}, deliveries ${String(after?.deliveries)}, still pending ${String(after?.pending)}, received ${String(await received())}`)
  } finally {
    if (service) await stop(service)
    if (receiver) await stop(receiver)
    await sql.end().catch(() => undefined)
    await admin.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`)
    await admin.end()
  }
}

const mode = process.argv[2]
if (mode === '--serve') await serve()
else if (mode === '--receive') await receive()
