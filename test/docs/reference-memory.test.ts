// The API reference's document is serialized once: every fetch of /docs/v1/openapi.json and
// of the page's own /docs/v1/json sends the same bytes, so fetching it does not make and drop
// ~2 MB of string and buffer per request (docs/performance.md, "The API reference's memory").
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

test('the document is serialized on the first fetch only, and both URLs answer the same bytes', async () => {
  const first = await t.app.inject({ url: '/docs/v1/openapi.json' })
  assert.equal(first.statusCode, 200)
  assert.equal(first.headers['content-type'], 'application/json; charset=utf-8')
  assert.equal((JSON.parse(first.body) as { openapi: string }).openapi, '3.1.0')
  const stringify = JSON.stringify
  let big = 0
  JSON.stringify = ((...args: Parameters<typeof stringify>) => {
    const text = stringify(...args)
    if (text.length > 100_000) big++
    return text
  }) as typeof JSON.stringify
  try {
    for (let i = 0; i < 5; i++) {
      for (const url of ['/docs/v1/openapi.json', '/docs/v1/json']) {
        const res = await t.app.inject({ url })
        assert.equal(res.statusCode, 200, url)
        assert.equal(res.body, first.body, url)
      }
    }
  } finally {
    JSON.stringify = stringify
  }
  assert.equal(big, 0, 'no fetch serialized the document again')
})
