// The reference page in headless Chromium, reached through a host name that is not
// localhost over plain http (as a self-hosted http://server:3000/docs/v1 is): every asset
// loads and the operations show. Needs Chromium (CHROMIUM_PATH, else /usr/bin/chromium).
import assert from 'node:assert/strict'
import { existsSync } from 'node:fs'
import type { AddressInfo } from 'node:net'
import { after, before, describe, test } from 'node:test'
import { chromium, type Browser } from 'playwright-core'
import { backends, startApp, type TestApp } from '../helpers/app.js'

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'
const [backend] = backends()

describe('/docs/v1 in a browser, on a non-localhost http host', { skip: existsSync(CHROMIUM) ? false : `no Chromium at ${CHROMIUM}` }, () => {
  let t: TestApp
  let browser: Browser
  let origin: string
  before(async () => {
    if (!backend) throw new Error('no backend')
    t = await startApp(backend)
    await t.app.listen({ port: 0, host: '127.0.0.1' })
    origin = `http://engage.test:${String((t.app.server.address() as AddressInfo).port)}`
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--no-sandbox', '--host-resolver-rules=MAP engage.test 127.0.0.1'],
    })
  })
  after(async () => {
    await browser.close()
    await t.close()
  })

  test('the page loads every asset, is titled with the product and lists the operations', async () => {
    const page = await browser.newPage()
    const failed: string[] = []
    page.on('requestfailed', (request) => failed.push(`${request.url()} ${request.failure()?.errorText ?? ''}`))
    page.on('response', (response) => {
      if (response.status() >= 400) failed.push(`${response.url()} ${String(response.status())}`)
    })
    const response = await page.goto(`${origin}/docs/v1`)
    assert.equal(response?.status(), 200)
    assert.doesNotMatch(String(await response.headerValue('content-security-policy')), /upgrade-insecure-requests/)
    await page.waitForSelector('.opblock-summary', { timeout: 15_000 })
    assert.equal(await page.title(), 'engage API reference')
    assert.match(await page.locator('.info .title').innerText(), /engage API/)
    const operations = await page.locator('.opblock-summary-path').allInnerTexts()
    assert.ok(operations.length >= 30, String(operations.length))
    assert.ok(operations.some((path) => path.replace(/\u200b/g, '') === '/api/v1/contacts'), operations.join('\n'))
    assert.equal(await page.locator('.topbar').count(), 0, 'no Swagger top bar (its logo)')
    assert.deepEqual(failed, [])
    assert.ok(page.url().startsWith('http://engage.test:'), page.url())
    await page.close()
  })
})
