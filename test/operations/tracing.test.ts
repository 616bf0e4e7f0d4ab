// OpenTelemetry traces sent to a collector on 127.0.0.1 (OTLP over HTTP, JSON): a request's
// span continues the caller's trace (traceparent), and its statements are its children.
import assert from 'node:assert/strict'
import { once } from 'node:events'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { after, before, describe, test } from 'node:test'
import { backends, startApp, type TestApp } from '../helpers/app.js'
import { tenant, type Tenant } from '../helpers/factories.js'

const [backend] = backends()
if (!backend) throw new Error('no backend')

interface OtlpSpan {
  traceId: string
  spanId: string
  parentSpanId?: string
  name: string
  kind: number
  attributes: { key: string; value: { stringValue?: string; intValue?: string | number } }[]
}

describe('tracing', () => {
  const spans: OtlpSpan[] = []
  const collector = createServer((request, response) => {
    const chunks: Buffer[] = []
    request.on('data', (chunk: Buffer) => chunks.push(chunk))
    request.on('end', () => {
      assert.equal(request.url, '/v1/traces')
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { resourceSpans: { scopeSpans: { spans: OtlpSpan[] }[] }[] }
      for (const resource of body.resourceSpans) for (const scope of resource.scopeSpans) spans.push(...scope.spans)
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}')
    })
  })
  let t: TestApp | undefined
  let company: Tenant

  before(async () => {
    collector.listen(0, '127.0.0.1')
    await once(collector, 'listening')
    const { port } = collector.address() as AddressInfo
    t = await startApp(backend, { config: { tracing: { endpoint: `http://127.0.0.1:${String(port)}/`, serviceName: 'engage-test' } } })
    company = await tenant(t.db)
  })
  after(async () => {
    await t?.close()
    collector.closeAllConnections() // the exporter keeps its connection alive
    collector.close()
  })

  test('a request span continues the caller trace, with its statements as children', async () => {
    const traceId = '4bf92f3577b34da6a3ce929d0e0e4736'
    const app = t
    assert.ok(app)
    const res = await app.app.inject({
      method: 'GET',
      url: '/api/v1/contacts?page=1',
      headers: { ...company.auth, traceparent: `00-${traceId}-00f067aa0ba902b7-01` },
    })
    assert.equal(res.statusCode, 200)
    t = undefined
    await app.close() // flushes the spans
    const server = spans.find((s) => s.name === 'GET /api/v1/contacts')
    assert.ok(server, `a request span among ${spans.map((s) => s.name).join(', ')}`)
    assert.equal(server.traceId, traceId)
    assert.equal(server.parentSpanId, '00f067aa0ba902b7')
    assert.equal(server.kind, 2) // SERVER
    const status = server.attributes.find((a) => a.key === 'http.response.status_code')
    assert.equal(Number(status?.value.intValue), 200)
    const statements = spans.filter((s) => s.parentSpanId === server.spanId && s.name.startsWith('db '))
    assert.ok(statements.length >= 1, 'the statements of the request are children of its span')
    assert.ok(statements.every((s) => s.traceId === traceId))
  })
})
