// The OAuth pages of the web application: GET /oauth/authorize (checks the request, then the
// consent page for the signed-in user), POST /oauth/authorize (Allow or Deny, CSRF-checked like
// every form), Settings → Apps for admins, and revoking an authorised app on Integrations.
// The protocol's rules are the oauth-server module's (src/modules/oauth-server/oauth-server.service.ts).
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { Static } from 'typebox'
import { ApiError } from '../../errors.js'
import { FormError, parsePairs } from '../../http/nested-params.js'
import { webActing, type Acting } from '../../acting.js'
import type { Account } from '../../modules/auth/index.js'
import * as oauthServer from '../../modules/oauth-server/index.js'
import { AuthorizeQuery, ConsentBody, repeatedParameter } from '../../modules/oauth/index.js'
import { APPS, appsPage, consentPage, continuePage, deleteAppPage, editAppPage, APP_FLASHES, type AppFlash, type AppForm, type AuthorizeFields } from './oauth.pages.js'
import { errorPage, sendHtml, type PageFrame } from '../frame/frame.js'
import { sessionCsrf, type WebCookies } from '../shared/security.js'

type Form = Record<string, unknown>
type Current = { account: Account; secret: string }
/** Lets a signed-in user on (a form's CSRF token checked), or answers and gives undefined. */
type Gate = (request: FastifyRequest, reply: FastifyReply, form?: Form) => Promise<Current | undefined>

export interface OAuthPagesOptions {
  cookies: WebCookies
  chrome: PageFrame
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
  signedInChrome: (account: Account, secret: string) => PageFrame
  pathId: (request: FastifyRequest) => number
  formRoute: { bodyLimit: number }
}

/** Where signing in may return to: an authorization request of this service, nothing else. */
export function isAuthorizeReturn(next: unknown): next is string {
  return typeof next === 'string' && next.startsWith('/oauth/authorize?') && next.length <= 4096 && !/[\s\\]/.test(next)
}

const authorizeParams = (source: Static<typeof AuthorizeQuery>): AuthorizeFields => ({
  client_id: source.client_id,
  redirect_uri: source.redirect_uri,
  response_type: source.response_type,
  scope: source.scope,
  state: source.state,
  code_challenge: source.code_challenge,
  code_challenge_method: source.code_challenge_method,
})

/** Why the request's parameters failed their schema, for the error page. */
function parameterMessage(error: Error, params: unknown): string {
  const repeated = repeatedParameter(params)
  if (repeated !== undefined) return `The link gives ${repeated.slice(0, 64)} more than once, which is not allowed (RFC 6749 §3.1).`
  const details = error instanceof ApiError ? Object.entries(error.details ?? {}) : []
  const [name, problems] = details[0] ?? ['a parameter', ['is invalid']]
  return `In the link, ${name.slice(0, 64)} ${problems[0] ?? 'is invalid'}.`
}

/** A host CSP's source expressions cannot name (an IPv6 literal such as [::1]). */
const outsideCsp = (uri: string) => new URL(uri).hostname.startsWith('[')

function appInput(form: Form): { input: oauthServer.AppInput; typed: AppForm } {
  const text = (name: string) => (typeof form[name] === 'string' ? form[name] : '')
  const raw = form.scopes === undefined ? [] : Array.isArray(form.scopes) ? (form.scopes as unknown[]) : [form.scopes]
  const scopes = raw.filter((scope): scope is string => typeof scope === 'string').map((scope) => scope.slice(0, 64))
  const redirectUris = text('redirect_uris')
  const input: oauthServer.AppInput = { name: text('name'), redirectUris: redirectUris.split(/\r?\n/), scopes, public: text('client_type') === 'public' }
  const typed: AppForm = { name: input.name.slice(0, 255), redirectUris: redirectUris.slice(0, 21_000), scopes, public: input.public ?? false, errors: [] }
  return { input, typed }
}

const FIELD_NAMES: Record<string, string> = { name: 'The name', redirect_uris: 'Redirect URIs:', scopes: 'Scopes:' }

function sentences(err: ApiError): string[] {
  return Object.entries(err.details ?? { base: [err.message] }).flatMap(([name, problems]) => problems.map((problem) => `${FIELD_NAMES[name] ?? name} ${problem}.`))
}

export async function oauthPages(app: FastifyInstance, options: OAuthPagesOptions) {
  const { cookies, chrome, now, session, requireAccount, requireAdmin, itemForm, signedInChrome, pathId, formRoute } = options

  const badLink = (reply: FastifyReply, page: PageFrame, message: string) =>
    sendHtml(reply, 400, errorPage(page, 'This authorization link cannot be used', `${message} Tell the app's maker; nothing was shared.`, { href: '/', text: 'Go to the start page' }))

  const issuer = oauthServer.issuerOf(app.config)

  /**
   * The browser on to the app after the consent form: a 303, which Chromium checks against the
   * consent page's form-action; to a host that form-action cannot name, a page that goes on by
   * itself (a refresh is no form submission), with a link for browsers that do not follow it.
   */
  const toApp = (reply: FastifyReply, page: PageFrame, to: string) =>
    outsideCsp(to) ? sendHtml(reply, 200, continuePage(page, to)) : reply.header('cache-control', 'no-store').redirect(to, 303)

  // The authorization request's own scope: flat parameters, a repeated name kept as a list
  // so that the schema refuses it (RFC 6749 §3.1), for the query string and the consent form.
  await app.register(async (scope) => {
    scope.removeContentTypeParser('application/x-www-form-urlencoded')
    scope.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_request, body, parsed) => {
      try {
        parsed(null, parsePairs(body as string))
      } catch (err) {
        parsed(err instanceof FormError ? new ApiError(400) : (err as Error), undefined)
      }
    })
    const rawQuery = (request: FastifyRequest) => {
      const at = request.url.indexOf('?')
      return at === -1 ? '' : request.url.slice(at + 1)
    }
    scope.get('/oauth/authorize', {
      schema: { querystring: AuthorizeQuery },
      attachValidation: true,
      preValidation: async (request, reply) => {
        try {
          request.query = parsePairs(rawQuery(request))
        } catch (err) {
          if (!(err instanceof FormError)) throw err
          const current = await session(request)
          return badLink(reply, current ? signedInChrome(current.account, current.secret) : chrome, 'The link is not valid URL encoding (a % not followed by UTF-8).')
        }
      },
    }, async (request, reply) => {
      const current = await session(request)
      const page = current ? signedInChrome(current.account, current.secret) : chrome
      if (request.validationError) return badLink(reply, page, parameterMessage(request.validationError, request.query))
      const fields = authorizeParams(request.query as Static<typeof AuthorizeQuery>)
      const checked = await oauthServer.checkAuthorize(app.db, fields, issuer)
      if (checked.kind === 'page') return badLink(reply, page, checked.message)
      if (checked.kind === 'redirect') return reply.header('cache-control', 'no-store').redirect(checked.to, 303)
      if (!current) return reply.header('cache-control', 'no-store').redirect(`/login?next=${encodeURIComponent(request.url)}`, 303)
      // The answer's form sends the browser on to the app's registered URI: the page's
      // Content-Security-Policy allows that one origin as a form target, and no other.
      const policy = reply.getHeader('content-security-policy')
      if (typeof policy === 'string' && !outsideCsp(checked.redirectUri)) {
        reply.header('content-security-policy', policy.replace("form-action 'self'", `form-action 'self' ${new URL(checked.redirectUri).origin}`))
      }
      return sendHtml(
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

    scope.post('/oauth/authorize', { ...formRoute, schema: { body: ConsentBody }, attachValidation: true }, async (request, reply) => {
      // The CSRF check reads _csrf alone: a repeated one is a list, which it refuses.
      const form = (request.body ?? {}) as Form
      const current = await requireAccount(request, reply, form)
      if (!current) return reply
      const page = signedInChrome(current.account, current.secret)
      if (request.validationError) return badLink(reply, page, parameterMessage(request.validationError, form))
      const consent = request.body as Static<typeof ConsentBody>
      const checked = await oauthServer.checkAuthorize(app.db, authorizeParams(consent), issuer)
      if (checked.kind === 'page') return badLink(reply, page, checked.message)
      if (checked.kind === 'redirect') return toApp(reply, page, checked.to)
      const decision = consent.decision
      if (decision !== 'allow' && decision !== 'deny') throw new ApiError(400)
      const to = await oauthServer.answerConsent(app.db, webActing(request, current.account, now()), checked, decision === 'allow')
      return toApp(reply, page, to)
    })
  })

  // Settings → Integrations: the user revokes an app they authorised (one grant).
  app.post('/settings/integrations/apps/:id/revoke', formRoute, itemForm(requireAccount, '/settings/integrations', async (acting, id) => {
    await oauthServer.revokeAuthorisedApp(app.db, acting, id)
    return { kind: 'app-revoked' }
  }))

  // Settings → Apps: admins only.
  async function renderApps(reply: FastifyReply, current: Current, status: number, view: { flash?: AppFlash | undefined; form?: AppForm }) {
    const { account, secret } = current
    const apps = await oauthServer.listApps(app.db, account.companyId)
    return sendHtml(reply, status, appsPage(signedInChrome(account, secret), sessionCsrf(secret), account, apps, view))
  }

  app.get(APPS, async (request, reply) => {
    const current = await requireAdmin(request, reply)
    if (!current) return reply
    const flash = cookies.takeFlash<AppFlash>(request, reply, current.secret, APP_FLASHES)
    return renderApps(reply, current, 200, { flash })
  })

  app.post(APPS, formRoute, async (request, reply) => {
    const form = (request.body ?? {}) as Form
    const current = await requireAdmin(request, reply, form)
    if (!current) return reply
    const { account, secret } = current
    const { input, typed } = appInput(form)
    try {
      const made = await oauthServer.registerApp(app.db, webActing(request, account, now()), input)
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
    const found = await oauthServer.findApp(app.db, current.account.companyId, pathId(request))
    return sendHtml(reply, 200, editAppPage(signedInChrome(current.account, current.secret), sessionCsrf(current.secret), found))
  })

  app.post(`${APPS}/:id`, formRoute, async (request, reply) => {
    const form = (request.body ?? {}) as Form
    const current = await requireAdmin(request, reply, form)
    if (!current) return reply
    const { account, secret } = current
    const id = pathId(request)
    const { input, typed } = appInput(form)
    try {
      const changed = await oauthServer.changeApp(app.db, webActing(request, account, now()), id, input)
      cookies.setFlash(reply, secret, { kind: 'app-changed', name: changed.name.slice(0, 100) } satisfies AppFlash)
      return await reply.redirect(APPS, 303)
    } catch (err) {
      if (!(err instanceof ApiError) || err.statusCode !== 422) throw err
      const found = await oauthServer.findApp(app.db, account.companyId, id)
      return sendHtml(reply, 422, editAppPage(signedInChrome(account, secret), sessionCsrf(secret), found, { ...typed, errors: sentences(err) }))
    }
  })

  app.post(`${APPS}/:id/rotate`, formRoute, itemForm(requireAdmin, APPS, async (acting, id) => {
    const rotated = await oauthServer.rotateClientSecret(app.db, acting, id)
    return { kind: 'app-secret', name: rotated.app.name.slice(0, 100), clientId: rotated.app.client_id, secret: rotated.clientSecret, rotated: true } satisfies AppFlash
  }))

  app.get(`${APPS}/:id/delete`, async (request, reply) => {
    const current = await requireAdmin(request, reply)
    if (!current) return reply
    const found = await oauthServer.findApp(app.db, current.account.companyId, pathId(request))
    return sendHtml(reply, 200, deleteAppPage(signedInChrome(current.account, current.secret), sessionCsrf(current.secret), found))
  })

  app.post(`${APPS}/:id/delete`, formRoute, itemForm(requireAdmin, APPS, async (acting, id) => {
    const removed = await oauthServer.removeApp(app.db, acting, id)
    return { kind: 'app-deleted', name: removed.name.slice(0, 100) } satisfies AppFlash
  }))
}
