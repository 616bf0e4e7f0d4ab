// Upgrades that keep the data (docs/operating.md, "Upgrades"): the previous release (built from
// this repository's history, test/helpers/previous-release.ts) runs on a fresh database of
// TEST_DATABASE_URL's server, every kind of record is written through its API, its web pages
// and its admin command line, and every record's answer is kept; then this build starts on the
// same database and must answer the same, accept every token, and show its schema version.
// Not part of `npm test` (one old build, about a minute): `npm run test:upgrade`, in CI.
// Beside it, the migrations newer than the previous release are checked for the additive rule.
import assert from 'node:assert/strict'
import { spawn, type ChildProcess } from 'node:child_process'
import { createHash, randomBytes } from 'node:crypto'
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import { createServer as createNetServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { after, before, describe, test } from 'node:test'
import pg from 'pg'
import { buildPreviousRelease, PREVIOUS_RELEASE, resolveCommit, unmetDependencies, type PreviousRelease } from '../helpers/previous-release.js'

const REPO = resolve(import.meta.dirname, '../..')
const ADMIN_URL = process.env.TEST_DATABASE_URL

/**
 * Fields this build adds to an answer the previous release gave, by path (a prefix): they are
 * left out of the comparison, and nothing else is. Empty them when PREVIOUS_RELEASE moves past
 * the release that added them.
 */
const ADDED_FIELDS: Record<string, string[]> = {
  '/healthz': ['version', 'schema_version'],
  // The app an audit record's actor acted for (CHANGELOG: "Audit records of an OAuth app name the user…").
  '/api/v1/audit_events': ['data[].actor.on_behalf_of'],
}

/**
 * Changes that migrations newer than PREVIOUS_RELEASE may make although they are not additive,
 * each with why the running previous release does not notice: `file: reason`.
 */
const NOT_ADDITIVE_ALLOWED: Record<string, string> = {
  '0024_text_columns.sql':
    'varchar(n) to text with CHECK (char_length(...) <= n): the same values are taken and read back alike (binary-compatible, no rewrite); the previous release checks the lengths before it writes',
}

// ---- Processes and HTTP ----

async function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const server = createNetServer()
    server.once('error', fail)
    server.listen(0, '127.0.0.1', () => {
      const address = server.address()
      server.close(() => {
        done(typeof address === 'object' && address ? address.port : 0)
      })
    })
  })
}

interface Running {
  child: ChildProcess
  base: string
  output: () => string
}

async function startServer(cwd: string, env: NodeJS.ProcessEnv): Promise<Running> {
  const port = await freePort()
  const child = spawn(process.execPath, ['dist/server.js'], { cwd, env: { ...env, PORT: String(port) }, stdio: ['ignore', 'pipe', 'pipe'] })
  let output = ''
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()))
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()))
  const base = `http://127.0.0.1:${port}`
  const until = Date.now() + 60_000
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the server in ${cwd} exited with ${child.exitCode}:\n${output}`)
    const ok = await fetch(`${base}/readyz`, { signal: AbortSignal.timeout(2000) }).then(
      (res) => res.ok,
      () => false,
    )
    if (ok) return { child, base, output: () => output }
    if (Date.now() > until) {
      child.kill('SIGKILL')
      throw new Error(`the server in ${cwd} was not ready within 60 s:\n${output}`)
    }
    await sleep(100)
  }
}

async function stopServer(running: Running): Promise<void> {
  if (running.child.exitCode !== null) return
  const exited = new Promise((done) => running.child.once('exit', done))
  running.child.kill('SIGTERM')
  await exited
}

/** The admin command line of the release in `cwd`, as a process; its --json answer. */
async function admin(cwd: string, env: NodeJS.ProcessEnv, args: string[], stdin?: string): Promise<Record<string, unknown>> {
  const child = spawn(process.execPath, ['dist/cli/main.js', ...args, '--json'], { cwd, env, stdio: ['pipe', 'pipe', 'pipe'] })
  let out = ''
  let err = ''
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()))
  child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()))
  child.stdin.end(stdin ?? '')
  const code = await new Promise<number | null>((done) => child.once('close', done))
  assert.equal(code, 0, `admin ${args.join(' ')}: ${err}`)
  return JSON.parse(out) as Record<string, unknown>
}

interface Answer {
  status: number
  body: unknown
}

async function api(base: string, token: string, method: string, path: string, body?: object, headers: Record<string, string> = {}): Promise<Answer> {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}), ...headers },
    body: body ? JSON.stringify(body) : null,
  })
  const text = await res.text()
  return { status: res.status, body: text ? (JSON.parse(text) as unknown) : null }
}

async function created(base: string, token: string, path: string, body: object): Promise<Record<string, unknown> & { id: number }> {
  const res = await api(base, token, 'POST', path, body)
  assert.ok(res.status === 201 || res.status === 200, `POST ${path}: ${res.status} ${JSON.stringify(res.body)}`)
  return res.body as Record<string, unknown> & { id: number }
}

/** A browser over real HTTP: a cookie jar, forms posted url-encoded with the page's CSRF token. */
class WebClient {
  private readonly cookies = new Map<string, string>()
  constructor(private readonly base: string) {}

  async request(method: 'GET' | 'POST', path: string, form?: Record<string, string>): Promise<{ status: number; body: string; location: string | null }> {
    const res = await fetch(`${this.base}${path}`, {
      method,
      redirect: 'manual',
      headers: {
        cookie: [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; '),
        origin: this.base,
        ...(form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
      },
      body: form ? new URLSearchParams(form).toString() : null,
    })
    for (const line of res.headers.getSetCookie()) {
      const pair = line.split(';')[0] ?? ''
      const eq = pair.indexOf('=')
      this.cookies.set(pair.slice(0, eq).trim(), pair.slice(eq + 1))
    }
    return { status: res.status, body: await res.text(), location: res.headers.get('location') }
  }

  /** Posts the form of the page at `from` that posts to `action`, with its CSRF token. */
  async submit(from: string, action: string, fields: Record<string, string>) {
    const page = await this.request('GET', from)
    assert.equal(page.status, 200, page.body)
    const form = page.body.slice(page.body.indexOf(`action="${action}"`))
    const csrf = /name="_csrf" value="([^"]+)"/.exec(form)?.[1]
    assert.ok(csrf, `the page ${from} has a form posting to ${action}`)
    return this.request('POST', action, { _csrf: csrf, ...fields })
  }
}

/** A local receiver of webhook deliveries: answers 204 and counts them. */
async function receiver(): Promise<{ url: string; received: () => number; close: () => Promise<void> }> {
  let received = 0
  const server: Server = createServer((req, res) => {
    req.resume()
    req.on('end', () => {
      received++
      res.writeHead(204).end()
    })
  })
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done))
  const address = server.address()
  const port = typeof address === 'object' && address ? address.port : 0
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    received: () => received,
    close: () =>
      new Promise<void>((done) => {
        server.closeAllConnections()
        server.close(() => {
          done()
        })
      }),
  }
}

/** `body` without the field at `path` (`a.b`, `a[].b` for each item of the list `a`). */
function withoutPath(body: unknown, path: string[]): unknown {
  const [head, ...rest] = path
  if (head === undefined || typeof body !== 'object' || body === null || Array.isArray(body)) return body
  const list = head.endsWith('[]')
  const key = list ? head.slice(0, -2) : head
  if (rest.length === 0) return Object.fromEntries(Object.entries(body).filter(([name]) => name !== key))
  const value = (body as Record<string, unknown>)[key]
  const kept = list && Array.isArray(value) ? value.map((item) => withoutPath(item, rest)) : withoutPath(value, rest)
  return { ...body, [key]: kept }
}

/** The answer without the fields this build adds to it (ADDED_FIELDS). */
function withoutAdded(path: string, body: unknown): unknown {
  return Object.entries(ADDED_FIELDS)
    .filter(([prefix]) => path.startsWith(prefix))
    .flatMap(([, fields]) => fields)
    .reduce((answer, field) => withoutPath(answer, field.split('.')), body)
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('base64url')

// ---- The test ----

describe(`upgrade from the previous release (${PREVIOUS_RELEASE})`, () => {
  let previous: PreviousRelease
  let adminPool: pg.Pool | undefined
  let database: string
  let dataDir: string
  let env: NodeJS.ProcessEnv
  let hooks: Awaited<ReturnType<typeof receiver>> | undefined
  const servers: Running[] = []

  before(async () => {
    if (!ADMIN_URL) throw new Error('npm run test:upgrade needs TEST_DATABASE_URL (a PostgreSQL it may create a database on)')
    previous = buildPreviousRelease()
    adminPool = new pg.Pool({ connectionString: ADMIN_URL, max: 1 })
    database = `engage_upgrade_${randomBytes(4).toString('hex')}`
    await adminPool.query(`CREATE DATABASE ${database}`)
    const url = new URL(ADMIN_URL)
    url.pathname = `/${database}`
    dataDir = mkdtempSync(join(tmpdir(), 'engage-upgrade-'))
    hooks = await receiver()
    env = {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      NODE_ENV: 'production',
      HOST: '127.0.0.1',
      DATABASE_URL: url.toString(),
      SEED_DEMO: 'false',
      WEBHOOK_SECRET_KEY: randomBytes(32).toString('hex'),
      WEBHOOK_ALLOW_PRIVATE: 'true',
      DATA_DIR: dataDir,
      LOG_LEVEL: 'warn',
      // The test's few hundred requests are not what it checks.
      RATE_LIMIT_MAX: '100000',
    }
  })

  after(async () => {
    for (const running of servers) await stopServer(running).catch(() => undefined)
    await hooks?.close()
    if (adminPool) {
      if (database) await adminPool.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`)
      await adminPool.end()
    }
    if (dataDir) rmSync(dataDir, { recursive: true, force: true })
  })

  test('every record written by the previous release reads the same on this build, and every token still works', { timeout: 600_000 }, async () => {
    const receiving = hooks
    assert.ok(receiving)
    // ---- The previous release: write every kind of record ----
    const old = await startServer(previous.dir, env)
    servers.push(old)
    const cli = (args: string[], stdin?: string) => admin(previous.dir, env, args, stdin)
    const company = (await cli(['company', 'create', '--name', 'Upgrade Co', '--timezone', 'Europe/Lisbon'])).id as number
    const adminUser = (await cli(['user', 'create', '--company', String(company), '--name', 'Ada', '--email', 'ada@upgrade.example', '--role', 'admin'])).id as number
    const memberUser = (await cli(['user', 'create', '--company', String(company), '--name', 'Max', '--email', 'max@upgrade.example'])).id as number
    const password = (await cli(['user', 'set-password', '--user', String(adminUser), '--generate'])).password as string
    const full = (await cli(['token', 'create', '--user', String(adminUser)])).token as string
    const scoped = (await cli(['token', 'create', '--user', String(memberUser), '--scopes', 'contacts:read,tasks:read'])).token as string
    const folder = mkdtempSync(join(tmpdir(), 'engage-upgrade-files-'))
    try {
      const o = old.base
      const tagA = await created(o, full, '/api/v1/tags', { name: 'VIP', color: '#ff0000' })
      const tagB = await created(o, full, '/api/v1/tags', { name: 'Partner', color: '#00ff00' })
      await created(o, full, '/api/v1/custom_fields', { field: 'Plan', kind: 'dropdown', options: [{ name: 'Gold' }, { name: 'Silver' }] })
      await created(o, full, '/api/v1/custom_fields', { field: 'Notes', kind: 'textarea' })
      const contact = await created(o, full, '/api/v1/contacts', {
        first_name: 'Zoé', last_name: 'Ñúñez', email: 'zoe@client.example', business: 'Client SA', position: 'CTO', telephone: '+351 21 000 0000',
        city: 'Lisboa', country: 'PT', stage: 'lead', carousel: 'true', tags: [tagA.id, tagB.id], custom_fields: [{ field: 'Plan', value: 'Gold' }, { field: 'Notes', value: 'met at a fair\nsecond line' }],
      })
      const second = await created(o, full, '/api/v1/contacts', { first_name: 'Bo', email: 'bo@client.example', tags: [tagB.id] })
      const gone = await created(o, full, '/api/v1/contacts', { first_name: 'Gone', email: 'gone@client.example' })
      assert.equal((await api(o, full, 'PUT', `/api/v1/contacts/${second.id}`, { first_name: 'Bo', email: 'bo@client.example', business: 'Other Ltd', stage: 'prospect', user_id: memberUser, tags: [tagA.id] })).status, 200)
      assert.equal((await api(o, full, 'DELETE', `/api/v1/contacts/${gone.id}`)).status, 204)

      const steps = join(folder, 'steps.json')
      writeFileSync(steps, JSON.stringify([{ day: 0, kind: 'email', title: 'Hello' }, { day: 2, kind: 'phonecall', title: 'Call' }]))
      const flow = (await cli(['flow', 'create', '--company', String(company), '--user', String(adminUser), '--name', 'Onboarding', '--steps', steps])).id as number
      const added = await api(o, full, 'PUT', `/api/v1/flows/${flow}/add_contact`, { contact_id: contact.id })
      assert.ok(added.status === 200 || added.status === 201, JSON.stringify(added.body))
      const task = (await cli(['task', 'create', '--contact', String(second.id), '--kind', 'phonecall', '--due', '2026-12-01', '--title', 'Call back'])).id as number
      await cli(['task', 'create', '--contact', String(contact.id), '--kind', 'meeting', '--due', '2026-12-03', '--title', 'Demo'])
      await cli(['task', 'complete', '--id', String(task)])

      const lead = await created(o, full, '/api/v1/leads', { first_name: 'Lia', email: 'lia@lead.example', provider: 'linkedin', position: 'Buyer', degree_of_connection: 2, business_name: 'Lead Corp', business_colaborators_count: 40 })
      const transcription = await created(o, full, '/api/v1/meet_transcriptions', { user_id: adminUser, company_id: company, meet_id: 'abc-defg-hij' })
      assert.equal((await api(o, full, 'PUT', `/api/v1/meet_transcriptions/${transcription.id}/stop`, { stopped_at: '2026-11-22T10:00:00Z' })).status, 200)
      assert.equal((await api(o, full, 'PUT', `/api/v1/meet_transcriptions/${transcription.id}/transcript`, { transcript: 'Ada: hello\nZoé: olá' })).status, 200)
      assert.equal((await api(o, full, 'PUT', `/api/v1/meet_transcriptions/${transcription.id}/to_task`, { task_id: task })).status, 200)
      const messages = join(folder, 'messages.jsonl')
      writeFileSync(
        messages,
        [
          { contact_id: contact.id, user_id: adminUser, direction: 'inbound', body: 'Olá 👋', status: 'received', sent_at: '2026-11-20T10:00:00Z' },
          { contact_id: contact.id, user_id: adminUser, direction: 'outbound', body: 'Hello!', status: 'delivered', sent_at: '2026-11-20T10:01:00Z' },
        ].map((line) => JSON.stringify(line)).join('\n') + '\n',
      )
      await cli(['whatsapp', 'import', '--company', String(company), '--file', messages])

      // A webhook, its deliveries (a test one and the contact events after it) received.
      const webhook = await created(o, full, '/api/v1/webhooks', { url: receiving.url, events: ['contact.created', 'contact.updated'], description: 'CRM mirror' })
      assert.equal((await api(o, full, 'POST', `/api/v1/webhooks/${webhook.id}/test`)).status < 300, true)
      await created(o, full, '/api/v1/contacts', { first_name: 'After', email: 'after@client.example' })
      const deliveriesPath = `/api/v1/webhooks/${webhook.id}/deliveries`
      for (const until = Date.now() + 60_000; ; ) {
        const answer = await api(o, full, 'GET', `${deliveriesPath}?page=1`)
        assert.equal(answer.status, 200, JSON.stringify(answer.body))
        const list = answer.body as { data: { status: string }[] }
        if (list.data.length >= 2 && list.data.every((delivery) => delivery.status !== 'pending')) break
        assert.ok(Date.now() < until, `deliveries not done within 60 s: ${JSON.stringify(list)}`)
        await sleep(200)
      }
      assert.ok(receiving.received() >= 2)

      // An OAuth app registered on the web pages, a user's consent, the code exchanged.
      const web = new WebClient(o)
      const signedIn = await web.submit('/login', '/login', { email: 'ada@upgrade.example', password })
      assert.equal(signedIn.status, 303, signedIn.body)
      const redirectUri = 'https://app.example.com/callback'
      const registered = await web.submit('/settings/apps', '/settings/apps', { name: 'CRM Sync', redirect_uris: redirectUri, scopes: 'contacts:read', client_type: 'confidential' })
      assert.equal(registered.status, 303, registered.body)
      const apps = await web.request('GET', '/settings/apps')
      const clientId = /id="client-id">([^<]+)</.exec(apps.body)?.[1]
      const clientSecret = /id="client-secret">([^<]+)</.exec(apps.body)?.[1]
      assert.ok(clientId && clientSecret, 'the apps page shows the new client_id and secret once')
      const verifier = randomBytes(32).toString('base64url')
      const authorize = `/oauth/authorize?${new URLSearchParams({ response_type: 'code', client_id: clientId, redirect_uri: redirectUri, scope: 'contacts:read', state: 's1', code_challenge: sha256(verifier), code_challenge_method: 'S256' }).toString()}`
      const consentPage = await web.request('GET', authorize)
      assert.equal(consentPage.status, 200, consentPage.body)
      const consentForm: Record<string, string> = { decision: 'allow' }
      for (const match of consentPage.body.matchAll(/<input type="hidden" name="([a-z_]+)" value="([^"]*)">/g)) {
        consentForm[match[1] ?? ''] = (match[2] ?? '').replace(/&amp;/g, '&').replace(/&quot;/g, '"').replace(/&#39;/g, "'")
      }
      const consented = await web.request('POST', '/oauth/authorize', consentForm)
      assert.equal(consented.status, 303, consented.body)
      const code = new URL(consented.location ?? '').searchParams.get('code')
      assert.ok(code, `the consent redirects with a code: ${consented.location}`)
      const tokenRequest = (form: Record<string, string>) =>
        fetch(`${o}/oauth/token`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ client_id: clientId, client_secret: clientSecret, ...form }).toString() })
      const exchanged = await tokenRequest({ grant_type: 'authorization_code', code, redirect_uri: redirectUri, code_verifier: verifier })
      const oauth = (await exchanged.json()) as { access_token: string; refresh_token: string; scope: string }
      assert.equal(exchanged.status, 200, JSON.stringify(oauth))
      assert.equal((await api(o, oauth.access_token, 'GET', `/api/v1/contacts/${contact.id}`)).status, 200)
      // Every token used once here, so its first use (an audit record) is not one of the reads below.
      assert.equal((await api(o, scoped, 'GET', `/api/v1/contacts/${contact.id}`)).status, 200)
      assert.equal((await api(o, scoped, 'POST', '/api/v1/tags', { name: 'No', color: '#000000' })).status, 403)

      // ---- Every record's answer on the previous release ----
      const reads: [token: string, path: string][] = [
        [full, '/healthz'],
        [full, `/api/v1/contacts/${contact.id}`],
        [full, `/api/v1/contacts/${second.id}`],
        [full, `/api/v1/contacts/${gone.id}`],
        [full, '/api/v1/contacts?page=1'],
        [full, `/api/v1/contacts?page=1&search_term=client`],
        [full, `/api/v1/contacts/${contact.id}/events?page=1`],
        [full, `/api/v1/contacts/${second.id}/events?page=1`],
        [full, `/api/v1/contacts/${second.id}/business`],
        [full, '/api/v1/tags'],
        [full, '/api/v1/custom_fields'],
        [full, '/api/v1/flows?page=1'],
        [full, '/api/v1/tasks?page=1'],
        [full, `/api/v1/tasks?page=1&done=true`],
        [full, `/api/v1/leads/${lead.id}`],
        [full, `/api/v1/leads?page=1&user_id=${adminUser}`],
        [full, `/api/v1/leads/count?user_id=${adminUser}`],
        [full, `/api/v1/meet_transcriptions/${transcription.id}`],
        [full, `/api/v1/meet_transcriptions?page=1&user_id=${adminUser}&company_id=${company}`],
        [full, `/api/v1/meet_transcriptions/count?user_id=${adminUser}&company_id=${company}`],
        [full, '/api/v1/users?page=1'],
        [full, `/api/v1/whatsapp_messages?page=1&contact_id=${contact.id}`],
        [full, `/api/v1/whatsapp_messages/chats?page=1&contact_id=${contact.id}`],
        [full, '/api/v1/webhooks?page=1'],
        [full, `/api/v1/webhooks/${webhook.id}`],
        [full, `${deliveriesPath}?page=1`],
        [full, '/api/v1/events?page=1'],
        [full, '/api/v1/audit_events'],
        [scoped, `/api/v1/contacts/${contact.id}`],
        [scoped, '/api/v1/tasks?page=1'],
        [scoped, '/api/v1/tags'],
        [oauth.access_token, `/api/v1/contacts/${contact.id}`],
        [oauth.access_token, '/api/v1/tasks?page=1'],
      ]
      // Each delivery and each event by id, from the lists just read.
      const deliveries = ((await api(o, full, 'GET', `${deliveriesPath}?page=1`)).body as { data: { id: number }[] }).data
      for (const delivery of deliveries) reads.push([full, `${deliveriesPath}/${delivery.id}`])
      const events = ((await api(o, full, 'GET', '/api/v1/events?page=1')).body as { data: { id: string }[] }).data
      assert.ok(events.length > 0)
      for (const event of events) reads.push([full, `/api/v1/events/${event.id}`])

      const read = async (base: string) => {
        const answers = new Map<string, Answer>()
        for (const [i, [token, path]] of reads.entries()) {
          const key = `${token === full ? 'full' : token === scoped ? 'scoped' : 'oauth'} ${path}`
          // The same request id both times: error bodies carry it.
          answers.set(key, await api(base, token, 'GET', path, undefined, { 'x-request-id': `upgrade-read-${i}` }))
        }
        return answers
      }
      // The previous release writes what it keeps in memory a while (tokens' last use, new
      // addresses and their audit records) when it stops: restarted, it answers from the database.
      await stopServer(old)
      const restarted = await startServer(previous.dir, env)
      servers.push(restarted)
      const before = await read(restarted.base)
      for (const [key, answer] of before) {
        // Refused beyond a token's scopes, and the deleted contact: answers to keep too.
        const expected = key.endsWith(`/contacts/${gone.id}`) ? 404 : key === 'scoped /api/v1/tags' || key === 'oauth /api/v1/tasks?page=1' ? 403 : 200
        assert.equal(answer.status, expected, `${key} on the previous release: ${JSON.stringify(answer.body)}`)
      }
      const introspect = async (base: string, token: string) => {
        const res = await fetch(`${base}/oauth/introspect`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Basic ${Buffer.from(`${clientId}:${clientSecret}`).toString('base64')}` },
          body: new URLSearchParams({ token }).toString(),
        })
        return { status: res.status, body: (await res.json()) as Record<string, unknown> }
      }
      const introspectedBefore = await introspect(restarted.base, oauth.access_token)
      assert.equal(introspectedBefore.body.active, true)

      // ---- This build on the same database ----
      await stopServer(restarted)
      const current = await startServer(REPO, env)
      servers.push(current)
      const after = await read(current.base)
      for (const [key, answer] of before) {
        const path = key.slice(key.indexOf(' ') + 1)
        const now = after.get(key)
        assert.equal(now?.status, answer.status, `${key}: ${answer.status} before the upgrade, ${String(now?.status)} after: ${JSON.stringify(now?.body)}`)
        assert.deepEqual(withoutAdded(path, now.body), answer.body, `${key} answers differently after the upgrade`)
      }
      const health = (await api(current.base, full, 'GET', '/healthz')).body as { schema_version: string; version: string }
      const migrations = readdirSync(join(REPO, 'migrations')).filter((file) => file.endsWith('.sql')).sort()
      assert.equal(health.schema_version, migrations.at(-1)?.replace(/\.sql$/, ''))
      assert.equal(health.version, (JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as { version: string }).version)

      // Every token still works: api tokens (full, scoped and refused beyond its scopes), the
      // OAuth access token, and its refresh token, which rotates.
      assert.equal((await introspect(current.base, oauth.access_token)).body.active, true)
      assert.equal((await api(current.base, scoped, 'POST', '/api/v1/tags', { name: 'No', color: '#000000' })).status, 403)
      const refreshed = await fetch(`${current.base}/oauth/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ client_id: clientId, client_secret: clientSecret, grant_type: 'refresh_token', refresh_token: oauth.refresh_token }).toString(),
      })
      const rotated = (await refreshed.json()) as { access_token: string; refresh_token: string }
      assert.equal(refreshed.status, 200, JSON.stringify(rotated))
      assert.notEqual(rotated.refresh_token, oauth.refresh_token)
      assert.equal((await api(current.base, rotated.access_token, 'GET', `/api/v1/contacts/${contact.id}`)).status, 200)
      // And writes go on: a contact created and updated on this build, delivered to the old webhook.
      const received = receiving.received()
      const fresh = await created(current.base, full, '/api/v1/contacts', { first_name: 'New', email: 'new@client.example', tags: [tagA.id], custom_fields: [{ field: 'Plan', value: 'Silver' }] })
      assert.deepEqual((fresh.custom_fields as { field: string; value: string }[]).map((f) => f.value), ['Silver'])
      for (const until = Date.now() + 30_000; receiving.received() === received; ) {
        assert.ok(Date.now() < until, 'the webhook made on the previous release receives this build\'s events')
        await sleep(100)
      }
    } finally {
      rmSync(folder, { recursive: true, force: true })
    }
  })
})

describe('migrations newer than the previous release are additive', () => {
  const NOT_ADDITIVE = [
    { what: 'DROP TABLE', pattern: /\bdrop\s+table\b/i },
    { what: 'DROP COLUMN', pattern: /\bdrop\s+column\b/i },
    { what: 'RENAME', pattern: /\brename\s+(column\s+|constraint\s+)?\w+\s+to\b|\brename\s+to\b/i },
    { what: 'ALTER COLUMN ... TYPE', pattern: /\balter\s+column\s+\S+\s+(set\s+data\s+)?type\b/i },
    { what: 'SET NOT NULL on an existing column', pattern: /\bset\s+not\s+null\b/i },
    { what: 'a NOT NULL column added without a default', pattern: /\badd\s+column\s+(if\s+not\s+exists\s+)?\S+\s+[^,;]*\bnot\s+null\b(?![^,;]*\bdefault\b)/i },
  ]

  /** The statements of a migration file that break the rule, without its comments. */
  function violations(sql: string): string[] {
    const code = sql.replace(/--[^\n]*/g, '').replace(/\/\*[\s\S]*?\*\//g, '')
    return NOT_ADDITIVE.filter(({ pattern }) => pattern.test(code)).map(({ what }) => what)
  }

  test('the checks catch what they are meant to', () => {
    assert.deepEqual(violations('ALTER TABLE contacts DROP COLUMN city;'), ['DROP COLUMN'])
    assert.deepEqual(violations('drop table tags;'), ['DROP TABLE'])
    assert.deepEqual(violations('ALTER TABLE contacts RENAME COLUMN city TO town;'), ['RENAME'])
    assert.deepEqual(violations('ALTER TABLE contacts RENAME TO people;'), ['RENAME'])
    assert.deepEqual(violations('ALTER TABLE contacts ALTER COLUMN city TYPE varchar(10);'), ['ALTER COLUMN ... TYPE'])
    assert.deepEqual(violations('ALTER TABLE contacts ALTER COLUMN city SET NOT NULL;'), ['SET NOT NULL on an existing column'])
    assert.deepEqual(violations('ALTER TABLE contacts ADD COLUMN score integer NOT NULL;'), ['a NOT NULL column added without a default'])
    assert.deepEqual(violations('ALTER TABLE contacts ADD COLUMN score integer NOT NULL DEFAULT 0;'), [])
    assert.deepEqual(violations('CREATE TABLE notes (id bigint NOT NULL, body text NOT NULL);\n-- drop table old_notes later'), [])
  })

  test(`each migration after ${PREVIOUS_RELEASE} adds, and changes or removes nothing the previous release reads`, () => {
    const previous = buildPreviousRelease()
    const known = new Set(previous.migrations)
    const newer = readdirSync(join(REPO, 'migrations'))
      .filter((file) => file.endsWith('.sql') && !known.has(file.replace(/\.sql$/, '')))
      .sort()
    const broken = newer
      .map((file) => ({ file, found: violations(readFileSync(join(REPO, 'migrations', file), 'utf8')) }))
      .filter(({ file, found }) => found.length > 0 && NOT_ADDITIVE_ALLOWED[file] === undefined)
    assert.deepEqual(broken, [], 'not additive (docs/operating.md, "Upgrades"): split it over two releases, or list it in NOT_ADDITIVE_ALLOWED with the reason')
    // Every migration of the previous release is still here, unchanged: databases have applied it as it was.
    const changed = previous.migrations.filter((name) => {
      const file = `${name}.sql`
      const here = join(REPO, 'migrations', file)
      return !existsSync(here) || readFileSync(join(previous.dir, 'migrations', file), 'utf8') !== readFileSync(here, 'utf8')
    })
    assert.deepEqual(changed, [])
  })

  test('a previous release missing from the history fails, saying so', () => {
    assert.throws(() => resolveCommit('0000000000000000000000000000000000000bad'), /not in this clone's history \(a shallow clone\? git fetch --unshallow\)/)
  })

  test('the previous release runs on the installed dependencies (a check that can fail)', () => {
    assert.deepEqual(unmetDependencies({}), [])
    assert.match(unmetDependencies({ 'no-such-package-engage': '^1.0.0' }).join(), /no-such-package-engage@\^1\.0\.0: not installed/)
    assert.match(unmetDependencies({ pg: '^99.0.0' }).join(), /pg@\^99\.0\.0: .* is installed/)
  })
})
