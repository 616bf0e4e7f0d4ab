// The web application in a real browser: Debian's Chromium (CHROMIUM_PATH, else
// /usr/bin/chromium; never a browser download), launched beside an app listening on a free
// loopback port. Browser test files skip themselves, with the reason, where it is missing.
import { existsSync } from 'node:fs'
import type { AddressInfo } from 'node:net'
import { chromium, type Browser } from 'playwright-core'
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
