// The web application through app.inject, as a browser would use it: a cookie jar, the
// CSRF token read from each form, forms posted url-encoded.
import assert from 'node:assert/strict'
import type { App } from '../../src/app.js'
import type { Db } from '../../src/db/db.js'
import { systemActing } from '../../src/acting.js'
import { setPassword } from '../../src/modules/auth/accounts.service.js'
import { addUser } from '../helpers/factories.js'
import { rememberSecret } from '../helpers/secrets.js'
import type { CompanyId } from '../../src/tenancy.js'

export const PASSWORD = 'correct horse battery staple'
rememberSecret(PASSWORD)

/** A user of the company with a password set, for signing in. */
export async function member(
  db: Db,
  companyId: CompanyId,
  options: { email?: string; name?: string; password?: string; role?: 'admin' | 'member' } = {},
) {
  const user = await addUser(db, companyId, { email: options.email, name: options.name, role: options.role })
  rememberSecret(options.password)
  await setPassword(db, systemActing(), user.id, { password: options.password ?? PASSWORD })
  return user
}

export interface Response {
  status: number
  headers: Record<string, string | string[] | number | undefined>
  body: string
  location: string | undefined
}

/** The hidden CSRF field of the page's first form (or of the form posting to `action`). */
export function csrfOf(body: string, action?: string): string {
  const form = action ? body.slice(body.indexOf(`action="${action}"`)) : body
  const match = /name="_csrf" value="([^"]+)"/.exec(form)
  assert.ok(match?.[1], 'the page has a form with a CSRF token')
  return match[1]
}

export class Browser {
  readonly cookies = new Map<string, string>()
  constructor(
    private readonly app: App,
    private readonly remoteAddress = '127.0.0.1',
  ) {}

  private remember(setCookie: string | string[] | number | undefined) {
    const lines = setCookie === undefined ? [] : Array.isArray(setCookie) ? setCookie : [String(setCookie)]
    for (const line of lines) {
      const [pair = '', ...attributes] = line.split(';')
      const eq = pair.indexOf('=')
      const name = pair.slice(0, eq).trim()
      const expired = attributes.some((a) => /^\s*max-age=0\s*$/i.test(a) || /^\s*expires=Thu, 01 Jan 1970/i.test(a))
      if (expired) this.cookies.delete(name)
      else this.cookies.set(name, pair.slice(eq + 1))
    }
  }

  private cookieHeader() {
    return [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ')
  }

  async request(method: 'GET' | 'POST', url: string, form?: Record<string, string> | string, headers: Record<string, string> = {}): Promise<Response> {
    const payload = typeof form === 'string' ? form : form && new URLSearchParams(form).toString()
    const res = await this.app.inject({
      method,
      url,
      remoteAddress: this.remoteAddress,
      headers: {
        ...(this.cookies.size > 0 ? { cookie: this.cookieHeader() } : {}),
        ...(payload !== undefined ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
        ...headers,
      },
      ...(payload !== undefined ? { payload } : {}),
    })
    this.remember(res.headers['set-cookie'])
    const location = res.headers.location
    return { status: res.statusCode, headers: res.headers, body: res.body, location: typeof location === 'string' ? location : undefined }
  }

  get(url: string) {
    return this.request('GET', url)
  }

  /** Posts a form with the CSRF token of the page at `from` (its form posting to `url`). */
  async submit(from: string, url: string, fields: Record<string, string> = {}): Promise<Response> {
    const page = await this.get(from)
    assert.equal(page.status, 200, page.body)
    return this.request('POST', url, { _csrf: csrfOf(page.body, url), ...fields })
  }

  async signIn(email: string, password = PASSWORD): Promise<Response> {
    return this.submit('/login', '/login', { email, password })
  }
}

/** A New flow or edit form body with step rows, as the browser sends them (blank rows included). */
export function flowForm(csrf: string, name: string, steps: [kind: string, day: string, title: string][], extra: Record<string, string> = {}) {
  const params = new URLSearchParams({ _csrf: csrf, name, ...extra })
  for (const [kind, day, title] of [...steps, ['', '', ''] as const]) {
    params.append('steps[][kind]', kind)
    params.append('steps[][day]', day)
    params.append('steps[][title]', title)
  }
  return params.toString()
}
