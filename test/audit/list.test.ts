// Reading the audit log (issue 28): GET /api/v1/audit_events (admins only, newest first,
// filters, a signed cursor that never skips or repeats under concurrent writes, bounded
// scans), the JSON Lines export in flat memory (API and `audit export`), and the retention.
import assert from 'node:assert/strict'
import { request as httpRequest } from 'node:http'
import type { AddressInfo } from 'node:net'
import { after, before, describe, test } from 'node:test'
import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'
import { transaction } from '../../src/db/db.js'
import type { Db } from '../../src/db/db.js'
import { execute, rawRows, sql } from '../helpers/sql.js'
import { createToken } from '../../src/modules/auth/tokens.service.js'
import { SYSTEM_CONTEXT, systemActing, type AuditContext } from '../../src/acting.js'
import { pruneAudit, recordAudit, SCAN_LIMIT, type AuditRecord } from '../../src/modules/audit/audit.service.js'
import type { CompanyId } from '../../src/tenancy.js'
import { backends, startApp, type TestApp } from '../helpers/app.js'
import { runAdmin } from '../helpers/cli.js'
import { addUser, tenant, type Tenant } from '../helpers/factories.js'

const [backend] = backends()
if (!backend) throw new Error('no backend')

const HOUR = 3_600_000
const BASE = Date.now() - 48 * HOUR

interface Page {
  data: AuditRecord[]
  meta: { per_page: number; has_more: boolean; next_cursor: string }
}

/** Many records at once, straight into the table (as the recording function would write them). */
async function bulk(db: Db, companyId: CompanyId, count: number, values: { action?: string; at?: string; outcome?: string; agent?: string } = {}) {
  const action = values.action ?? 'user.signed_in'
  const outcome = values.outcome ?? 'success'
  // 10,000 rows a statement: each well within the statement timeout.
  for (let from = 1; from <= count; from += 10_000) {
    await execute(db, sql`
    insert into audit_events (company_id, occurred_at, action, actor_type, actor_id, actor_label, target_type, target_id,
                              target_label, outcome, reason, ip, user_agent, request_id)
    select ${companyId}, ${values.at ?? new Date(BASE).toISOString()}::timestamptz + g * interval '1 millisecond', ${action}, 'user', 1, 'Ana',
           split_part(${action}, '.', 1), g, 'Target ' || g, ${outcome}, case when ${outcome} = 'failure' then 'wrong_password' end,
           '203.0.113.7', ${values.agent ?? 'Bulk'}, 'bulk-' || g
      from generate_series(${from}::int, ${Math.min(count, from + 9_999)}::int) g`)
  }
}

describe('reading the audit log', () => {
  let t: TestApp
  let acme: Tenant
  let globex: Tenant
  let memberAuth: { authorization: string }
  const get = (url: string, auth = acme.auth) => t.app.inject({ method: 'GET', url, headers: auth })
  const page = async (query: string, auth = acme.auth) => {
    const res = await get(`/api/v1/audit_events${query}`, auth)
    assert.equal(res.statusCode, 200, res.body)
    return res.json<Page>()
  }
  const as = (actor: AuditContext['actor']): AuditContext => ({ ...SYSTEM_CONTEXT, actor })

  before(async () => {
    t = await startApp(backend)
    acme = await tenant(t.db)
    globex = await tenant(t.db)
    const member = await addUser(t.db, acme.companyId, { role: 'member' })
    memberAuth = { authorization: `Bearer ${(await createToken(t.db, systemActing(), member.id)).token}` }
  })
  after(() => t.close())

  test("admins only: a member's token gets 403 forbidden_role; another company's admin sees none of it", async () => {
    const res = await get('/api/v1/audit_events', memberAuth)
    assert.equal(res.statusCode, 403)
    assert.equal(res.json<{ error: { code: string } }>().error.code, 'forbidden_role')
    assert.equal((await get('/api/v1/audit_events/export?since=2020-01-01T00:00:00Z&until=2030-01-01T00:00:00Z', memberAuth)).statusCode, 403)
    const mine = await page('?per_page=100')
    assert.ok(mine.data.length > 0)
    const theirs = await page('?per_page=100', globex.auth)
    const acmeIds = new Set(mine.data.map((e) => e.id))
    assert.ok(theirs.data.every((e) => !acmeIds.has(e.id)))
    // Nor through a cursor of the other company.
    const stolen = await get(`/api/v1/audit_events?cursor=${encodeURIComponent(mine.meta.next_cursor)}`, globex.auth)
    assert.equal(stolen.statusCode, 422)
  })

  test('newest first, with every filter; bad filters are 422', async () => {
    const at = (h: number) => new Date(BASE + h * HOUR)
    const ana = as({ type: 'user', id: 501, label: 'Ana' })
    const cli = as({ type: 'cli', id: null, label: 'ops' })
    await recordAudit(t.db, acme.companyId, ana, { action: 'api_token.created', target: { id: 9001, label: 'CRM' } }, at(1))
    await recordAudit(t.db, acme.companyId, cli, { action: 'api_token.revoked', target: { id: 9001, label: 'CRM' } }, at(2))
    await recordAudit(t.db, acme.companyId, ana, { action: 'user.sign_in_refused', target: { id: 501, label: 'Ana' }, failure: 'wrong_password' }, at(3))
    await recordAudit(t.db, acme.companyId, cli, { action: 'webhook.deleted', target: { id: 77, label: 'https://x' } }, at(4))
    const since = encodeURIComponent(at(0).toISOString())
    const actions = async (query: string, until = encodeURIComponent(at(5).toISOString())) =>
      (await page(`?since=${since}&until=${until}&${query}`)).data.map((e) => e.action)
    assert.deepEqual(await actions(''), ['webhook.deleted', 'user.sign_in_refused', 'api_token.revoked', 'api_token.created'])
    assert.deepEqual(await actions('action=api_token.created'), ['api_token.created'])
    assert.deepEqual(await actions('action=api_token.'), ['api_token.revoked', 'api_token.created'])
    assert.deepEqual(await actions('action=api_token.&target_type=webhook'), [])
    assert.deepEqual(await actions('actor_type=cli'), ['webhook.deleted', 'api_token.revoked'])
    assert.deepEqual(await actions('actor_type=user&actor_id=501'), ['user.sign_in_refused', 'api_token.created'])
    assert.deepEqual(await actions('target_type=api_token&target_id=9001&actor_type=cli'), ['api_token.revoked'])
    assert.deepEqual(await actions('target_type=webhook'), ['webhook.deleted'])
    assert.deepEqual(await actions('outcome=failure'), ['user.sign_in_refused'])
    assert.deepEqual(await actions('outcome=success&actor_type=user'), ['api_token.created'])
    assert.deepEqual(await actions('', encodeURIComponent(at(3).toISOString())), ['api_token.revoked', 'api_token.created'])
    const [refused] = (await page(`?since=${since}&outcome=failure&actor_id=501&actor_type=user`)).data
    assert.deepEqual(refused && { actor: refused.actor, target: refused.target, outcome: refused.outcome, reason: refused.reason }, {
      actor: { type: 'user', id: 501, label: 'Ana', on_behalf_of: null },
      target: { type: 'user', id: 501, label: 'Ana' },
      outcome: 'failure',
      reason: 'wrong_password',
    })
    for (const [query, field] of [
      ['actor_id=5', 'actor_id'],
      ['target_id=5', 'target_id'],
      ['action=a.b.', 'action'],
      // `action` is an exact name, or a prefix ending with a dot: a name no action has is refused, not matched by nothing.
      ['action=oauth_', 'action'],
      ['action=api_token.create', 'action'],
      ['action=nothing.', 'action'],
      ['actor_type=robot', 'actor_type'],
      ['outcome=maybe', 'outcome'],
      ['per_page=101', 'per_page'],
      ['since=yesterday', 'since'],
      ['cursor=abc', 'cursor'],
    ] as const) {
      const res = await get(`/api/v1/audit_events?${query}`)
      assert.equal(res.statusCode, 422, query)
      assert.ok(res.json<{ error: { details: Record<string, unknown> } }>().error.details[field], query)
    }
  })

  test('a rare combination of filters reads a bounded number of rows a page; the cursor goes on where the scan stopped', async () => {
    const company = (await tenant(t.db)).companyId
    // The company's own records (its creation, its admin's) are newer than these: filtered out too.
    await bulk(t.db, company, 1, { action: 'user.signed_in', outcome: 'failure', at: new Date(BASE - HOUR).toISOString() })
    await bulk(t.db, company, SCAN_LIMIT + 100, { action: 'user.signed_in' })
    const token = (await createToken(t.db, systemActing(), (await addUser(t.db, company, { role: 'admin' })).id)).token
    const auth = { authorization: `Bearer ${token}` }
    const first = await page('?action=user.signed_in&outcome=failure&per_page=5', auth)
    assert.deepEqual(first.data, [])
    assert.equal(first.meta.has_more, true)
    const second = await page(`?action=user.signed_in&outcome=failure&per_page=5&cursor=${encodeURIComponent(first.meta.next_cursor)}`, auth)
    assert.deepEqual(second.data.map((e) => [e.action, e.outcome]), [['user.signed_in', 'failure']])
    assert.equal(second.meta.has_more, false)
  })

  test('the cursor walk under concurrent writes sends every record once', async () => {
    const walker = await tenant(t.db)
    const company = walker.companyId
    const start = Date.now() - HOUR
    const ctx = as({ type: 'system', id: null, label: 'test' })
    for (let i = 0; i < 60; i++) {
      await recordAudit(t.db, company, ctx, { action: 'webhook.changed', target: { id: i, label: null } }, new Date(start + i * 1000))
    }
    const before = new Set((await rawRows<{ id: number }>(t.db, sql`select id from audit_events where company_id = ${company}`)).map((r) => r.id))
    // A transaction open through the whole walk, recording an older action that commits last.
    let release: () => void = () => undefined
    const held = new Promise<void>((resolve) => (release = resolve))
    const late = transaction(t.db, async (tx) => {
      await recordAudit(tx, company, ctx, { action: 'webhook.changed', target: { id: 999, label: 'late' } }, new Date(start + 30_500))
      await held
    })
    const seen: number[] = []
    let cursor = ''
    for (let round = 0; round < 100; round++) {
      const res = await page(`?per_page=7${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, walker.auth)
      seen.push(...res.data.map((e) => e.id))
      // Writers meanwhile: a newer record, one among those already sent, one among those to come.
      await Promise.all([
        recordAudit(t.db, company, ctx, { action: 'webhook.paused', target: { id: round, label: null } }),
        recordAudit(t.db, company, ctx, { action: 'webhook.paused', target: { id: round, label: null } }, new Date(start + 59_000)),
        recordAudit(t.db, company, ctx, { action: 'webhook.paused', target: { id: round, label: null } }, new Date(start - 1000 - round)),
      ])
      cursor = res.meta.next_cursor
      if (!res.meta.has_more) break
    }
    release()
    await late
    assert.equal(new Set(seen).size, seen.length, 'no record twice')
    for (const id of before) assert.ok(seen.includes(id), `record ${String(id)} sent`)
    // Those written below where the walk stood were reached too.
    const older = await rawRows<{ id: number }>(t.db, sql`select id from audit_events where company_id = ${company} and occurred_at < ${new Date(start - 1000).toISOString()}::timestamptz - interval '50 milliseconds'`)
    for (const { id } of older) assert.ok(seen.includes(id))
  })

  test('the export streams 100,000 records as JSON Lines, oldest first, in flat memory', async () => {
    const big = await tenant(t.db)
    await bulk(t.db, big.companyId, 100_000, { agent: 'x'.repeat(500), at: new Date(BASE).toISOString() })
    await t.app.listen({ port: 0, host: '127.0.0.1' })
    const { port } = t.app.server.address() as AddressInfo
    const since = new Date(BASE - HOUR).toISOString()
    const until = new Date(BASE + HOUR).toISOString()
    // What the heap holds after a collection, every 5 MB of the answer: garbage aside, what is kept.
    setFlagsFromString('--expose-gc')
    const gc = runInNewContext('gc') as () => void
    gc()
    const baseline = process.memoryUsage().heapUsed
    let nextSample = 0
    let peak = 0
    let lines = 0
    let bytes = 0
    let first = ''
    let tail = ''
    await new Promise<void>((resolve, reject) => {
      const req = httpRequest(
        { port, host: '127.0.0.1', path: `/api/v1/audit_events/export?since=${since}&until=${until}`, headers: big.auth },
        (res) => {
          assert.equal(res.statusCode, 200)
          assert.match(String(res.headers['content-type']), /^application\/x-ndjson/)
          res.setEncoding('utf8')
          res.on('data', (chunk: string) => {
            bytes += chunk.length
            if (first === '') first = chunk.slice(0, chunk.indexOf('\n'))
            tail = (tail + chunk).slice(-2000)
            for (let i = chunk.indexOf('\n'); i >= 0; i = chunk.indexOf('\n', i + 1)) lines++
            if (bytes >= nextSample) {
              gc()
              peak = Math.max(peak, process.memoryUsage().heapUsed - baseline)
              nextSample = bytes + 5_000_000
            }
          })
          res.on('end', resolve)
          res.on('error', reject)
        },
      )
      req.on('error', reject)
      req.end()
    })
    assert.equal(lines, 100_000)
    assert.ok(bytes > 60_000_000, `${String(bytes)} bytes`)
    // The whole body is over 60 MB; the process never held more than a small part of it.
    assert.ok(peak < 15_000_000, `heap grew by ${String(peak)} bytes`)
    const firstEvent = JSON.parse(first) as AuditRecord
    const lastEvent = JSON.parse(tail.trimEnd().split('\n').at(-1) ?? '') as AuditRecord
    assert.equal(firstEvent.target.label, 'Target 1')
    assert.equal(lastEvent.target.label, 'Target 100000')
    assert.ok(firstEvent.occurred_at < lastEvent.occurred_at)
  })

  test('`audit export` writes the same lines to standard output; a bad range or company is refused', async () => {
    const small = await tenant(t.db)
    await bulk(t.db, small.companyId, 3)
    const since = new Date(BASE - HOUR).toISOString()
    const until = new Date(BASE + HOUR).toISOString()
    const out = await runAdmin(['audit', 'export', '--company', String(small.companyId), '--since', since, '--until', until], { database: t.db })
    assert.equal(out.code, 0, out.stderr)
    const events = out.stdout.trimEnd().split('\n').map((line) => JSON.parse(line) as AuditRecord)
    assert.deepEqual(events.map((e) => e.target.label), ['Target 1', 'Target 2', 'Target 3'])
    const api = await get(`/api/v1/audit_events/export?since=${since}&until=${until}`, small.auth)
    assert.equal(api.body, out.stdout)
    const backwards = await runAdmin(['audit', 'export', '--company', String(small.companyId), '--since', until, '--until', since], { database: t.db })
    assert.equal(backwards.code, 1)
    assert.match(backwards.stderr, /--until must be after since/)
    assert.equal(backwards.stdout, '')
    const nobody = await runAdmin(['audit', 'export', '--company', '999999', '--since', since, '--until', until], { database: t.db })
    assert.equal(nobody.code, 1)
  })

  test('retention removes only the records past the limit, in batches', async () => {
    const old = await tenant(t.db)
    const now = new Date()
    const day = 86_400_000
    await bulk(t.db, old.companyId, 2500, { action: 'webhook.deleted', at: new Date(now.getTime() - 401 * day).toISOString() })
    await bulk(t.db, old.companyId, 5, { action: 'webhook.created', at: new Date(now.getTime() - 399 * day).toISOString() })
    await bulk(t.db, acme.companyId, 7, { action: 'webhook.deleted', at: new Date(now.getTime() - 500 * day).toISOString() })
    const deleted = await pruneAudit(t.db, now, 400, 1000)
    assert.equal(deleted, 2507)
    const left = await rawRows<{ action: string; n: number }>(t.db, sql`
      select action, count(*)::int as n from audit_events where company_id in (${old.companyId}, ${acme.companyId})
         and occurred_at < now() - interval '398 days' group by action`)
    assert.deepEqual(left, [{ action: 'webhook.created', n: 5 }])
    assert.equal(await pruneAudit(t.db, now, 400), 0)
    assert.equal(await t.app.auditRetention?.prune(), 0)
  })
})
