// The one flash cookie is shared by every page: a page draws only a notice of a kind it knows,
// and reading it clears it either way (a notice of Settings left by a form whose answer was not
// followed must not reach, or break, the Contacts list).
import assert from 'node:assert/strict'
import { test } from 'node:test'
import cookie from '@fastify/cookie'
import Fastify from 'fastify'
import { WebCookies } from '../../src/web/shared/security.js'

const SECRET = 's'.repeat(43)

test('takeFlash answers a notice of the kinds asked for, and clears any notice', async () => {
  const app = Fastify()
  await app.register(cookie)
  const cookies = new WebCookies(false)
  app.get('/set', (_request, reply) => {
    cookies.setFlash(reply, SECRET, { kind: 'invited', name: 'Bia' })
    return 'set'
  })
  app.get('/users', (request, reply) => ({ flash: cookies.takeFlash<{ kind: 'invited'; name: string }>(request, reply, SECRET, ['invited']) ?? null }))
  app.get('/contacts', (request, reply) => ({ flash: cookies.takeFlash<{ kind: 'added-to-flow' }>(request, reply, SECRET, ['added-to-flow']) ?? null }))
  app.get('/other-session', (request, reply) => ({ flash: cookies.takeFlash(request, reply, 't'.repeat(43), ['invited']) ?? null }))

  const set = await app.inject({ url: '/set' })
  const flash = set.cookies.find((c) => c.value !== '')
  assert.ok(flash, 'a flash cookie is set')
  const sent = { [flash.name]: flash.value }

  const own = await app.inject({ url: '/users', cookies: sent })
  assert.deepEqual(own.json(), { flash: { kind: 'invited', name: 'Bia' } })
  const other = await app.inject({ url: '/contacts', cookies: sent })
  assert.deepEqual(other.json(), { flash: null })
  assert.ok(other.cookies.some((c) => c.name === flash.name && c.value === ''), 'another page clears it too')
  const foreign = await app.inject({ url: '/other-session', cookies: sent })
  assert.deepEqual(foreign.json(), { flash: null })
  await app.close()
})
