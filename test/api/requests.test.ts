// Contract sections 2, 4 and 5 on a test-only route built with the same plugins, schema
// helpers and validator as every resource route.
import assert from 'node:assert/strict'
import { schemaVersion } from '../../src/db/migrate.js'
import { VERSION } from '../../src/version.js'
import { after, before, describe, test } from 'node:test'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import { Id, IdParams, Str } from '../../src/http/schemas.js'
import { backends, startApp, type TestApp } from '../helpers/app.js'

const EchoBody = Type.Object({
  name: Type.Optional(Str()),
  n: Type.Optional(Type.Integer()),
  tags: Type.Optional(Type.Array(Id)),
  custom_fields: Type.Optional(Type.Array(Type.Object({ field: Type.Optional(Str()), value: Type.Optional(Str()) }))),
})

for (const backend of backends()) {
  describe(`request handling (${backend.name})`, () => {
    let t: TestApp

    before(async () => {
      t = await startApp(backend, {
        extend(app) {
          app.register(async (plain) => {
            const scope = plain.withTypeProvider<TypeBoxTypeProvider>()
            scope.put('/echo/:id', { config: { rootKey: 'thing' }, schema: { params: IdParams, body: EchoBody } }, (request) => ({
              id: request.params.id,
              body: request.body,
            }))
            scope.get('/boom', () => {
              throw new Error('secret detail: relation "x" does not exist')
            })
            scope.get('/db-down', () => {
              throw Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' })
            })
          }, { prefix: '/test' })
        },
      })
    })
    after(() => t.close())

    const put = (payload: string | object, contentType = 'application/json', url = '/test/echo/7?name=query&n=1') =>
      t.app.inject({ method: 'PUT', url, headers: { 'content-type': contentType }, payload })

    test('parameters merge: path over body over query', async () => {
      const res = await put({ name: 'body', id: 99 })
      assert.equal(res.statusCode, 200)
      assert.deepEqual(res.json(), { id: 7, body: { name: 'body', n: 1 } })
    })

    test('fields may come wrapped in the root key', async () => {
      const res = await put({ thing: { name: 'wrapped', tags: [1, '2'] } })
      assert.equal(res.statusCode, 200)
      assert.deepEqual(res.json().body, { name: 'wrapped', n: 1, tags: [1, 2] })
    })

    test('Rails-style form bodies', async () => {
      const res = await put(
        'thing[name]=form&tags[]=3&tags[]=4&custom_fields[][field]=Size&custom_fields[][value]=XL&custom_fields[][field]=Color&custom_fields[][value]=Red',
        'application/x-www-form-urlencoded',
      )
      assert.equal(res.statusCode, 200)
      assert.deepEqual(res.json().body, {
        name: 'form',
        n: 1,
        tags: [3, 4],
        custom_fields: [{ field: 'Size', value: 'XL' }, { field: 'Color', value: 'Red' }],
      })
    })

    test('path ids: not digits or 0 is 422', async () => {
      for (const id of ['abc', '0', '1.5', '-3', '99999999999999999999']) {
        const res = await put({}, 'application/json', `/test/echo/${id}`)
        assert.equal(res.statusCode, 422, id)
        assert.ok(res.json().error.details.id, id)
      }
    })

    test('body of another content type: 415', async () => {
      const res = await put('name=x', 'text/plain')
      assert.equal(res.statusCode, 415)
      assert.deepEqual(res.json().error, { status: 415, message: 'Unsupported media type', code: 'unsupported_media_type', request_id: res.headers['x-request-id'] })
    })

    test('unparseable bodies: 400', async () => {
      for (const [payload, type] of [
        ['{"name": ', 'application/json'],
        ['[1, 2]', 'application/json'],
        ['"text"', 'application/json'],
        ['name=%E0%A4%A', 'application/x-www-form-urlencoded'],
      ] as const) {
        const res = await put(payload, type)
        assert.equal(res.statusCode, 400, payload)
        assert.equal(res.json().error.message, 'Bad request')
      }
    })

    test('bodies over 1 MiB: 413', async () => {
      const res = await put({ name: 'x'.repeat(1024 * 1024) })
      assert.equal(res.statusCode, 413)
      assert.equal(res.json().error.message, 'Payload too large')
    })

    test('unknown routes: 404 in the error shape', async () => {
      const res = await t.app.inject({ url: '/api/v1/nothing' })
      assert.equal(res.statusCode, 404)
      assert.deepEqual(res.json().error, { status: 404, message: 'Not found', code: 'not_found', request_id: res.headers['x-request-id'] })
    })

    test('X-Request-Id: the caller\'s when well-formed, else a new one', async () => {
      const kept = await t.app.inject({ url: '/healthz', headers: { 'x-request-id': 'abc.DEF-123_x' } })
      assert.equal(kept.headers['x-request-id'], 'abc.DEF-123_x')
      for (const bad of ['has space', 'x'.repeat(129), 'semi;colon', '']) {
        const res = await t.app.inject({ url: '/healthz', headers: { 'x-request-id': bad } })
        assert.notEqual(res.headers['x-request-id'], bad)
        assert.match(String(res.headers['x-request-id']), /^[A-Za-z0-9._-]{1,128}$/)
      }
      const a = await t.app.inject({ url: '/healthz' })
      const b = await t.app.inject({ url: '/healthz' })
      assert.notEqual(a.headers['x-request-id'], b.headers['x-request-id'])
    })

    test('500 hides internals', async () => {
      const res = await t.app.inject({ url: '/test/boom', headers: { 'x-request-id': 'boom-1' } })
      assert.equal(res.statusCode, 500)
      assert.deepEqual(res.json(), { error: { status: 500, message: 'Internal Server Error', code: 'internal_error', request_id: 'boom-1' } })
      assert.doesNotMatch(res.body, /secret|relation/)
    })

    test('database unreachable: 503 with Retry-After', async () => {
      const res = await t.app.inject({ url: '/test/db-down' })
      assert.equal(res.statusCode, 503)
      assert.equal(res.json().error.message, 'Service unavailable')
      assert.ok(Number(res.headers['retry-after']) >= 1)
    })

    test('health and readiness need no token', async () => {
      const live = await t.app.inject({ url: '/healthz' })
      assert.equal(live.statusCode, 200)
      assert.deepEqual(live.json(), { status: 'ok', version: VERSION, schema_version: schemaVersion() })
      const ready = await t.app.inject({ url: '/readyz' })
      assert.equal(ready.statusCode, 200)
      assert.equal(live.headers['x-ratelimit-limit'], undefined)
    })
  })
}
