// Cookies and cross-site request protection of the web application.
// - The session cookie carries a random secret (the database keeps its SHA-256); HttpOnly,
//   SameSite=Lax, and Secure with the __Host- prefix when PUBLIC_URL is https.
// - Signed-in forms carry a CSRF token derived from the session's secret (an HMAC), which a
//   page of another site can neither read nor compute. Forms used before signing in (sign in,
//   invite) carry a random token that must equal the one in their own cookie (double submit).
// - A one-time message for the next page (the new token, shown once) travels in a cookie
//   encrypted with a key derived from the session's secret, so it shows only in the session
//   that made it, and only once.
import { createCipheriv, createDecipheriv, createHmac, randomBytes, timingSafeEqual } from 'node:crypto'
import type { CookieSerializeOptions } from '@fastify/cookie'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { SESSION_ABSOLUTE_MS } from '../../modules/auth/index.js'

export const CSRF_FIELD = '_csrf'
const FLASH_MAX_AGE_S = 120

export interface CookieNames {
  session: string
  form: string
  flash: string
}

export class WebCookies {
  readonly names: CookieNames
  private readonly base: CookieSerializeOptions

  constructor(readonly secure: boolean) {
    // __Host-: only set over https, for this host, on path / (no subdomain can plant it).
    const prefix = secure ? '__Host-' : ''
    this.names = { session: `${prefix}engage_session`, form: `${prefix}engage_form`, flash: `${prefix}engage_flash` }
    this.base = { path: '/', httpOnly: true, sameSite: 'lax', secure }
  }

  sessionSecret(request: FastifyRequest): string | undefined {
    return usable(request.cookies[this.names.session])
  }

  setSession(reply: FastifyReply, secret: string): void {
    reply.setCookie(this.names.session, secret, { ...this.base, maxAge: SESSION_ABSOLUTE_MS / 1000 })
  }

  clearSession(reply: FastifyReply): void {
    reply.clearCookie(this.names.session, this.base)
    reply.clearCookie(this.names.flash, this.base)
  }

  /** The token of the forms used before signing in: the cookie's, or a new one set now. */
  formToken(request: FastifyRequest, reply: FastifyReply): string {
    const existing = usable(request.cookies[this.names.form])
    if (existing) return existing
    const token = randomBytes(32).toString('base64url')
    reply.setCookie(this.names.form, token, this.base)
    return token
  }

  /** Double submit: the form's token equals its cookie's. */
  formTokenMatches(request: FastifyRequest, sent: unknown): boolean {
    const cookie = usable(request.cookies[this.names.form])
    return cookie !== undefined && typeof sent === 'string' && same(cookie, sent)
  }

  setFlash(reply: FastifyReply, secret: string, message: object): void {
    reply.setCookie(this.names.flash, seal(secret, JSON.stringify(message)), { ...this.base, maxAge: FLASH_MAX_AGE_S })
  }

  /**
   * The one-time message, cleared as it is read: undefined if it was made for another session,
   * or for another page (the cookie is shared by every page: a notice left by a form whose
   * answer was not followed is not drawn on a page that does not know its kind).
   */
  takeFlash<F extends { kind: string }>(request: FastifyRequest, reply: FastifyReply, secret: string, kinds: readonly F['kind'][]): F | undefined {
    const sealed = request.cookies[this.names.flash]
    if (sealed === undefined) return undefined
    reply.clearCookie(this.names.flash, this.base)
    const text = unseal(secret, sealed)
    if (text === undefined) return undefined
    let message: unknown
    try {
      message = JSON.parse(text)
    } catch {
      return undefined
    }
    const kind = typeof message === 'object' && message !== null ? (message as { kind?: unknown }).kind : undefined
    return typeof kind === 'string' && (kinds as readonly string[]).includes(kind) ? (message as F) : undefined
  }
}

/** Secrets are 43 base64url characters; anything else in a cookie is ignored, not looked up. */
function usable(value: string | undefined): string | undefined {
  return value !== undefined && /^[A-Za-z0-9_-]{43}$/.test(value) ? value : undefined
}

function same(a: string, b: string): boolean {
  const x = Buffer.from(a)
  const y = Buffer.from(b)
  return x.length === y.length && timingSafeEqual(x, y)
}

const derive = (secret: string, purpose: string) => createHmac('sha256', secret).update(purpose).digest()

/** The CSRF token of a session's forms. */
export function sessionCsrf(secret: string): string {
  return derive(secret, 'csrf').toString('base64url')
}

export function sessionCsrfMatches(secret: string, sent: unknown): boolean {
  return typeof sent === 'string' && same(sessionCsrf(secret), sent)
}

function seal(secret: string, text: string): string {
  const iv = randomBytes(12)
  const cipher = createCipheriv('aes-256-gcm', derive(secret, 'flash'), iv)
  const body = Buffer.concat([cipher.update(text, 'utf8'), cipher.final()])
  return Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url')
}

function unseal(secret: string, sealed: string): string | undefined {
  try {
    const data = Buffer.from(sealed, 'base64url')
    if (data.length < 29) return undefined
    const decipher = createDecipheriv('aes-256-gcm', derive(secret, 'flash'), data.subarray(0, 12))
    decipher.setAuthTag(data.subarray(12, 28))
    return Buffer.concat([decipher.update(data.subarray(28)), decipher.final()]).toString('utf8')
  } catch {
    return undefined
  }
}
