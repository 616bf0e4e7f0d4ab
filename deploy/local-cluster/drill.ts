// npm run drill:cluster: the local cluster (cluster.ts) under load while its parts fail, then
// checks that nothing was lost or seen wrong. docs/deploying.md, "The drill", says what each
// phase and check means and holds the last results.
//
// Load: 64 clients, each with its own token (a user of one of 10 companies), through HAProxy.
// A client creates contacts and meet transcriptions (each with an Idempotency-Key, retried
// with the same key until acknowledged, as a careful integrator would; a transcription has no
// unique field, so a create run twice would leave a duplicate), and after each acknowledged
// create reads its own contacts' count, or the transcription, at once (read-your-writes);
// between creates it reads a contacts page or one of its contacts. Each client sends at most 5 requests a second, under the rate limit
// (60 in 10 s per token), so a 429 in the load means the limit went wrong.
import { createHmac, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto'
import { createServer, type IncomingMessage } from 'node:http'
import { setTimeout as sleep } from 'node:timers/promises'
import pg from 'pg'
import { runCli } from '../../src/cli/run.js'
import { schemaVersion } from '../../src/db/migrate.js'
import { buildPreviousRelease, PREVIOUS_RELEASE } from '../../test/helpers/previous-release.js'
import { down, INSTANCES, restartPgbouncer, start, stop, up, urls, useBuild, type Part, type State } from './cluster.js'

const COMPANIES = 10
const CLIENTS = 64
/** At most one request per client every this long: 5 a second, 50 in the 10 s window of 60. */
const MIN_SPACING_MS = 200
/** A write is retried (same Idempotency-Key) until acknowledged, for at most this long. */
const WRITE_DEADLINE_MS = 60_000

const say = (line: string) => process.stdout.write(`${line}\n`)

/** The events of the creates, each announced once per acknowledged create. */
const CREATED = ['contact.created', 'meet_transcription.created'] as const

// ---- Setup through the admin command line ----

async function admin(state: State, args: string[]): Promise<Record<string, unknown>> {
  let out = ''
  let err = ''
  const code = await runCli([...args, '--json'], {
    stdout: (text) => (out += text),
    stderr: (text) => (err += text),
    env: { DATABASE_URL: urls(state).primary, LOG_LEVEL: 'silent' },
  })
  if (code !== 0) throw new Error(`admin ${args.join(' ')}: ${err}`)
  return JSON.parse(out) as Record<string, unknown>
}

interface Client {
  index: number
  companyId: number
  userId: number
  token: string
  admin: boolean
  /** Contacts this client created, acknowledged (201): id → email. */
  acknowledged: Map<number, string>
  /** Meet transcriptions this client created, acknowledged (201): id → meet_id. */
  transcriptions: Map<number, string>
}

// ---- Counting answers per phase ----

interface Tally {
  sent: number
  ok: number
  limited: number
  unavailable: number
  other: number
  otherKinds: Map<string, number>
}
const newTally = (): Tally => ({ sent: 0, ok: 0, limited: 0, unavailable: 0, other: 0, otherKinds: new Map() })
const phases: { name: string; tally: Tally; seconds: number }[] = []
let current: Tally = newTally()

function count(status: number | string): void {
  current.sent++
  if (typeof status === 'number' && status >= 200 && status < 300) current.ok++
  else if (status === 429) current.limited++
  else if (status === 503) current.unavailable++
  else {
    current.other++
    const kind = String(status)
    current.otherKinds.set(kind, (current.otherKinds.get(kind) ?? 0) + 1)
  }
}

interface Answer {
  status: number
  body: unknown
}

/** One request through `base`; a network failure counts as "other" and answers status 0. */
async function call(base: string, token: string, method: string, path: string, body?: object, headers: Record<string, string> = {}): Promise<Answer> {
  try {
    const res = await fetch(`${base}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}), ...headers },
      body: body ? JSON.stringify(body) : null,
      signal: AbortSignal.timeout(20_000),
    })
    const text = await res.text()
    count(res.status)
    let parsed: unknown = undefined
    try {
      parsed = text ? JSON.parse(text) : undefined
    } catch {
      parsed = text
    }
    return { status: res.status, body: parsed }
  } catch (err) {
    const cause = (err as { cause?: { code?: string } }).cause?.code ?? (err as Error).name
    count(`network ${cause}`)
    return { status: 0, body: undefined }
  }
}

// ---- The load ----

const violations: string[] = []
const unacknowledged: string[] = []
let stopping = false
const isStopping = () => stopping

async function clientLoop(base: string, client: Client): Promise<void> {
  let last = 0
  let n = 0
  const paced = async () => {
    const wait = last + MIN_SPACING_MS - performance.now()
    if (wait > 0) await sleep(wait)
    last = performance.now()
  }
  const mine = { user_id: client.userId }
  /** The id a create answered, retried with its key until acknowledged; undefined when it never was. */
  const create = async (path: string, body: object): Promise<number | undefined> => {
    const key = randomUUID()
    const started = performance.now()
    while (performance.now() - started < WRITE_DEADLINE_MS) {
      await paced()
      const res = await call(base, client.token, 'POST', path, body, { 'idempotency-key': key })
      if (res.status === 201) return (res.body as { id: number }).id
      // The key's first request still runs, or was cut off (its claim is taken over once
      // abandoned, docs/integrators.md): as Retry-After says, a second later.
      if (res.status === 409) await sleep(1000)
      else if (res.status >= 400 && res.status < 500 && res.status !== 429) {
        violations.push(`client ${client.index}: POST ${path} answered ${res.status} ${JSON.stringify(res.body)}`)
        return undefined
      }
    }
    return undefined
  }
  while (!stopping) {
    const roll = Math.random()
    if (roll < 0.2) {
      // A meet transcription: no unique field, so only the key keeps a retry from creating another.
      const meetId = `m${client.index}-${n++}-${randomBytes(3).toString('hex')}`
      const id = await create('/api/v1/meet_transcriptions', { company_id: client.companyId, user_id: client.userId, meet_id: meetId })
      if (id === undefined) {
        unacknowledged.push(meetId)
        return
      }
      client.transcriptions.set(id, meetId)
      for (;;) {
        await paced()
        const res = await call(base, client.token, 'GET', `/api/v1/meet_transcriptions/${id}`)
        if (res.status === 404) violations.push(`client ${client.index}: its acknowledged transcription ${id} answered 404 right after its write`)
        if (res.status !== 200 && res.status !== 404 && !isStopping()) continue
        break
      }
    } else if (roll < 0.4) {
      // A contact (a unique email).
      const email = `c${client.index}-${n++}-${randomBytes(3).toString('hex')}@drill.example`
      const id = await create('/api/v1/contacts', { first_name: 'Drill', last_name: String(client.index), email })
      if (id === undefined) {
        unacknowledged.push(email)
        return // this client's own count is unknown from now on: it stops (reported as a failure)
      }
      client.acknowledged.set(id, email)
      // Read-your-writes: the count of this client's contacts, at once, through HAProxy
      // (any instance; a list read that may use the replica).
      for (;;) {
        await paced()
        const res = await call(base, client.token, 'GET', `/api/v1/contacts?user_id=${mine.user_id}&per_page=1&page=1`)
        if (res.status !== 200) {
          if (isStopping()) break
          continue
        }
        const total = (res.body as { meta: { total_count: number } }).meta.total_count
        if (total !== client.acknowledged.size) {
          violations.push(`client ${client.index}: read ${total} own contacts right after its write #${client.acknowledged.size} (contact ${id})`)
        }
        break
      }
    } else if (roll < 0.7 || client.acknowledged.size === 0) {
      await paced()
      const page = 1 + Math.floor(Math.random() * 5)
      await call(base, client.token, 'GET', `/api/v1/contacts?page=${page}&per_page=25`)
    } else {
      await paced()
      const ids = [...client.acknowledged.keys()]
      const id = ids[Math.floor(Math.random() * ids.length)] ?? 0
      const res = await call(base, client.token, 'GET', `/api/v1/contacts/${id}`)
      if (res.status === 404) violations.push(`client ${client.index}: its acknowledged contact ${id} answered 404`)
    }
  }
}

// ---- The webhook receiver ----

interface Receiver {
  url: string
  /** Deliveries received, by webhook-id. */
  seen: Map<string, number>
  badSignatures: number
  secrets: Map<number, string>
  close(): Promise<void>
}

function verify(secret: string, req: IncomingMessage, body: string): boolean {
  const id = String(req.headers['webhook-id'])
  const timestamp = String(req.headers['webhook-timestamp'])
  const key = Buffer.from(secret.slice('whsec_'.length), 'base64')
  const expected = Buffer.from(`v1,${createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64')}`)
  return String(req.headers['webhook-signature'])
    .split(' ')
    .some((s) => s.length === expected.length && timingSafeEqual(Buffer.from(s), expected))
}

async function startReceiver(): Promise<Receiver> {
  const seen = new Map<string, number>()
  const secrets = new Map<number, string>()
  const receiver = { seen, secrets, badSignatures: 0 }
  const server = createServer((req, res) => {
    let body = ''
    req.setEncoding('utf8')
    req.on('data', (chunk: string) => {
      body += chunk
    })
    req.on('end', () => {
      const company = Number(req.url?.split('/').pop())
      const secret = secrets.get(company)
      if (!secret || !verify(secret, req, body)) receiver.badSignatures++
      else {
        const id = String(req.headers['webhook-id'])
        seen.set(id, (seen.get(id) ?? 0) + 1)
      }
      res.writeHead(204).end()
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const address = server.address()
  const port = typeof address === 'object' && address ? address.port : 0
  return Object.assign(receiver, {
    url: `http://127.0.0.1:${port}/hooks`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => {
          resolve()
        })
      }),
  })
}

// ---- The phases ----

async function phase(name: string, action: () => Promise<void>): Promise<void> {
  const started = performance.now()
  current = newTally()
  say(`phase: ${name}`)
  await action()
  phases.push({ name, tally: current, seconds: Math.round((performance.now() - started) / 1000) })
}

async function waitHealthy(state: State, name: Part): Promise<void> {
  // HAProxy sends it requests again after 2 good checks 500 ms apart.
  await start(state, name)
  await sleep(1500)
}

function table(): string {
  const header = ['phase', 's', 'sent', '2xx', '429', '503', 'other']
  const cells = (name: string, seconds: number, t: Omit<Tally, 'otherKinds'>, kinds = '') => [name, String(seconds), String(t.sent), String(t.ok), String(t.limited), String(t.unavailable), `${t.other}${kinds}`]
  const rows = phases.map(({ name, tally, seconds }) => cells(name, seconds, tally, tally.other ? ` (${[...tally.otherKinds].map(([kind, n]) => `${kind}: ${n}`).join(', ')})` : ''))
  const sum = (key: 'sent' | 'ok' | 'limited' | 'unavailable' | 'other') => phases.reduce((total, { tally }) => total + tally[key], 0)
  rows.push(cells('total', phases.reduce((total, p) => total + p.seconds, 0), { sent: sum('sent'), ok: sum('ok'), limited: sum('limited'), unavailable: sum('unavailable'), other: sum('other') }))
  const all = [header, ...rows]
  const widths = header.map((_, i) => Math.max(...all.map((row) => (row[i] ?? '').length)))
  const line = (row: string[]) => `| ${row.map((cell, i) => (i === 0 ? cell.padEnd(widths[i] ?? 0) : cell.padStart(widths[i] ?? 0))).join(' | ')} |`
  const rule = `|${widths.map((w, i) => (i === 0 ? '-'.repeat(w + 2) : `${'-'.repeat(w + 1)}:`)).join('|')}|`
  return [line(header), rule, ...rows.map(line)].join('\n')
}

// ---- The checks ----

const results: { check: string; pass: boolean; detail: string }[] = []
function check(name: string, pass: boolean, detail: string): void {
  results.push({ check: name, pass, detail })
}

async function rateLimitCheck(state: State, token: string): Promise<void> {
  // 100 requests, 10 at a time, spread over the three instances directly: exactly 60 pass.
  const bases = INSTANCES.map((name) => urls(state).instance(name))
  const statuses: number[] = []
  const base = (i: number) => bases[i % bases.length] ?? ''
  const started = performance.now()
  current = newTally()
  for (let batch = 0; batch < 10; batch++) {
    const answers = await Promise.all(Array.from({ length: 10 }, (_, i) => call(base(batch * 10 + i), token, 'GET', '/api/v1/contacts?page=1&per_page=1')))
    statuses.push(...answers.map((answer) => answer.status))
  }
  const seconds = (performance.now() - started) / 1000
  const ok = statuses.filter((s) => s >= 200 && s < 300).length
  const limited = statuses.filter((s) => s === 429).length
  check('rate limit exact across the 3 instances', ok === 60 && limited === 40 && seconds < 10, `100 requests in ${seconds.toFixed(1)} s: ${ok} 2xx, ${limited} 429, ${100 - ok - limited} other`)
}

async function main(): Promise<number> {
  const started = performance.now()
  // The instances start on the previous release; the rolling upgrade phase replaces them with this build.
  const previous = buildPreviousRelease(PREVIOUS_RELEASE, say)
  say(`drill: bringing the cluster up, its instances on the previous release (${PREVIOUS_RELEASE})`)
  const state = await up({ log: say, previous: previous.dir })
  const receiver = await startReceiver()
  const primary = new pg.Pool({ connectionString: urls(state).primary, max: 2 })
  try {
    const base = urls(state).haproxy
    say(`drill: ${COMPANIES} companies, ${CLIENTS} clients (users and tokens through the admin command line)`)
    const clients: Client[] = []
    const companies: number[] = []
    for (let c = 0; c < COMPANIES; c++) {
      companies.push((await admin(state, ['company', 'create', '--name', `Drill ${c + 1}`])).id as number)
    }
    for (let i = 0; i < CLIENTS; i++) {
      const companyId = companies[i % COMPANIES] ?? 0
      const isAdmin = i < COMPANIES
      const user = await admin(state, ['user', 'create', '--company', String(companyId), '--name', `Client ${i}`, '--email', `client${i}@drill.example`, '--role', isAdmin ? 'admin' : 'member'])
      const token = await admin(state, ['token', 'create', '--user', String(user.id)])
      clients.push({ index: i, companyId, userId: user.id as number, token: token.token as string, admin: isAdmin, acknowledged: new Map(), transcriptions: new Map() })
    }
    const limitUser = await admin(state, ['user', 'create', '--company', String(companies[0]), '--name', 'Rate limit', '--email', 'limit@drill.example'])
    const limitToken = (await admin(state, ['token', 'create', '--user', String(limitUser.id)])).token as string
    // Each company's admin subscribes the receiver to its contacts' and transcriptions' creations.
    current = newTally()
    for (const client of clients.filter((c) => c.admin)) {
      const res = await call(base, client.token, 'POST', '/api/v1/webhooks', { url: `${receiver.url}/${client.companyId}`, events: [...CREATED] })
      if (res.status !== 201) throw new Error(`webhook subscription: ${res.status} ${JSON.stringify(res.body)}`)
      receiver.secrets.set(client.companyId, (res.body as { secret: string }).secret)
    }

    say('drill: load on, 64 clients through HAProxy')
    const loops = clients.map((client) => clientLoop(base, client))
    await phase('steady', () => sleep(10_000))
    await phase('SIGKILL engage-1, start it again', async () => {
      await stop(state, 'engage-1', 'SIGKILL')
      await sleep(3000)
      await waitHealthy(state, 'engage-1')
      await sleep(2000)
    })
    await phase(`rolling upgrade from ${PREVIOUS_RELEASE}, engage-1..3`, async () => {
      for (const name of INSTANCES) {
        await stop(state, name, 'SIGTERM')
        useBuild(state, name)
        await waitHealthy(state, name)
        // This build's /healthz names its schema version; the previous release's may not.
        const health = (await (await fetch(`${urls(state).instance(name)}/healthz`)).json()) as { schema_version?: string }
        if (health.schema_version !== schemaVersion()) throw new Error(`${name} does not run this build after the upgrade: /healthz ${JSON.stringify(health)}`)
      }
    })
    await phase('restart PgBouncer (online, -R)', async () => {
      await restartPgbouncer(state)
      await sleep(3000)
    })
    await phase('replica stopped 20 s', async () => {
      await stop(state, 'replica')
      await sleep(20_000)
      await start(state, 'replica')
      await sleep(2000)
    })
    await phase('Redis stopped 10 s', async () => {
      await stop(state, 'redis')
      await sleep(10_000)
      await start(state, 'redis')
      await sleep(2000)
    })
    await phase('steady again', () => sleep(5000))
    stopping = true
    await Promise.all(loops)
    say(`\n${table()}\n`)

    // Every acknowledged write is there, and nothing else.
    const acknowledged = clients.flatMap((client) => [...client.acknowledged].map(([id, email]) => ({ id, email, companyId: client.companyId })))
    const { rows: found } = await primary.query<{ id: string; email: string; company_id: string }>('select id, email, company_id from contacts where company_id = any($1)', [companies])
    const byId = new Map(found.map((row) => [Number(row.id), row]))
    const lost = acknowledged.filter((write) => byId.get(write.id)?.email !== write.email || Number(byId.get(write.id)?.company_id) !== write.companyId)
    check('every acknowledged write found (0 lost)', lost.length === 0 && unacknowledged.length === 0, `${acknowledged.length} acknowledged creates, ${lost.length} lost, ${unacknowledged.length} never acknowledged within ${WRITE_DEADLINE_MS / 1000} s`)
    // Totals: each company's count, in the database and through the API, is its acknowledged creates.
    const wrong: string[] = []
    for (const companyId of companies) {
      const expected = acknowledged.filter((write) => write.companyId === companyId).length
      const inDatabase = found.filter((row) => Number(row.company_id) === companyId).length
      const adminToken = clients.find((c) => c.admin && c.companyId === companyId)?.token ?? ''
      const res = await call(base, adminToken, 'GET', '/api/v1/contacts?page=1&per_page=1')
      const viaApi = (res.body as { meta?: { total_count: number } } | undefined)?.meta?.total_count
      if (inDatabase !== expected || viaApi !== expected) wrong.push(`company ${companyId}: ${expected} acknowledged, ${inDatabase} stored, ${String(viaApi)} counted by the API`)
    }
    check('totals exact (per company: stored = counted = acknowledged)', wrong.length === 0, wrong.length ? wrong.join('; ') : `${companies.length} companies, ${acknowledged.length} contacts`)
    // A resource without a unique field: a create run twice would be a second row.
    const made = clients.flatMap((client) => [...client.transcriptions].map(([id, meetId]) => ({ id, meetId, companyId: client.companyId })))
    const { rows: stored } = await primary.query<{ id: string; meet_id: string; company_id: string }>('select id, meet_id, company_id from meet_transcriptions where company_id = any($1)', [companies])
    const storedById = new Map(stored.map((row) => [Number(row.id), row]))
    const transcriptionsLost = made.filter((write) => storedById.get(write.id)?.meet_id !== write.meetId || Number(storedById.get(write.id)?.company_id) !== write.companyId).length
    const extra = stored.length - made.length
    check(
      'meet transcriptions (no unique field): every acknowledged create stored once, no duplicate',
      made.length > 0 && transcriptionsLost === 0 && extra === 0,
      `${made.length} acknowledged creates, ${stored.length} stored, ${transcriptionsLost} lost, ${extra} more than acknowledged`,
    )
    check('reads-your-writes never violated', violations.length === 0, violations.length ? `${violations.length}: ${violations.slice(0, 5).join('; ')}` : `${acknowledged.length} reads right after the writes, all saw them`)

    // Webhooks: every creation's event reaches the receiver; deduplicated by id, once each.
    say('drill: waiting for the webhook deliveries (a delivery cut by SIGKILL is posted again once its 60 s lease runs out)')
    let events: { id: string; type: string; record_id: string }[] = []
    const until = Date.now() + 180_000
    for (;;) {
      const outbox = Number((await primary.query<{ n: string }>('select count(*) as n from api_event_outbox where company_id = any($1)', [companies])).rows[0]?.n)
      ;({ rows: events } = await primary.query<{ id: string; type: string; record_id: string }>("select id, type, (data->>'id')::bigint as record_id from api_events where company_id = any($1) and type = any($2)", [companies, CREATED]))
      const missing = events.filter((event) => !receiver.seen.has(`evt_${event.id}`)).length
      if ((outbox === 0 && missing === 0) || Date.now() > until) break
      await sleep(1000)
    }
    const eventIds = new Set(events.map((event) => `evt_${event.id}`))
    const missing = events.filter((event) => !receiver.seen.has(`evt_${event.id}`)).length
    const unexpected = [...receiver.seen.keys()].filter((id) => !eventIds.has(id)).length
    const duplicates = [...receiver.seen.values()].reduce((sum, n) => sum + n - 1, 0)
    const announced = (type: string) => new Set(events.filter((event) => event.type === type).map((event) => Number(event.record_id)))
    const contactEvents = announced('contact.created')
    const transcriptionEvents = announced('meet_transcription.created')
    const withoutEvent = acknowledged.filter((write) => !contactEvents.has(write.id)).length + made.filter((write) => !transcriptionEvents.has(write.id)).length
    check(
      'each webhook event delivered, effectively once (deduplicated by webhook-id)',
      missing === 0 && unexpected === 0 && withoutEvent === 0 && events.length === acknowledged.length + made.length && receiver.badSignatures === 0,
      `${events.length} events (contact.created, meet_transcription.created) for ${acknowledged.length + made.length} creates; ${receiver.seen.size} received, ${missing} missing, ${unexpected} unknown, ${withoutEvent} creates without one, ${duplicates} duplicate deliveries (dropped by id), ${receiver.badSignatures} bad signatures`,
    )

    await rateLimitCheck(state, limitToken)
  } finally {
    stopping = true
    await primary.end()
    await receiver.close()
    say('drill: bringing the cluster down')
    await down({ log: say })
  }
  for (const result of results) say(`${result.pass ? 'PASS' : 'FAIL'}  ${result.check}: ${result.detail}`)
  say(`drill: ${Math.round((performance.now() - started) / 1000)} s in all`)
  return results.every((result) => result.pass) && results.length === 6 ? 0 : 1
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`drill: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`)
    process.exit(1)
  },
)
