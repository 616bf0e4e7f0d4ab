// Issue 38 §5: an API answer that shows a secret (a webhook's signing secret, on create and
// rotate_secret, replays of a create included) is sent `Cache-Control: no-store`, and the
// OpenAPI document says so on every operation whose answer has a secret field.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { backends, startApp, type TestApp } from '../helpers/app.js'
import { tenant, type Tenant } from '../helpers/factories.js'

const [backend] = backends()
if (!backend) throw new Error('no backend')

// Fields that hold a secret shown once, in any answer of the API.
const SECRET_FIELDS = new Set(['secret', 'token', 'password', 'client_secret', 'access_token', 'refresh_token'])

interface Schema {
  $ref?: string
  type?: string | string[]
  properties?: Record<string, Schema>
  anyOf?: Schema[]
  allOf?: Schema[]
  items?: Schema
}
interface Doc {
  paths: Record<string, Record<string, { responses: Record<string, { headers?: Record<string, unknown>; content?: Record<string, { schema?: Schema }> }> }>>
  components: { schemas: Record<string, Schema> }
}

describe('answers that show a secret: Cache-Control no-store', () => {
  let t: TestApp
  let acme: Tenant
  const hook = { url: 'https://93.184.215.14/hook', events: ['*'] }

  before(async () => {
    t = await startApp(backend)
    acme = await tenant(t.db, { name: 'Acme' })
  })
  after(() => t.close())

  test('POST /api/v1/webhooks (and its Idempotency-Key replay) and rotate_secret: no-store; reading a subscription: not', async () => {
    const headers = { ...acme.auth, 'idempotency-key': 'secret-answer-1' }
    const created = await t.app.inject({ method: 'POST', url: '/api/v1/webhooks', headers, payload: hook })
    assert.equal(created.statusCode, 201, created.body)
    assert.match(created.json().secret, /^whsec_/)
    assert.equal(created.headers['cache-control'], 'no-store')

    const replayed = await t.app.inject({ method: 'POST', url: '/api/v1/webhooks', headers, payload: hook })
    assert.equal(replayed.statusCode, 201)
    assert.equal(replayed.headers['idempotent-replayed'], 'true')
    assert.equal(replayed.headers['cache-control'], 'no-store')

    const id = created.json<{ id: number }>().id
    const rotated = await t.app.inject({ method: 'POST', url: `/api/v1/webhooks/${String(id)}/rotate_secret`, headers: acme.auth })
    assert.equal(rotated.statusCode, 200, rotated.body)
    assert.match(rotated.json().secret, /^whsec_/)
    assert.equal(rotated.headers['cache-control'], 'no-store')

    const read = await t.app.inject({ url: `/api/v1/webhooks/${String(id)}`, headers: acme.auth })
    assert.equal(read.statusCode, 200)
    assert.equal(read.json().secret, undefined)
    assert.notEqual(read.headers['cache-control'], 'no-store')
  })

  test('the OpenAPI document declares Cache-Control on every success answer with a secret field, and only there', async () => {
    const doc = (await t.app.inject({ url: '/docs/v1/openapi.json' })).json<Doc>()
    const resolve = (schema: Schema | undefined): Schema | undefined => {
      const name = schema?.$ref?.split('/').at(-1)
      return name ? doc.components.schemas[name] : schema
    }
    const hasSecret = (given: Schema | undefined, depth = 0): boolean => {
      const schema = resolve(given)
      if (!schema || depth > 4) return false
      // A secret is text (authorize_api's `token` is an object describing the token, not one).
      const isText = (s: Schema) => s.type === 'string' || (Array.isArray(s.type) && s.type.includes('string'))
      if (Object.entries(schema.properties ?? {}).some(([name, s]) => SECRET_FIELDS.has(name) && isText(s))) return true
      return [...(schema.anyOf ?? []), ...(schema.allOf ?? [])].some((s) => hasSecret(s, depth + 1))
    }
    const withSecret: string[] = []
    for (const [path, item] of Object.entries(doc.paths)) {
      if (!path.startsWith('/api/')) continue
      for (const [method, op] of Object.entries(item)) {
        for (const [status, response] of Object.entries(op.responses)) {
          if (!/^2/.test(status)) continue
          const secret = Object.values(response.content ?? {}).some((c) => hasSecret(c.schema))
          if (secret) withSecret.push(`${method.toUpperCase()} ${path}`)
          assert.equal(response.headers?.['Cache-Control'] !== undefined, secret, `${method} ${path} ${status}`)
        }
      }
    }
    assert.deepEqual(withSecret.sort(), ['POST /api/v1/webhooks', 'POST /api/v1/webhooks/{id}/rotate_secret'])
  })
})
