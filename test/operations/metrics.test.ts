// GET /metrics on METRICS_PORT, scraped and read with a Prometheus text-format parser: the
// families docs/operating.md lists, counters that move with requests, the bearer token, and
// label values that stay bounded whatever paths are asked for.
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import type { AddressInfo } from 'node:net'
import { after, before, describe, test } from 'node:test'
import parsePrometheusTextFormat from 'parse-prometheus-text-format'
import { defineQuery, run } from '../../src/db/query.js'
import { backends, startApp, type TestApp } from '../helpers/app.js'
import { tenant, type Tenant } from '../helpers/factories.js'
import { Browser, member } from '../web/helpers.js'

const [backend] = backends()
if (!backend) throw new Error('no backend')

const TOKEN = 'metrics-token-for-the-test-0123'
/** A statement whose parameter PostgreSQL refuses (22P02), for the statement errors' counter. */
const refusedStatement = defineQuery<{ n: number }>('test.metrics_refused', 'select $1::int as n')

interface Family {
  name: string
  type: string
  metrics: { labels?: Record<string, string>; value?: string; buckets?: Record<string, string> }[]
}

describe('metrics', () => {
  let t: TestApp
  let company: Tenant
  let scrapeUrl: string

  before(async () => {
    t = await startApp(backend, {
      config: { host: '127.0.0.1', metrics: { port: 0, token: TOKEN }, rateLimit: { max: 3, windowMs: 60_000, keyPrefix: `engage:test:metrics:${String(process.pid)}:${String(Date.now())}:` } },
    })
    company = await tenant(t.db)
    const address = t.app.metricsServer?.address() as AddressInfo
    scrapeUrl = `http://127.0.0.1:${String(address.port)}/metrics`
  })
  after(() => t.close())

  let lastText = ''
  async function scrape(): Promise<Map<string, Family>> {
    const res = await fetch(scrapeUrl, { headers: { authorization: `Bearer ${TOKEN}` } })
    assert.equal(res.status, 200)
    assert.match(res.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/)
    lastText = await res.text()
    const families = parsePrometheusTextFormat(lastText) as Family[]
    return new Map(families.map((f) => [f.name, f]))
  }

  const value = (family: Family | undefined, labels: Record<string, string>) =>
    Number(family?.metrics.find((m) => Object.entries(labels).every(([k, v]) => m.labels?.[k] === v))?.value ?? 0)

  test('the scrape needs the token, and the API port does not serve it', async () => {
    assert.equal((await fetch(scrapeUrl)).status, 401)
    assert.equal((await fetch(scrapeUrl, { headers: { authorization: 'Bearer wrong-token-of-some-length' } })).status, 401)
    assert.equal((await fetch(scrapeUrl.replace('/metrics', '/other'), { headers: { authorization: `Bearer ${TOKEN}` } })).status, 404)
    const onApi = await t.app.inject({ method: 'GET', url: '/metrics' })
    assert.equal(onApi.statusCode, 404)
  })

  test('every family is there and the counters move with the requests', async () => {
    const before = await scrape()
    const route = { route: '/api/v1/contacts', method: 'GET', status: '200' }
    const requestsBefore = value(before.get('engage_http_requests_total'), route)
    for (let i = 0; i < 3; i++) {
      const res = await t.app.inject({ method: 'GET', url: '/api/v1/contacts?page=1', headers: company.auth })
      assert.equal(res.statusCode, 200)
    }
    const limited = await t.app.inject({ method: 'GET', url: '/api/v1/contacts?page=1', headers: company.auth })
    assert.equal(limited.statusCode, 429)
    await assert.rejects(run(t.db, refusedStatement, ['not a number']))
    const browser = new Browser(t.app, '10.0.0.9')
    const user = await member(t.db, company.companyId)
    const refused = await browser.signIn(user.email, 'not the password')
    assert.equal(refused.status, 401)

    const now = await scrape()
    for (const name of [
      'engage_http_requests_total',
      'engage_http_request_duration_seconds',
      'engage_rate_limited_total',
      'engage_db_pool_connections',
      'engage_db_pool_waiting',
      'engage_db_statement_errors_total',
      'engage_database_up',
      'engage_webhook_backlog',
      'engage_webhook_oldest_undelivered_seconds',
      'engage_webhook_deliveries_total',
      'engage_sign_in_refusals_total',
      'engage_backup_last_success_timestamp_seconds',
      'engage_process_resident_memory_bytes',
      'engage_nodejs_eventloop_lag_seconds',
    ]) {
      assert.ok(now.has(name), `family ${name}`)
    }
    assert.equal(value(now.get('engage_http_requests_total'), route), requestsBefore + 3)
    // The parser keeps a histogram's buckets but not its labelled count: read that line itself.
    const count = /^engage_http_request_duration_seconds_count\{route="\/api\/v1\/contacts",method="GET",status="200"\} (\d+)$/m.exec(lastText)
    assert.ok(Number(count?.[1]) >= 3, 'the duration histogram counted the requests')
    assert.equal(value(now.get('engage_rate_limited_total'), { route: '/api/v1/contacts' }), value(before.get('engage_rate_limited_total'), { route: '/api/v1/contacts' }) + 1)
    assert.ok(value(now.get('engage_db_statement_errors_total'), { sqlstate: '22P02' }) >= 1)
    assert.equal(value(now.get('engage_sign_in_refusals_total'), { reason: 'invalid_credentials' }), value(before.get('engage_sign_in_refusals_total'), { reason: 'invalid_credentials' }) + 1)
    assert.equal(value(now.get('engage_database_up'), { kind: 'postgres' }), 1)
    assert.equal(value(now.get('engage_webhook_backlog'), { stage: 'deliveries' }), 0)
  })

  test('the sample Grafana dashboard asks only for families the service exports', async () => {
    const dashboard = readFileSync(new URL('../../deploy/grafana-dashboard.json', import.meta.url), 'utf8')
    const asked = new Set([...dashboard.matchAll(/engage_[a-z_]+/g)].map(([name]) => name.replace(/_bucket$/, '')))
    assert.ok(asked.size >= 10)
    const families = await scrape()
    for (const name of asked) assert.ok(families.has(name), `${name} is exported`)
  })

  test('paths that match no route add no series, whatever they are', async () => {
    const series = (families: Map<string, Family>) => families.get('engage_http_requests_total')?.metrics.length ?? 0
    const before = series(await scrape())
    const paths = ['/nope', '/api/v1/contacts/1/x', '/%F0%9F%98%80', `/${'a'.repeat(2000)}`, '/api/v1/../../etc/passwd', '/x?y=1']
    for (let i = 0; i < 200; i++) paths.push(`/random/${Math.random().toString(36).slice(2)}/${String(i)}`)
    for (const url of paths) await t.app.inject({ method: 'GET', url })
    for (let i = 0; i < 50; i++) await t.app.inject({ method: 'GET', url: `/api/v1/contacts/${String(i + 1)}`, headers: company.auth })
    const after = series(await scrape())
    // At most: unmatched 404, the contact route's 404 and its 429s: a handful, not hundreds.
    assert.ok(after - before <= 4, `series grew from ${String(before)} to ${String(after)}`)
  })
})
