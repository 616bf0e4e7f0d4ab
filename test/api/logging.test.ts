// What the logs hold: one line per request (when it is done), the URL without the
// api_token, health probes below info, and database errors without bound parameters or
// row values (an email in a query parameter, in PostgreSQL's detail or in its message).
// JSON lines by default; readable lines for a terminal (terminalLogger), redacted alike.
import assert from 'node:assert/strict'
import { PassThrough, Writable } from 'node:stream'
import { after, before, describe, test } from 'node:test'
import { humanMessage, redactUrl, serializeError, terminalLogger } from '../../src/logging.js'
import { tenant, type Tenant } from '../helpers/factories.js'
import { backends, startApp, type TestApp } from '../helpers/app.js'
import { execute, sql } from '../helpers/sql.js'

interface LogLine {
  level: number
  msg: string
  reqId?: string
  [key: string]: unknown
}

const INFO = 30
const DEBUG = 20

describe('log redaction helpers', () => {
  test('redactUrl replaces every api_token value, keeps the rest as sent', () => {
    assert.equal(redactUrl('/api/v1/contacts?page=2&api_token=eng_abc&x=1'), '/api/v1/contacts?page=2&api_token=[redacted]&x=1')
    assert.equal(redactUrl('/a?api%5Ftoken=eng_abc'), '/a?api%5Ftoken=[redacted]')
    assert.equal(redactUrl('/a?api_token[]=eng_abc&api_token=eng_def'), '/a?api_token[]=[redacted]&api_token=[redacted]')
    assert.equal(redactUrl('/a?api_tokens=kept'), '/a?api_tokens=kept')
    assert.equal(redactUrl('/a'), '/a')
  })

  test('redactUrl replaces the OAuth secrets a client might put in a URL (the endpoints refuse them, the log keeps none)', () => {
    assert.equal(
      redactUrl('/oauth/token?grant_type=authorization_code&code=c0de&code_verifier=v&client_id=app&client_secret=s3cret&state=x'),
      '/oauth/token?grant_type=authorization_code&code=[redacted]&code_verifier=[redacted]&client_id=app&client_secret=[redacted]&state=x',
    )
    assert.equal(redactUrl('/oauth/revoke?token=t&refresh_token=r&access_token=a'), '/oauth/revoke?token=[redacted]&refresh_token=[redacted]&access_token=[redacted]')
  })

  test('redactUrl replaces the token of an invite link, whatever follows it', () => {
    assert.equal(redactUrl('/invite/Abc_123-xyz'), '/invite/[redacted]')
    assert.equal(redactUrl('/invite/Abc_123-xyz?x=1&api_token=t'), '/invite/[redacted]?x=1&api_token=[redacted]')
    assert.equal(redactUrl('/invite/Abc/more'), '/invite/[redacted]/more')
    assert.equal(redactUrl('/settings/invite/kept'), '/settings/invite/kept')
  })

  test('serializeError drops Drizzle params and quoted values of PostgreSQL messages', () => {
    const cause = Object.assign(new Error('invalid input syntax for type integer: "ana@example.com"'), {
      code: '22P02',
      severity: 'ERROR',
      detail: 'ana@example.com',
    })
    const err = Object.assign(new Error('Failed query: select $1::int\nfrom x\nparams: ana@example.com'), {
      query: 'select $1::int\nfrom x',
      params: ['ana@example.com'],
      cause,
    })
    const out = serializeError(err)
    assert.doesNotMatch(JSON.stringify(out), /ana@example\.com/)
    assert.equal(out.message, 'Failed query: select $1::int')
    assert.deepEqual(out.cause, {
      type: 'Error',
      message: 'invalid input syntax for type integer: [redacted]',
      code: '22P02',
      stack: (out.cause as { stack: string }).stack,
    })
    assert.match(String(out.stack), /^Error: Failed query: select \$1::int\n {4}at /)
  })
})

for (const backend of backends()) {
  describe(`logs (${backend.name})`, () => {
    let t: TestApp
    let acme: Tenant
    const lines: LogLine[] = []
    let text = ''

    before(async () => {
      const stream = new Writable({
        write(chunk: Buffer, _encoding, done) {
          text += chunk.toString()
          for (const line of chunk.toString().split('\n')) if (line.trim()) lines.push(JSON.parse(line) as LogLine)
          done()
        },
      })
      t = await startApp(backend, {
        deps: { logger: { level: 'debug', stream } },
        extend(app) {
          app.get('/test/bad-cast', async () => execute(app.db, sql`select ${'ana.secret@example.com'}::int as n`))
          app.get('/test/duplicate', async () => {
            const insert = sql`insert into users (company_id, name, email) values (${acme.companyId}, ${'Dup Licate'}, ${'dup.secret@example.com'})`
            await execute(app.db, insert)
            await execute(app.db, insert)
            return {}
          })
        },
      })
      acme = await tenant(t.db)
    })
    after(() => t.close())

    const linesOf = (reqId: string) => lines.filter((line) => line.reqId === reqId)

    test('one line per request, when it is done, without the api_token', async () => {
      const res = await t.app.inject({ url: `/api/v1/users/authorize_api?page=1&api_token=${acme.token}`, headers: { 'x-request-id': 'log-1' } })
      assert.equal(res.statusCode, 200)
      const mine = linesOf('log-1')
      assert.equal(mine.length, 1, JSON.stringify(mine))
      const [line] = mine as [LogLine]
      assert.equal(line.level, INFO)
      assert.equal(line.msg, 'request completed')
      assert.equal(line.method, 'GET')
      assert.equal(line.url, '/api/v1/users/authorize_api?page=1&api_token=[redacted]')
      assert.equal(line.statusCode, 200)
      assert.equal(typeof line.responseTime, 'number')
      assert.ok(!text.includes(acme.token), 'the token is nowhere in the logs')
    })

    test('a request refused before routing: one line, the token redacted too', async () => {
      const res = await t.app.inject({ url: `/api/v1/contacts/%E0%A4%A?api_token=${acme.token}`, headers: { 'x-request-id': 'log-bad-url' } })
      assert.equal(res.statusCode, 400)
      const mine = linesOf('log-bad-url')
      assert.equal(mine.length, 1, JSON.stringify(mine))
      const [line] = mine as [LogLine]
      assert.equal(line.statusCode, 400)
      assert.equal(line.url, '/api/v1/contacts/%E0%A4%A?api_token=[redacted]')
      assert.ok(!text.includes(acme.token))
    })

    test('health probes log below info', async () => {
      for (const url of ['/healthz', '/readyz']) {
        const res = await t.app.inject({ url, headers: { 'x-request-id': `probe${url.replace('/', '-')}` } })
        assert.equal(res.statusCode, 200)
        const mine = linesOf(`probe${url.replace('/', '-')}`)
        assert.equal(mine.length, 1)
        assert.equal(mine[0]?.level, DEBUG)
      }
    })

    test('database errors: code, constraint, table; no parameters or values', async () => {
      const cast = await t.app.inject({ url: '/test/bad-cast', headers: { 'x-request-id': 'log-cast' } })
      assert.equal(cast.statusCode, 500)
      const dup = await t.app.inject({ url: '/test/duplicate', headers: { 'x-request-id': 'log-dup' } })
      assert.equal(dup.statusCode, 500)
      assert.doesNotMatch(text, /secret@example\.com|Dup Licate/)

      const castError = linesOf('log-cast').find((line) => line.msg === 'unhandled error')
      const castErr = castError?.err as Record<string, unknown>
      assert.equal(castErr.type, 'DatabaseError')
      assert.equal(castErr.code, '22P02')
      assert.equal(castErr.message, 'invalid input syntax for type integer: [redacted]')

      const dupError = linesOf('log-dup').find((line) => line.msg === 'unhandled error')
      const dupErr = dupError?.err as Record<string, unknown>
      assert.equal(dupErr.message, 'duplicate key value violates unique constraint "users_company_email_key"')
      assert.equal(dupErr.code, '23505')
      assert.equal(dupErr.constraint, 'users_company_email_key')
      assert.equal(dupErr.table, 'users')
      assert.equal(dupErr.detail, undefined)
      assert.equal(linesOf('log-dup').filter((line) => line.msg === 'request completed').length, 1)
    })
  })
}

describe('readable log for a terminal', () => {
  test('a request line says method, URL, status and time; other lines their message', () => {
    const request = { msg: 'request completed', method: 'GET', url: '/api/v1/contacts?page=2', statusCode: 200, responseTime: 3.1 }
    assert.equal(humanMessage(request, 'msg'), 'GET /api/v1/contacts?page=2 200 3.1 ms')
    assert.equal(humanMessage({ ...request, msg: 'request errored', statusCode: 500 }, 'msg'), 'request errored: GET /api/v1/contacts?page=2 500 3.1 ms')
    assert.equal(humanMessage({ msg: 'Server listening at http://127.0.0.1:3000' }, 'msg'), 'Server listening at http://127.0.0.1:3000')
  })

  const [backend] = backends()
  test('the app through terminalLogger: one readable line per request, token redacted, probes below info, errors with their stack', async () => {
    assert.ok(backend)
    const out = new PassThrough()
    let text = ''
    out.on('data', (chunk: Buffer) => (text += chunk.toString()))
    const t = await startApp(backend, {
      deps: { logger: terminalLogger('info', out) },
      extend(app) {
        app.get('/test/boom', async () => execute(app.db, sql`select ${'ana.secret@example.com'}::int as n`))
      },
    })
    try {
      const acme = await tenant(t.db)
      const ok = await t.app.inject({ url: `/api/v1/users/authorize_api?api_token=${acme.token}`, headers: { 'x-request-id': 'pretty-1' } })
      assert.equal(ok.statusCode, 200)
      assert.equal((await t.app.inject({ url: '/healthz' })).statusCode, 200)
      assert.equal((await t.app.inject({ url: '/test/boom', headers: { 'x-request-id': 'pretty-boom' } })).statusCode, 500)
    } finally {
      await t.close()
    }
    const lines = text.split('\n').filter(Boolean)
    assert.ok(
      lines.some((line) => /^\[\d\d:\d\d:\d\d\] INFO: GET \/api\/v1\/users\/authorize_api\?api_token=\[redacted\] 200 [\d.]+ ms \{"reqId":"pretty-1"\}$/.test(line)),
      text,
    )
    assert.ok(!lines.some((line) => line.startsWith('{')), 'no JSON lines')
    assert.doesNotMatch(text, /healthz/)
    assert.doesNotMatch(text, /eng_|secret@example\.com/)
    assert.match(text, /ERROR: unhandled error .*"reqId":"pretty-boom"/)
    assert.match(text, /^ +DatabaseError: invalid input syntax for type integer: \[redacted\]\n +at /m, 'the stack, one frame a line')
    assert.ok(!text.includes('\u001b['), 'no colours when the destination is not a terminal')
  })
})
