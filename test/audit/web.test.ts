// Settings → Security log without a browser (app.inject): admins only, sentences, filters
// from the query string, 422 with the problems for bad ones, the export.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { systemActing } from '../../src/acting.js'
import { setPassword } from '../../src/modules/auth/accounts.service.js'
import { backends, startApp, type TestApp } from '../helpers/app.js'
import { addUser, tenant } from '../helpers/factories.js'
import { Browser, member, PASSWORD } from '../web/helpers.js'

const [backend] = backends()
if (!backend) throw new Error('no backend')

describe('the security log page', () => {
  let t: TestApp
  let admin: Browser
  let companyId: Awaited<ReturnType<typeof tenant>>['companyId']
  before(async () => {
    t = await startApp(backend)
    companyId = (await tenant(t.db)).companyId
    const ana = await addUser(t.db, companyId, { name: 'Ana', email: 'ana@log.example', role: 'admin' })
    await setPassword(t.db, systemActing(), ana.id, { password: PASSWORD })
    admin = new Browser(t.app, '203.0.113.7')
    assert.equal((await admin.signIn('ana@log.example')).status, 303)
  })
  after(() => t.close())

  test('admins see sentences newest first, filtered by the query string', async () => {
    await admin.submit('/settings/integrations', '/settings/integrations/tokens', { label: 'CRM sync' })
    const page = await admin.get('/settings/audit')
    assert.equal(page.status, 200)
    const items = [...page.body.matchAll(/<span class="sentence">([^<]*)<\/span>/g)].map((m) => m[1])
    assert.match(items[0] ?? '', /^Ana created the token “CRM sync”, from 203\.0\.113\.7, just now$/)
    assert.match(items[1] ?? '', /^Ana signed in, from 203\.0\.113\.7, just now$/)
    const filtered = await admin.get('/settings/audit?action=user.signed_in')
    const only = [...filtered.body.matchAll(/<span class="sentence">([^<]*)<\/span>/g)].map((m) => m[1])
    assert.deepEqual(only.map((s) => /signed in/.test(s ?? '')), [true])
    assert.match(filtered.body, /<option value="user.signed_in" selected>/)
    assert.match(page.body, /href="\/settings\/audit\/export\?since=[^"]+&amp;until=[^"]+"/)
  })

  test('bad filters answer 422 with their problems, and nothing else', async () => {
    const res = await admin.get('/settings/audit?actor_id=abc&since=yesterday')
    assert.equal(res.status, 422)
    assert.match(res.body, /role="alert">actor id/)
    assert.match(res.body, /role="alert">since/)
    assert.doesNotMatch(res.body, /class="audit-log"/)
  })

  test('the export answers JSON Lines of the range', async () => {
    const res = await admin.get(`/settings/audit/export?since=2020-01-01T00:00:00Z&until=${encodeURIComponent(new Date(Date.now() + 60_000).toISOString())}`)
    assert.equal(res.status, 200)
    assert.match(String(res.headers['content-type']), /^application\/x-ndjson/)
    const actions = res.body.trimEnd().split('\n').map((line) => (JSON.parse(line) as { action: string }).action)
    assert.ok(actions.includes('user.signed_in') && actions.includes('api_token.created'))
  })

  test('a member gets 403 and no link', async () => {
    const user = await member(t.db, companyId, { email: 'mo@log.example' })
    const browser = new Browser(t.app)
    await browser.signIn(user.email)
    assert.doesNotMatch((await browser.get('/settings/integrations')).body, /Security log/)
    assert.equal((await browser.get('/settings/audit')).status, 403)
    assert.equal((await browser.get('/settings/audit/export?since=2020-01-01T00:00:00Z&until=2030-01-01T00:00:00Z')).status, 403)
  })
})
