import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { backends, startApp, type TestApp } from './helpers/app.js'

const [backend] = backends()

describe('API reference', () => {
  let t: TestApp
  before(async () => {
    if (!backend) throw new Error('no backend')
    t = await startApp(backend)
  })
  after(() => t.close())

  test('/docs/v1 serves the HTML reference from the package, no CDN', async () => {
    const page = await t.app.inject({ url: '/docs/v1' })
    const html = page.statusCode === 302 ? await t.app.inject({ url: String(page.headers.location) }) : page
    assert.equal(html.statusCode, 200)
    assert.match(String(html.headers['content-type']), /text\/html/)
    assert.doesNotMatch(html.body, /https?:\/\/(?!localhost)[^"']*\.(js|css)/)
    const asset = await t.app.inject({ url: '/docs/v1/static/swagger-ui-bundle.js' })
    assert.equal(asset.statusCode, 200)
  })

  test('/docs/v1/openapi.json is OpenAPI 3.1 from the route schemas', async () => {
    const res = await t.app.inject({ url: '/docs/v1/openapi.json' })
    assert.equal(res.statusCode, 200)
    const doc = res.json()
    assert.equal(doc.openapi, '3.1.0')
    assert.deepEqual(Object.keys(doc.components.securitySchemes).sort(), ['bearerToken', 'queryToken'])
    const users = doc.paths['/api/v1/users'].get
    assert.ok(users.parameters.some((p: { name: string; in: string; required: boolean }) => p.name === 'page' && p.in === 'query' && p.required))
    assert.ok(users.responses['200'])
    assert.deepEqual(Object.keys(users.responses), ['200', '401', '403', '422', '429', '500', '503'])
    assert.deepEqual(users.security, [{ bearerToken: ['users:read'] }, { queryToken: ['users:read'] }])
    assert.ok(doc.paths['/api/v1/users/authorize_api'].get)
    assert.ok(doc.components.schemas.Error)
    assert.deepEqual(doc.paths['/healthz'].get.security, [])
  })
})
