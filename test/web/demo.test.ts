// The demo company's admin signs in with the password printed at first start and finds the
// demo token on Settings → Integrations.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { seedDemoIfEmpty } from '../../src/demo/index.js'
import { backends, startApp, type TestApp } from '../helpers/app.js'
import { Browser } from './helpers.js'

const [backend] = backends()

describe('demo sign-in', () => {
  let t: TestApp
  before(async () => {
    if (!backend) throw new Error('no backend')
    t = await startApp(backend)
  })
  after(() => t.close())

  test('the generated password signs the demo admin in, and the page lists the demo token', async () => {
    const demo = await seedDemoIfEmpty(t.db)
    assert.ok(demo)
    assert.equal(demo.email, 'ana@acme.example')
    assert.match(demo.password, /^[A-Za-z0-9_-]{24}$/)
    const browser = new Browser(t.app)
    assert.equal((await browser.signIn(demo.email, demo.password)).status, 303)
    const page = await browser.get('/settings/integrations')
    assert.equal(page.status, 200)
    assert.match(page.body, /Ana Souza/)
    assert.ok(page.body.includes(`<code>${demo.token.slice(0, 12)}…</code>`))
    assert.ok(!page.body.includes(demo.token))
  })
})
