// Who may open each page, declared in one place: the route's `config.page` — 'public' (sign in,
// invite links), 'member' (any signed-in user of the company) or 'admin'. One hook, run before
// every handler of the web application, reads the session cookie, sends anyone not signed in
// to /login (303), checks the CSRF token of every signed-in form post (403 page, nothing
// changed) and refuses members an admin page (403 page); the handler then reads who is signed
// in with `signedIn(request)`. A page group is a plugin registered by src/web/index.ts.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { Config } from '../../config.js'
import { ApiError } from '../../errors.js'
import { MAX_ID } from '../../http/schemas.js'
import { webActing, type Acting } from '../../acting.js'
import { findAccount, type Account } from '../../modules/auth/index.js'
import type { Caller, TokenAccess } from '../../tenancy.js'
import { CSRF_FIELD, sessionCsrf, sessionCsrfMatches, type WebCookies } from '../shared/security.js'
import { errorPage, sendHtml, type PageFrame } from './frame.js'

export type PageAccess = 'public' | 'member' | 'admin'

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Who may open a page of the web application (src/web/frame/guard.ts). */
    page?: PageAccess
  }
  interface FastifyRequest {
    /** The signed-in user of a 'member' or 'admin' page, set by the guard; read it with `signedIn`. */
    webSession: SignedIn | null
  }
}

/** A signed-in user on one request: the account, the session's secret and CSRF token, and the page frame. */
export interface SignedIn {
  account: Account
  secret: string
  csrf: string
  chrome: PageFrame
}

/** The options every page group plugin is registered with. */
export interface PageGroupOptions {
  config: Config
  cookies: WebCookies
  /** The frame of pages before signing in (error pages, sign in). */
  chrome: PageFrame
  now: () => Date
}

/** Forms are small: a larger body is refused (413) before it is read. */
export const FORM_BODY_LIMIT = 64 * 1024
/** The route options of a form post: its access and the body limit. */
export const formRoute = (page: PageAccess) => ({ bodyLimit: FORM_BODY_LIMIT, config: { page } })
/** The route options of a page. */
export const pageRoute = (page: PageAccess) => ({ config: { page } })

/** The signed-in user of a page whose route declared 'member' or 'admin'. */
export function signedIn(request: FastifyRequest): SignedIn {
  const session = request.webSession
  if (!session) throw new Error(`${request.routeOptions.url ?? request.url} reads the session but does not declare config.page`)
  return session
}

/** A session holds no api token: the services see a caller with full access, as the user's own rights allow. */
const SESSION_ACCESS: TokenAccess = { kind: 'personal', scopes: null, grants: null, expiresAt: null, app: null, grantId: null }

/** The signed-in user as the services' caller (company, user, role, time zone), acting now with the web's audit context. */
export function webCaller(request: FastifyRequest, account: Account, now: Date): Caller & Account & Acting {
  return { ...webActing(request, account, now), tokenId: 0, access: SESSION_ACCESS }
}

/** Path ids are 1..2^53-1 in decimal; anything else names nothing (the 404 page). */
export function pathId(request: FastifyRequest, name = 'id'): number {
  const raw = (request.params as Record<string, string | undefined>)[name] ?? ''
  const id = /^[1-9]\d{0,15}$/.test(raw) ? Number(raw) : 0
  if (id < 1 || id > MAX_ID) throw new ApiError(404)
  return id
}

/** The 403 page of a form without its CSRF token (expired, or sent from another site). */
export const forbiddenForm = (reply: FastifyReply, chrome: PageFrame) =>
  sendHtml(
    reply,
    403,
    errorPage(chrome, 'Form expired', 'This form has expired or was sent from another site, so nothing was changed. Reload the page and try again.', {
      href: '/',
      text: 'Go to the start page',
    }),
  )

/** The 403 page of a member on an admin's page or form. */
export const adminsOnly = (reply: FastifyReply, signed: SignedIn) =>
  sendHtml(
    reply,
    403,
    errorPage(signed.chrome, 'Admins only', `Only an admin of ${signed.account.companyName} can do this, so nothing was changed.`, {
      href: '/settings',
      text: 'Go to Settings',
    }),
  )

/** Adds the guard to `app` (the web application's root plugin), before any page group is registered. */
export function addPageGuard(app: FastifyInstance, cookies: WebCookies, chrome: PageFrame) {
  app.decorateRequest('webSession', null)

  app.addHook('preHandler', async (request, reply) => {
    const access = request.routeOptions.config.page
    if (access === undefined || access === 'public') return
    const secret = cookies.sessionSecret(request)
    const account = secret && (await findAccount(app.db, secret, app.clock()))
    if (!secret || !account) {
      // A cookie whose session ended (signed out elsewhere, expired, user deactivated) is dropped.
      if (request.cookies[cookies.names.session] !== undefined) cookies.clearSession(reply)
      return reply.code(303).header('cache-control', 'no-store').redirect('/login', 303)
    }
    const csrf = sessionCsrf(secret)
    const signed: SignedIn = { account, secret, csrf, chrome: { ...chrome, path: request.url, signedIn: { account, csrf } } }
    if (request.method !== 'GET' && request.method !== 'HEAD' && !sessionCsrfMatches(secret, (request.body as Record<string, unknown> | undefined)?.[CSRF_FIELD])) {
      return forbiddenForm(reply, signed.chrome)
    }
    if (access === 'admin' && account.role !== 'admin') return adminsOnly(reply, signed)
    request.webSession = signed
  })
}

type Form = Record<string, unknown>
type Current = { account: Account; secret: string }

/**
 * The gates of the OAuth pages, which check access in their handlers rather than in
 * `config.page` (/oauth/authorize sends a signed-out user to sign in and back): the same
 * session, CSRF and role checks as the guard, and the same pages.
 */
export function handlerGates(app: FastifyInstance, cookies: WebCookies, chrome: PageFrame, now: () => Date) {
  async function session(request: FastifyRequest): Promise<Current | undefined> {
    const secret = cookies.sessionSecret(request)
    if (!secret) return undefined
    const account = await findAccount(app.db, secret, now())
    return account && { account, secret }
  }

  const signedInChrome = (account: Account, secret: string): PageFrame => ({ ...chrome, signedIn: { account, csrf: sessionCsrf(secret) } })
  const asSignedIn = ({ account, secret }: Current): SignedIn => ({ account, secret, csrf: sessionCsrf(secret), chrome: signedInChrome(account, secret) })

  /** A signed-in page or form: the account, or a redirect to sign in; a form's CSRF token is checked. */
  async function requireAccount(request: FastifyRequest, reply: FastifyReply, form?: Form) {
    const current = await session(request)
    if (!current) {
      if (request.cookies[cookies.names.session] !== undefined) cookies.clearSession(reply)
      await reply.code(303).header('cache-control', 'no-store').redirect('/login', 303)
      return undefined
    }
    if (form && !sessionCsrfMatches(current.secret, form[CSRF_FIELD])) {
      await forbiddenForm(reply, signedInChrome(current.account, current.secret))
      return undefined
    }
    return current
  }

  /** A page or form only admins may use: a member gets a 403 page and nothing changes. */
  async function requireAdmin(request: FastifyRequest, reply: FastifyReply, form?: Form) {
    const current = await requireAccount(request, reply, form)
    if (!current || current.account.role === 'admin') return current
    await adminsOnly(reply, asSignedIn(current))
    return undefined
  }

  /** A form doing one thing to the item its path names, then on to `to` with the flash `act` returns. */
  function itemForm(allowed: typeof requireAccount, to: string, act: (acting: Account & Acting, id: number) => Promise<object>) {
    return async (request: FastifyRequest, reply: FastifyReply) => {
      const current = await allowed(request, reply, (request.body ?? {}) as Form)
      if (!current) return reply
      const flash = await act(webActing(request, current.account, now()), pathId(request))
      cookies.setFlash(reply, current.secret, flash)
      return reply.redirect(to, 303)
    }
  }

  return { cookies, chrome, now, session, requireAccount, requireAdmin, itemForm, signedInChrome, pathId, formRoute: { bodyLimit: FORM_BODY_LIMIT } }
}
