// The OAuth pages of the web application: GET /oauth/authorize (checks the request, then the
// consent page for the signed-in user), POST /oauth/authorize (Allow or Deny, CSRF-checked like
// every form), Settings → Apps for admins, and revoking an authorised app on Integrations.
// The protocol's rules are the oauth module's (src/modules/oauth/oauth.service.ts).
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { ApiError } from '../../errors.js'
import { webActing, type Acting } from '../../modules/audit/audit.context.js'
import type { Account } from '../../modules/auth/accounts.service.js'
import {
  answerConsent,
  changeApp,
  checkAuthorize,
  findApp,
  listApps,
  registerApp,
  removeApp,
  revokeAuthorisedApp,
  rotateSecret,
  type AppInput,
} from '../../modules/oauth/oauth.service.js'
import { APPS, appsPage, consentPage, deleteAppPage, editAppPage, type AppFlash, type AppForm, type AuthorizeFields } from './oauth.pages.js'
import { errorPage, sendPage, type Chrome } from '../frame/frame.js'
import { sessionCsrf, type WebCookies } from '../shared/security.js'

type Form = Record<string, unknown>
type Current = { account: Account; secret: string }
/** Lets a signed-in user on (a form's CSRF token checked), or answers and gives undefined. */
type Gate = (request: FastifyRequest, reply: FastifyReply, form?: Form) => Promise<Current | undefined>

export interface OAuthPagesOptions {
  cookies: WebCookies
  chrome: Chrome
  now: () => Date
  session: (request: FastifyRequest) => Promise<Current | undefined>
  requireAccount: Gate
  requireAdmin: Gate
  /** A form doing one thing to the item its path names, then on to `to` with a flash (web.routes.ts). */
  itemForm: (
    allowed: Gate,
    to: string,
    act: (acting: Account & Acting, id: number) => Promise<object>,
  ) => (request: FastifyRequest, reply: FastifyReply) => Promise<FastifyReply>
  signedInChrome: (account: Account, secret: string) => Chrome
  pathId: (request: FastifyRequest) => number
  formRoute: { bodyLimit: number }
}

const AUTHORIZE_FIELDS = ['client_id', 'redirect_uri', 'response_type', 'scope', 'state', 'code_challenge', 'code_challenge_method'] as const

/** Where signing in may return to: an authorization request of this service, nothing else. */
export function isAuthorizeReturn(next: unknown): next is string {
  return typeof next === 'string' && next.startsWith('/oauth/authorize?') && next.length <= 4096 && !/[\s\\]/.test(next)
}

/**
 * The request's parameters; one given twice (RFC 6749 §3.1) or not as text becomes a value no
 * check accepts (an unknown client, an unregistered URI), never a default.
 */
function authorizeParams(source: Form): AuthorizeFields {
  const fields = {} as AuthorizeFields
  for (const name of AUTHORIZE_FIELDS) {
    const value = source[name]
    fields[name] = value === undefined ? undefined : typeof value === 'string' ? value : '\u0000repeated'
  }
  return fields
}

function appInput(form: Form): { input: AppInput; typed: AppForm } {
  const text = (name: string) => (typeof form[name] === 'string' ? form[name] : '')
  const raw = form.scopes === undefined ? [] : Array.isArray(form.scopes) ? (form.scopes as unknown[]) : [form.scopes]
  const scopes = raw.filter((scope): scope is string => typeof scope === 'string').map((scope) => scope.slice(0, 64))
  const redirectUris = text('redirect_uris')
  const input: AppInput = { name: text('name'), redirectUris: redirectUris.split(/\r?\n/), scopes, public: text('client_type') === 'public' }
  const typed: AppForm = { name: input.name.slice(0, 255), redirectUris: redirectUris.slice(0, 21_000), scopes, public: input.public ?? false, errors: [] }
  return { input, typed }
}

const FIELD_NAMES: Record<string, string> = { name: 'The name', redirect_uris: 'Redirect URIs:', scopes: 'Scopes:' }

function sentences(err: ApiError): string[] {
  return Object.entries(err.details ?? { base: [err.message] }).flatMap(([name, problems]) => problems.map((problem) => `${FIELD_NAMES[name] ?? name} ${problem}.`))
}

export async function oauthPages(app: FastifyInstance, options: OAuthPagesOptions) {
  const { cookies, chrome, now, session, requireAccount, requireAdmin, itemForm, signedInChrome, pathId, formRoute } = options

  const badLink = (reply: FastifyReply, page: Chrome, message: string) =>
    sendPage(reply, 400, errorPage(page, 'This authorization link cannot be used', `${message} Tell the app's maker; nothing was shared.`, { href: '/', text: 'Go to the start page' }))

  app.get('/oauth/authorize', async (request, reply) => {
    const fields = authorizeParams(request.query as Form)
    const checked = await checkAuthorize(app.db, fields)
    const current = await session(request)
    const page = current ? signedInChrome(current.account, current.secret) : chrome
    if (checked.kind === 'page') return badLink(reply, page, checked.message)
    if (checked.kind === 'redirect') return reply.header('cache-control', 'no-store').redirect(checked.to, 303)
    if (!current) return reply.header('cache-control', 'no-store').redirect(`/login?next=${encodeURIComponent(request.url)}`, 303)
    // The answer's form sends the browser on to the app's registered URI: the page's
    // Content-Security-Policy allows that one origin as a form target, and no other.
    const policy = reply.getHeader('content-security-policy')
    if (typeof policy === 'string') reply.header('content-security-policy', policy.replace("form-action 'self'", `form-action 'self' ${new URL(checked.redirectUri).origin}`))
    return sendPage(
      reply,
      200,
      consentPage(page, sessionCsrf(current.secret), current.account, {
        appName: checked.client.name,
        appCompany: checked.client.company_name,
        redirectUri: checked.redirectUri,
        scopes: checked.scopes,
        fields,
      }),
    )
  })

  app.post('/oauth/authorize', formRoute, async (request, reply) => {
    const form = (request.body ?? {}) as Form
    const current = await requireAccount(request, reply, form)
    if (!current) return reply
    const checked = await checkAuthorize(app.db, authorizeParams(form))
    if (checked.kind === 'page') return badLink(reply, signedInChrome(current.account, current.secret), checked.message)
    if (checked.kind === 'redirect') return reply.redirect(checked.to, 303)
    const decision = form.decision
    if (decision !== 'allow' && decision !== 'deny') throw new ApiError(400)
    const to = await answerConsent(app.db, webActing(request, current.account, now()), checked, decision === 'allow')
    return reply.header('cache-control', 'no-store').redirect(to, 303)
  })

  // Settings → Integrations: the user revokes an app they authorised (one grant).
  app.post('/settings/integrations/apps/:id/revoke', formRoute, itemForm(requireAccount, '/settings/integrations', async (acting, id) => {
    await revokeAuthorisedApp(app.db, acting, id)
    return { kind: 'app-revoked' }
  }))

  // Settings → Apps: admins only.
  async function renderApps(reply: FastifyReply, current: Current, status: number, view: { flash?: AppFlash | undefined; form?: AppForm }) {
    const { account, secret } = current
    const apps = await listApps(app.db, account.companyId)
    return sendPage(reply, status, appsPage(signedInChrome(account, secret), sessionCsrf(secret), account, apps, view))
  }

  app.get(APPS, async (request, reply) => {
    const current = await requireAdmin(request, reply)
    if (!current) return reply
    const flash = cookies.takeFlash(request, reply, current.secret) as AppFlash | undefined
    return renderApps(reply, current, 200, { flash })
  })

  app.post(APPS, formRoute, async (request, reply) => {
    const form = (request.body ?? {}) as Form
    const current = await requireAdmin(request, reply, form)
    if (!current) return reply
    const { account, secret } = current
    const { input, typed } = appInput(form)
    try {
      const made = await registerApp(app.db, webActing(request, account, now()), input)
      cookies.setFlash(reply, secret, { kind: 'app-secret', name: made.app.name.slice(0, 100), clientId: made.app.client_id, secret: made.clientSecret, rotated: false } satisfies AppFlash)
      return await reply.redirect(APPS, 303)
    } catch (err) {
      if (!(err instanceof ApiError) || err.statusCode !== 422) throw err
      return renderApps(reply, current, 422, { form: { ...typed, errors: sentences(err) } })
    }
  })

  app.get(`${APPS}/:id`, async (request, reply) => {
    const current = await requireAdmin(request, reply)
    if (!current) return reply
    const found = await findApp(app.db, current.account.companyId, pathId(request))
    return sendPage(reply, 200, editAppPage(signedInChrome(current.account, current.secret), sessionCsrf(current.secret), found))
  })

  app.post(`${APPS}/:id`, formRoute, async (request, reply) => {
    const form = (request.body ?? {}) as Form
    const current = await requireAdmin(request, reply, form)
    if (!current) return reply
    const { account, secret } = current
    const id = pathId(request)
    const { input, typed } = appInput(form)
    try {
      const changed = await changeApp(app.db, webActing(request, account, now()), id, input)
      cookies.setFlash(reply, secret, { kind: 'app-changed', name: changed.name.slice(0, 100) } satisfies AppFlash)
      return await reply.redirect(APPS, 303)
    } catch (err) {
      if (!(err instanceof ApiError) || err.statusCode !== 422) throw err
      const found = await findApp(app.db, account.companyId, id)
      return sendPage(reply, 422, editAppPage(signedInChrome(account, secret), sessionCsrf(secret), found, { ...typed, errors: sentences(err) }))
    }
  })

  app.post(`${APPS}/:id/rotate`, formRoute, itemForm(requireAdmin, APPS, async (acting, id) => {
    const rotated = await rotateSecret(app.db, acting, id)
    return { kind: 'app-secret', name: rotated.app.name.slice(0, 100), clientId: rotated.app.client_id, secret: rotated.clientSecret, rotated: true } satisfies AppFlash
  }))

  app.get(`${APPS}/:id/delete`, async (request, reply) => {
    const current = await requireAdmin(request, reply)
    if (!current) return reply
    const found = await findApp(app.db, current.account.companyId, pathId(request))
    return sendPage(reply, 200, deleteAppPage(signedInChrome(current.account, current.secret), sessionCsrf(current.secret), found))
  })

  app.post(`${APPS}/:id/delete`, formRoute, itemForm(requireAdmin, APPS, async (acting, id) => {
    const removed = await removeApp(app.db, acting, id)
    return { kind: 'app-deleted', name: removed.name.slice(0, 100) } satisfies AppFlash
  }))
}
