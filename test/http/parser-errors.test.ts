// Every answer the service gives carries the contract's error body and X-Request-Id, also
// the ones given before a request reaches Fastify: what Node's HTTP parser refuses (each
// kind below, over a raw socket against the listening app), a missing Host, a request that
// does not arrive in time, CONNECT, and an Expect the server does not know. The list is in
// docs/api-conventions.md ("Edges outside the routes").
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import type { ErrorStatus } from '../../src/errors.js'
import { backends, startApp, type TestApp } from '../helpers/app.js'
import { tenant, type Tenant } from '../helpers/factories.js'
import { rawRows, sql } from '../helpers/sql.js'
import { assertContractError, raw } from '../helpers/raw-http.js'

const [backend] = backends()
if (!backend) throw new Error('no backend')

const LENGTH = { headers: ['give the body length twice or in an invalid form (Content-Length, Transfer-Encoding)'] }
const REQUEST_LINE = { request_line: ['is not an HTTP/1.1 request line'] }
/** llhttp versions (Node 20, 22, 24) name a bare LF differently; either answer says why. */
const BARE_LF = [REQUEST_LINE, { request_line: ['must end its lines with CRLF'] }]

describe('errors of the HTTP layer, over a raw socket', () => {
  let t: TestApp
  let acme: Tenant
  let port: number

  before(async () => {
    t = await startApp(backend, { deps: { timeouts: { requestMs: 500, checkIntervalMs: 100 } } })
    acme = await tenant(t.db)
    await t.app.listen({ port: 0, host: '127.0.0.1' })
    const address = t.app.server.address()
    if (address === null || typeof address === 'string') throw new Error('no TCP address')
    port = address.port
  })
  after(() => t.close())

  /** Acme's contacts, deleted ones too. */
  const contactCount = async () =>
    (await rawRows<{ n: number }>(t.db, sql`select count(*)::int as n from contacts where company_id = ${acme.companyId}`))[0]?.n

  // The token is only known once the app runs: `TOKEN` stands for it.
  const post = (headers: string, body: string) =>
    `POST /api/v1/contacts HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer TOKEN\r\nContent-Type: application/json\r\n${headers}\r\n${body}`
  const withToken = (request: string) => request.replace('Bearer TOKEN', `Bearer ${acme.token}`)
  const contact = '{"first_name": "Ana", "email": "ana@example.com"}'

  type Details = Record<string, string[]>
  const cases: [string, string, ErrorStatus, string, Details | Details[] | undefined][] = [
    ['no Host header', 'GET /healthz HTTP/1.1\r\nX-Request-Id: no-host-1\r\n\r\n', 400, 'bad_request', { host: ["can't be blank: HTTP/1.1 requires a Host header"] }],
    ['a space in a header name', 'GET /healthz HTTP/1.1\r\nHost: x\r\nBad Header: 1\r\n\r\n', 400, 'bad_request', { headers: ['have a name or a value with a character not allowed'] }],
    ['a control character in a header value', 'GET /healthz HTTP/1.1\r\nHost: x\r\nX-A: a\x01b\r\n\r\n', 400, 'bad_request', { headers: ['have a name or a value with a character not allowed'] }],
    ['Content-Length and Transfer-Encoding', post(`Content-Length: ${contact.length}\r\nTransfer-Encoding: chunked\r\n`, contact), 400, 'bad_request', LENGTH],
    ['two different Content-Lengths', post(`Content-Length: ${contact.length}\r\nContent-Length: 3\r\n`, contact), 400, 'bad_request', LENGTH],
    ['a Content-Length that is no number', post('Content-Length: 12a\r\n', contact), 400, 'bad_request', LENGTH],
    ['a chunk size that is no hex number', post('Transfer-Encoding: chunked\r\n', `zz\r\n${contact}\r\n0\r\n\r\n`), 400, 'bad_request', { body: ['has a malformed chunk'] }],
    ['a method HTTP does not know', 'FETCH /healthz HTTP/1.1\r\nHost: x\r\n\r\n', 400, 'bad_request', { method: ['is not an HTTP method'] }],
    ['a space in the URL', 'GET /heal thz HTTP/1.1\r\nHost: x\r\n\r\n', 400, 'bad_request', REQUEST_LINE],
    ['a control character in the URL', 'GET /heal\x7fthz HTTP/1.1\r\nHost: x\r\n\r\n', 400, 'bad_request', { url: ['has a character not allowed in a request target'] }],
    ['an unknown HTTP version', 'GET /healthz HTTP/1.7\r\nHost: x\r\n\r\n', 400, 'bad_request', REQUEST_LINE],
    ['not HTTP at all', 'GET /healthz XTTP/1.1\r\nHost: x\r\n\r\n', 400, 'bad_request', REQUEST_LINE],
    ['lines ending in LF only', 'GET /healthz HTTP/1.1\nHost: x\n\n', 400, 'bad_request', BARE_LF],
    ['an HTTP/2 preface on the HTTP/1.1 port', 'PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n', 400, 'bad_request', REQUEST_LINE],
    ['a TLS handshake on the plain port', Buffer.from('16030100a5010000a10303', 'hex').toString('latin1'), 400, 'bad_request', { method: ['is not an HTTP method'] }],
    ['CONNECT (not a proxy)', 'CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\nX-Request-Id: connect-1\r\n\r\n', 400, 'bad_request', { method: ['is not supported: this is not a proxy'] }],
    ['headers over 16 KiB', `GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`, 431, 'header_too_large', undefined],
    ['headers that never end', 'GET /healthz HTTP/1.1\r\nHost: x\r\n', 408, 'request_timeout', undefined],
    ['a body that never ends', post('X-Request-Id: slow-1\r\nContent-Length: 100\r\n', '{"first_name":'), 408, 'request_timeout', undefined],
  ]

  for (const [name, request, status, code, details] of cases) {
    test(`${name}: ${String(status)} ${code}`, async () => {
      const res = await raw(port, [withToken(request)])
      assert.equal(res.status, status, res.body)
      const answered = Array.isArray(details)
        ? details.find((one) => Object.keys(JSON.parse(res.body).error.details ?? {}).join() === Object.keys(one).join() && res.body.includes(Object.values(one)[0]?.[0] ?? '-'))
        : details
      assertContractError(res, status, code, answered)
      assert.equal(res.headers.connection, 'close')
      assert.equal(Number(res.headers['content-length']), Buffer.byteLength(res.body))
      assert.ok(res.closed, 'the server closes the connection')
      // The caller's X-Request-Id where the headers were read.
      const given = /X-Request-Id: (\S+)/.exec(request)?.[1]
      if (given) assert.equal(res.headers['x-request-id'], given)
    })
  }

  test('none of the refused bodies created anything', async () => {
    assert.equal(await contactCount(), 0)
  })

  test('HTTP/1.0 without Host is a request like any other', async () => {
    const res = await raw(port, ['GET /healthz HTTP/1.0\r\n\r\n'])
    assert.equal(res.status, 200)
    assert.equal((JSON.parse(res.body) as { status: string }).status, 'ok')
    assert.match(res.headers['x-request-id'] ?? '', /^[A-Za-z0-9._-]{1,128}$/)
  })

  test('an Expect the server does not know is ignored (RFC 9110), not a bare 417', async () => {
    const res = await raw(port, [withToken(post(`Expect: something-else\r\nContent-Length: ${contact.length}\r\nConnection: close\r\n`, contact))])
    assert.equal(res.status, 201, res.body)
    assert.equal(JSON.parse(res.body).email, 'ana@example.com')
    assert.equal(await contactCount(), 1)
  })

  test('on a web page\'s path, errors before routing answer the HTML error page (docs/web.md); on the API, JSON', async () => {
    const long = 'a'.repeat(20_000)
    for (const path of [`/settings/${long}`, `/login?next=${long}`, `/invite/${long}`]) {
      const res = await raw(port, [`GET ${path} HTTP/1.1\r\nHost: x\r\n\r\n`])
      assert.equal(res.status, 431, path.slice(0, 20))
      assert.match(res.headers['content-type'] ?? '', /^text\/html; charset=utf-8/)
      assert.match(res.body, /^<!doctype html>[\s\S]*<h1>Address too long<\/h1>/)
      assert.ok(res.closed)
    }
    const api = await raw(port, [`GET /api/v1/contacts?x=${long} HTTP/1.1\r\nHost: x\r\n\r\n`])
    assertContractError(api, 431, 'header_too_large', undefined)

    for (const url of ['/settings/%E0%A4%A', '/invite/%zz', '/login/%E0%A4%A', '/oauth/authorize/%E0%A4%A', '/leads/%zz', '/contacts/%zz', '/tasks/%E0%A4%A', '/flows/%zz', '/meetings/%zz']) {
      const res = await t.app.inject({ url, headers: { 'x-request-id': 'bad-escape-web' } })
      assert.equal(res.statusCode, 400, url)
      assert.match(String(res.headers['content-type']), /^text\/html; charset=utf-8/, url)
      assert.match(res.body, /<h1>Bad request<\/h1>/, url)
      assert.equal(res.headers['x-request-id'], 'bad-escape-web')
    }
    const json = await t.app.inject({ url: '/api/v1/contacts/%E0%A4%A' })
    assert.equal(json.statusCode, 400)
    assert.equal(json.json().error.code, 'bad_request')
  })
})
