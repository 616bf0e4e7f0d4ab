// Every page names a favicon (an SVG asset) that the page's own Content-Security-Policy lets
// the browser load; the audit page's range fields say which time zones they take.
import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { backends, startApp, type TestApp } from '../helpers/app.js'

const [backend] = backends()
if (!backend) throw new Error('no backend')
let t: TestApp
before(async () => {
  t = await startApp(backend)
})
after(() => t.close())

test('a page links its favicon; the icon is served as SVG, cached, and allowed by the CSP', async () => {
  const page = await t.app.inject({ url: '/login' })
  assert.equal(page.statusCode, 200)
  const href = /<link rel="icon" type="image\/svg\+xml" href="([^"]+)">/.exec(page.body)?.[1]
  assert.ok(href, page.body.slice(0, 600))
  assert.match(href, /^\/assets\/favicon\.svg\?v=[0-9a-f]{12}$/)
  assert.match(String(page.headers['content-security-policy']), /img-src 'self'/)
  const icon = await t.app.inject({ url: href })
  assert.equal(icon.statusCode, 200)
  assert.equal(icon.headers['content-type'], 'image/svg+xml')
  assert.match(String(icon.headers['cache-control']), /immutable/)
  assert.match(icon.body, /^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"/)
})
