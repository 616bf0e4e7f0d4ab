// The web application in a real browser: Debian's Chromium (CHROMIUM_PATH, else
// /usr/bin/chromium; never a browser download), launched beside an app listening on a free
// loopback port. Browser test files skip themselves, with the reason, where it is missing.
import assert from 'node:assert/strict'
import { existsSync, readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import type { AddressInfo } from 'node:net'
import { chromium, type Browser, type Page } from 'playwright-core'
import { startApp, type Backend, type TestApp } from './app.js'

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'

/** The `skip` option of a browser test file's describe: false, or why it cannot run here. */
export const withoutChromium: false | string = existsSync(CHROMIUM) ? false : `no Chromium at ${CHROMIUM}`

/** An app on a fresh database, listening on 127.0.0.1, and one Chromium, started together. */
export async function startInChromium(
  backend: Backend,
  options: Parameters<typeof startApp>[1] = {},
): Promise<{ t: TestApp; browser: Browser; origin: string }> {
  const [t, browser] = await Promise.all([
    startApp(backend, options),
    chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] }),
  ])
  await t.app.listen({ port: 0, host: '127.0.0.1' })
  return { t, browser, origin: `http://127.0.0.1:${String((t.app.server.address() as AddressInfo).port)}` }
}

const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8')

interface AxeResult {
  violations: { id: string; nodes: { target: string[] }[] }[]
}

/**
 * axe-core (WCAG 2.1 A and AA) finds nothing on the page, and nothing is wider than the screen.
 * Evaluated over the DevTools protocol, which the CSP does not govern.
 */
export async function checkPage(page: Page, what: string): Promise<void> {
  await page.evaluate(AXE)
  const result = await page.evaluate<AxeResult>(`axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] } })`)
  assert.deepEqual(result.violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`), [], `axe on ${what}`)
  const widths = await page.evaluate<{ scroll: number; client: number }>('({ scroll: document.documentElement.scrollWidth, client: document.documentElement.clientWidth })')
  assert.ok(widths.scroll <= widths.client, `${what}: ${String(widths.scroll)} px of content in ${String(widths.client)} px`)
}

/**
 * checkPage for a page of a context without JavaScript, where axe cannot run (its timers never
 * fire): the document as the server sent it, served at its address to a page with JavaScript of
 * the same width, whose own script (/assets/web.js) is not loaded.
 */
export async function checkPageWithoutScripts(browser: Browser, page: Page, what: string): Promise<void> {
  const document = await page.content()
  const address = new URL(page.url())
  const viewport = page.viewportSize() ?? { width: 390, height: 800 }
  const checker = await browser.newContext({ viewport, isMobile: viewport.width < 500 })
  try {
    const twin = await checker.newPage()
    await twin.route((url) => url.pathname === '/assets/web.js', (route) => route.abort())
    await twin.route((url) => url.pathname === address.pathname, (route) => route.fulfill({ contentType: 'text/html; charset=utf-8', body: document }))
    await twin.goto(address.href)
    assert.equal(await twin.title(), await page.title(), 'the checker shows the same document')
    await checkPage(twin, `${what} (without JavaScript)`)
  } finally {
    await checker.close()
  }
}

/**
 * With UPDATE_SCREENSHOTS=1, the page as docs/images/`name`.png, which README.md and docs/web.md
 * show, from a desktop-wide test only (1,000 px or more); otherwise nothing.
 */
export async function screenshot(page: Page, name: string, options: { fullPage?: boolean } = {}): Promise<void> {
  if (process.env.UPDATE_SCREENSHOTS !== '1' || (page.viewportSize()?.width ?? 0) < 1000) return
  await page.screenshot({ path: `docs/images/${name}.png`, fullPage: options.fullPage ?? false })
}

/** checkPage, or checkPageWithoutScripts for a page whose context runs no JavaScript. */
export function checkPageAsRun(browser: Browser, page: Page, what: string, javaScript: boolean): Promise<void> {
  return javaScript ? checkPage(page, what) : checkPageWithoutScripts(browser, page, what)
}

/** Signs in on /login as `email` with `password`: Sign in clicked, or pressed with Enter (`keyboard`). */
export async function signInInChromium(page: Page, origin: string, email: string, password: string, options: { keyboard?: boolean } = {}): Promise<void> {
  await page.goto(`${origin}/login`)
  await page.getByLabel('Email').fill(email)
  await page.getByLabel('Password').fill(password)
  const button = page.getByRole('button', { name: 'Sign in' })
  await (options.keyboard ? button.press('Enter') : button.click())
}
