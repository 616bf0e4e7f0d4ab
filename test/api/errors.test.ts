// Contract section 5 everywhere: machine-readable codes on every error body, and the errors
// that happen outside the routes (a bad URL, a long path id, a request the HTTP parser
// refuses or that never arrives whole, a request during shutdown) answered with the
// contract's body, X-Request-Id and, where the connection cannot go on, Connection: close.
import assert from 'node:assert/strict'
import { once } from 'node:events'
import { connect } from 'node:net'
import { after, before, describe, test } from 'node:test'
import { detailCode, detailCodes } from '../../src/errors.js'
import { tenant, type Tenant } from '../helpers/factories.js'
import { addContact, addFlow } from '../helpers/flows-factories.js'
import { backends, startApp, type TestApp } from '../helpers/app.js'
import { parseResponse as parse, raw } from '../helpers/raw-http.js'

/** The contract's error body, with its request id the same as the X-Request-Id header. */
function assertContractError(
  res: { headers: Record<string, unknown>; body: string },
  status: number,
  message: string,
  code: string,
  details?: Record<string, string[]>,
) {
  const id = res.headers['x-request-id']
  assert.match(String(id), /^[A-Za-z0-9._-]{1,128}$/)
  const expected = details ? { details, detail_codes: detailCodes(details) } : {}
  assert.deepEqual(JSON.parse(res.body), { error: { status, message, code, ...expected, request_id: id } })
  assert.match(String(res.headers['content-type']), /^application\/json/)
}

describe('detail codes', () => {
  test('one stable code for every message the service writes', () => {
    const cases: [string, string][] = [
      ["can't be blank", 'blank'],
      ["field can't be blank", 'blank'],
      ['has already been taken', 'taken'],
      ['is already active in this flow', 'taken'],
      ['name "Red" is given more than once', 'duplicate'],
      ['Size is given more than once', 'duplicate'],
      ['is too long (maximum is 255 characters)', 'too_long'],
      ['is too long (maximum is 1000 characters)', 'too_long'],
      ['must have at most 20 items', 'too_long'],
      ['must have at least 1 item', 'too_short'],
      ['must have at least 2 items', 'too_short'],
      ['must have at least 1 item for a dropdown', 'too_short'],
      ['is not included in the list', 'inclusion'],
      ['Size is not included in the list', 'inclusion'],
      ['must be true', 'inclusion'],
      ['must be true or false', 'inclusion'],
      ['must be "x"', 'inclusion'],
      ['is not a known IANA time zone (Area/City)', 'inclusion'],
      ['does not exist', 'not_found'],
      ['does not exist: 3, 4', 'not_found'],
      ['Size does not exist', 'not_found'],
      ['is not a user of the company', 'not_found'],
      ['is not a user of the contact company', 'not_found'],
      ['must be an integer', 'not_an_integer'],
      ['must be greater than or equal to 1', 'greater_than_or_equal_to'],
      ['must be less than or equal to 100', 'less_than_or_equal_to'],
      ['must be a date (yyyy-mm-dd)', 'not_a_date'],
      ['Birthday must be a date (yyyy-mm-dd)', 'not_a_date'],
      ['must be a date-time (ISO 8601 with offset)', 'not_a_date_time'],
      ['is out of range (years 0001 to 9999)', 'out_of_range'],
      ['contains a character that cannot be stored (NUL or a lone surrogate)', 'invalid_character'],
      ['must be a string', 'wrong_type'],
      ['must be a list', 'wrong_type'],
      ['must be an object', 'wrong_type'],
      ['must be a JSON array of {day, kind, title}', 'wrong_type'],
      ['is not a JSON object', 'wrong_type'],
      ["can't be combined with without_contact", 'exclusive'],
      ['is stopped: only a recording transcription can be stopped', 'invalid_state'],
      ['is recording: stop it before sending its transcript', 'invalid_state'],
      ['flow is paused', 'invalid_state'],
      ['is invalid', 'invalid'],
      ['Email is invalid', 'invalid'],
      ['is not valid JSON', 'invalid'],
      ['something no rule knows', 'invalid'],
    ]
    for (const [message, code] of cases) assert.equal(detailCode(message), code, message)
  })

  test('detail_codes keeps the names and the order of details', () => {
    assert.deepEqual(detailCodes({ email: ['is invalid', 'has already been taken'], first_name: ["can't be blank"] }), {
      email: ['invalid', 'taken'],
      first_name: ['blank'],
    })
  })
})

for (const backend of backends()) {
  describe(`error codes and HTTP edges (${backend.name})`, () => {
    let t: TestApp
    let acme: Tenant
    let port: number
    let releaseSlow: () => void = () => undefined
    let slowStarted: Promise<void> = Promise.resolve()

    before(async () => {
      let markStarted: () => void = () => undefined
      slowStarted = new Promise((resolve) => (markStarted = resolve))
      t = await startApp(backend, {
        deps: { timeouts: { requestMs: 400, checkIntervalMs: 100 } },
        extend(app) {
          app.get('/test/slow', async () => {
            markStarted()
            await new Promise<void>((resolve) => (releaseSlow = resolve))
            return { done: true }
          })
        },
      })
      acme = await tenant(t.db)
      await t.app.listen({ port: 0, host: '127.0.0.1' })
      const address = t.app.server.address()
      if (address === null || typeof address === 'string') throw new Error('no TCP address')
      port = address.port
    })
    after(() => t.close())

    const call = (method: 'GET' | 'POST' | 'PUT', url: string, payload?: object, headers: Record<string, string> = acme.auth) =>
      t.app.inject({ method, url, headers, ...(payload ? { payload } : {}) })

    test('validation errors carry code and detail_codes beside the messages', async () => {
      const res = await call('POST', '/api/v1/contacts', { first_name: ' ', email: 'nope', stage: 'x', last_name: 'y'.repeat(256) })
      assert.equal(res.statusCode, 422)
      const error = res.json().error
      assert.equal(error.code, 'validation_failed')
      assert.equal(error.message, 'Could not save the entity')
      assert.deepEqual(Object.keys(error.detail_codes), Object.keys(error.details))
      assert.deepEqual(error.detail_codes, {
        first_name: ['blank'],
        email: ['invalid'],
        stage: ['inclusion'],
        last_name: ['too_long'],
      })
      assert.deepEqual(error.details.last_name, ['is too long (maximum is 255 characters)'])
    })

    test('uniqueness: taken', async () => {
      const contact = { first_name: 'Ana', email: 'ana.codes@example.com' }
      assert.equal((await call('POST', '/api/v1/contacts', contact)).statusCode, 201)
      const res = await call('POST', '/api/v1/contacts', contact)
      assert.equal(res.statusCode, 422)
      assert.deepEqual(res.json().error.details, { email: ['has already been taken'] })
      assert.deepEqual(res.json().error.detail_codes, { email: ['taken'] })
      assert.equal(res.json().error.code, 'validation_failed')
    })

    test('a refused state change: state_refused', async () => {
      const created = await call('POST', '/api/v1/meet_transcriptions', { company_id: acme.companyId, user_id: acme.userId, meet_id: 'abc-defg-hij' })
      assert.equal(created.statusCode, 201)
      const id = created.json().id as number
      const early = await call('PUT', `/api/v1/meet_transcriptions/${id}/transcript`, { transcript: 'hello' })
      assert.equal(early.statusCode, 422)
      assert.equal(early.json().error.code, 'state_refused')
      assert.deepEqual(early.json().error.detail_codes, { status: ['invalid_state'] })
      assert.equal((await call('PUT', `/api/v1/meet_transcriptions/${id}/stop`, { stopped_at: '2026-11-22' })).statusCode, 200)
      const again = await call('PUT', `/api/v1/meet_transcriptions/${id}/stop`, { stopped_at: '2026-11-22' })
      assert.equal(again.statusCode, 422)
      assert.equal(again.json().error.code, 'state_refused')
      assert.deepEqual(again.json().error.details, { status: ['is stopped: only a recording transcription can be stopped'] })
    })

    test('adding a contact to a paused flow: state_refused; an unknown contact: validation_failed', async () => {
      const paused = await addFlow(t.db, acme.companyId, { userId: acme.userId, status: 'paused' })
      const contact = await addContact(t.db, acme.companyId, { userId: acme.userId })
      const refused = await call('PUT', `/api/v1/flows/${paused.id}/add_contact`, { contact_id: contact.id })
      assert.equal(refused.statusCode, 422)
      assert.equal(refused.json().error.code, 'state_refused')
      assert.deepEqual(refused.json().error.detail_codes, { base: ['invalid_state'] })
      const unknown = await call('PUT', `/api/v1/flows/${paused.id}/add_contact`, { contact_id: 999_999 })
      assert.equal(unknown.json().error.code, 'validation_failed')
      assert.deepEqual(unknown.json().error.detail_codes, { base: ['invalid_state'], contact_id: ['not_found'] })
    })

    test('codes of the other statuses', async () => {
      const missing = await call('GET', '/api/v1/users/authorize_api', undefined, {})
      assert.equal(missing.json().error.code, 'token_missing')
      const wrong = await call('GET', '/api/v1/users/authorize_api', undefined, { authorization: 'Bearer eng_nope' })
      assert.equal(wrong.json().error.code, 'token_invalid')
      assert.equal((await call('GET', '/api/v1/contacts/999999')).json().error.code, 'not_found')
      const bad = await t.app.inject({ method: 'POST', url: '/api/v1/contacts', headers: { ...acme.auth, 'content-type': 'application/json' }, payload: '{"a":' })
      assertContractError(bad, 400, 'Bad request', 'bad_request', { body: ['is not valid JSON: it ends before the value is complete'] })
      const big = await call('POST', '/api/v1/contacts', { first_name: 'x'.repeat(1024 * 1024) })
      assertContractError(big, 413, 'Payload too large', 'payload_too_large')
      const text = await t.app.inject({ method: 'POST', url: '/api/v1/contacts', headers: { ...acme.auth, 'content-type': 'text/plain' }, payload: 'x' })
      assertContractError(text, 415, 'Unsupported media type', 'unsupported_media_type')
    })

    test('a bad percent escape in the path: the contract 400, the URL not echoed', async () => {
      for (const url of ['/api/v1/contacts/%E0%A4%A', '/api/v1/contacts/%zz/events', '/%E0%A4%A']) {
        const res = await t.app.inject({ url, headers: { ...acme.auth, 'x-request-id': 'bad-url-1' } })
        assert.equal(res.statusCode, 400, url)
        assertContractError(res, 400, 'Bad request', 'bad_request')
        assert.equal(res.headers['x-request-id'], 'bad-url-1')
        assert.doesNotMatch(res.body, /%|FST_ERR/)
      }
    })

    test('a path id over 100 characters: 422 like any bad id, not 414', async () => {
      for (const id of ['9'.repeat(101), '1'.repeat(5000), 'a'.repeat(300)]) {
        const res = await call('GET', `/api/v1/contacts/${id}`)
        assert.equal(res.statusCode, 422, id.slice(0, 10))
        assert.equal(res.json().error.code, 'validation_failed')
        assert.ok(res.json().error.details.id)
        assert.ok(res.json().error.detail_codes.id)
      }
    })

    test('headers or URL over 16 KiB: 431 in the contract body, Connection: close', async () => {
      const hugeHeader = `GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: keep-alive\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`
      const hugeUrl = `GET /api/v1/contacts?search_term=${'a'.repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`
      for (const request of [hugeHeader, hugeUrl]) {
        const res = await raw(port, [request])
        assert.equal(res.status, 431)
        assertContractError(res, 431, 'Request header fields too large', 'header_too_large')
        assert.equal(res.headers.connection, 'close')
        assert.equal(Number(res.headers['content-length']), Buffer.byteLength(res.body))
        assert.ok(res.closed, 'the server closes the connection')
      }
    })

    test('a request the HTTP parser refuses: 400 in the contract body', async () => {
      const res = await raw(port, ['GET /healthz HTTP/1.1\r\nHost: x\r\nContent-Length: nope\r\n\r\n'])
      assertContractError(res, 400, 'Bad request', 'bad_request', {
        headers: ['give the body length twice or in an invalid form (Content-Length, Transfer-Encoding)'],
      })
      assert.equal(res.headers.connection, 'close')
      assert.ok(res.closed)
    })

    test('a body that never comes: 408 in the contract body, Connection: close', async () => {
      const started = Date.now()
      const res = await raw(port, [
        `POST /api/v1/contacts HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${acme.token}\r\nX-Request-Id: slow-body-1\r\n` +
          'Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{"first_name":',
      ])
      assert.equal(res.status, 408)
      assertContractError(res, 408, 'Request timeout', 'request_timeout')
      assert.equal(res.headers['x-request-id'], 'slow-body-1')
      assert.equal(res.headers.connection, 'close')
      assert.ok(res.closed)
      assert.ok(Date.now() - started < 3_000, 'answered once the (test) timeout passed')
    })

    test('headers that never end: 408', async () => {
      const res = await raw(port, ['GET /healthz HTTP/1.1\r\nHost: x\r\n'])
      assertContractError(res, 408, 'Request timeout', 'request_timeout')
      assert.equal(res.headers.connection, 'close')
      assert.ok(res.closed)
    })

    test('an idle keep-alive connection is not timed out as a request', async () => {
      const res = await raw(port, ['GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n'], 1_200)
      assert.equal(res.status, 200)
      assert.equal((JSON.parse(res.body) as { status: string }).status, 'ok', 'one response only, no 408 after it')
      assert.equal(res.closed, false)
    })

    // Last: it closes the app (after() closing it again is a no-op).
    test('during shutdown: requests in flight finish, new ones get the contract 503 with Retry-After', async () => {
      const socket = connect(port, '127.0.0.1')
      await once(socket, 'connect')
      let text = ''
      socket.setEncoding('utf8')
      socket.on('data', (chunk: string) => (text += chunk))
      const closedSocket = once(socket, 'close')
      socket.write('GET /test/slow HTTP/1.1\r\nHost: x\r\n\r\n')
      await slowStarted
      const closing = t.app.close()
      await new Promise((resolve) => setTimeout(resolve, 50))
      // A request arriving on the open connection while the app is closing.
      socket.write('GET /healthz HTTP/1.1\r\nHost: x\r\nX-Request-Id: late-1\r\n\r\n')
      await new Promise((resolve) => setTimeout(resolve, 50))
      releaseSlow()
      await closing
      await closedSocket
      const second = text.indexOf('HTTP/1.1', 1)
      assert.ok(second > 0, text)
      const first = parse(text.slice(0, second))
      assert.equal(first.status, 200)
      assert.deepEqual(JSON.parse(first.body), { done: true })
      const late = parse(text.slice(second))
      assert.equal(late.status, 503)
      assertContractError(late, 503, 'Service unavailable', 'service_unavailable')
      assert.equal(late.headers['x-request-id'], 'late-1')
      assert.ok(Number(late.headers['retry-after']) >= 1)
      assert.equal(late.headers.connection, 'close')
    })
  })
}
