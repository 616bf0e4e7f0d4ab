// The route declaration helpers (src/http/routes.ts): a module's tag reaches its own routes
// only, a route's own tags win, and a create answers 201 with the record's path.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import Fastify, { type RouteOptions } from 'fastify'
import { sendCreated, tagRoutes } from '../../src/http/routes.js'

test('tagRoutes: the plugin\'s routes without tags get the tag; named tags and other plugins\' routes are left alone', async () => {
  const app = Fastify()
  // As @fastify/swagger does: keep the routes, read their schemas once every hook has run.
  const routes: RouteOptions[] = []
  app.addHook('onRoute', (route) => {
    routes.push(route)
  })
  await app.register(async (module) => {
    tagRoutes(module, 'things')
    module.get('/things', { schema: { summary: 'list' } }, () => [])
    module.get('/things/log', { schema: { tags: ['log'] } }, () => [])
  })
  await app.register(async (other) => {
    other.get('/others', () => [])
  })
  await app.ready()
  const tags = Object.fromEntries(routes.map((route) => [`${String(route.method)} ${route.url}`, route.schema?.tags]))
  assert.deepEqual(tags['GET /things'], ['things'])
  assert.deepEqual(tags['GET /things/log'], ['log'])
  assert.equal(tags['GET /others'], undefined)
  await app.close()
})

test('sendCreated: 201, Location = the collection and the id, the record as the body', async () => {
  const app = Fastify()
  const thing = { id: 7, name: 'seven' }
  app.post('/things', (_request, reply) => sendCreated(reply, '/api/v1/things', thing))
  const response = await app.inject({ method: 'POST', url: '/things' })
  assert.equal(response.statusCode, 201)
  assert.equal(response.headers.location, '/api/v1/things/7')
  assert.deepEqual(response.json(), thing)
  await app.close()
})
