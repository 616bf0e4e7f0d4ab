// The pages: thin handlers that read the form, check its CSRF token, call the auth
// module's services and render. POSTs answer 303 to a page (Post/Redirect/Get), so a reload
// never repeats them. A failed check changes nothing and answers a page with a clear sentence.
import { Readable } from 'node:stream'
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify'
import type { Config } from '../config.js'
import { ApiError } from '../errors.js'
import { MAX_ID } from '../http/schemas.js'
import { validate } from '../http/validation.js'
import { AuditEventsQuery, AuditExportQuery } from '../modules/audit/audit.schemas.js'
import { auditEventsPage, exportFor } from '../modules/audit/audit.service.js'
import { AUDIT_FIELDS, AUDIT_PATH, auditPage, type AuditForm } from './audit-page.js'
import { originOf, webActing, webContext, type Acting } from '../modules/audit/audit.context.js'
import { acceptInvite, findAccount, findInvite, signIn, signInRateLimited, signOut, type Account, type RefusalRecords } from '../modules/auth/accounts.service.js'
import { PASSWORD_MAX_LENGTH } from '../modules/auth/passwords.js'
import { isScope } from '../modules/auth/scopes.js'
import {
  createOwnToken,
  findCompanyToken,
  findOwnToken,
  listCompanyTokens,
  listOwnTokens,
  revokeCompanyTokenById,
  revokeOwnToken,
  type TokenChoice,
} from '../modules/auth/tokens.service.js'
import { MAX_URL_LENGTH } from '../modules/webhooks/destination.js'
import {
  changeSubscription,
  createSubscription,
  removeSubscription,
  rotateSubscriptionSecret,
  subscriptionOf,
  subscriptionsOverviewOf,
  type WebhookSettings,
} from '../modules/webhooks/webhooks.service.js'
import type { RateLimiter } from '../rate-limit/limiter.js'
import {
  companyTokensPage,
  deleteWebhookPage,
  errorPage,
  EXPIRY_CHOICES,
  integrationsPage,
  invitePage,
  loginPage,
  revokePage,
  sendPage,
  type Chrome,
  type Flash,
  type IntegrationsView,
  type TokenForm,
  type WebhookForm,
} from './pages.js'
import { CSRF_FIELD, sessionCsrf, sessionCsrfMatches, type WebCookies } from './security.js'
import { listAuthorisedApps } from '../modules/oauth/oauth.service.js'
import { authorisedAppsSection } from './oauth-pages.js'
import { isAuthorizeReturn, oauthPages } from './oauth.routes.js'

export interface RoutesOptions {
  config: Config
  cookies: WebCookies
  chrome: Chrome
  signInLimiter: RateLimiter
}

const HOME = '/settings/integrations'
const COMPANY_TOKENS = '/settings/tokens'
/** Forms are small: a larger body is refused (413) before it is read. */
const FORM_BODY_LIMIT = 64 * 1024
const EMAIL_MAX_LENGTH = 255
const INVALID_CREDENTIALS = 'Invalid email or password.'

type Form = Record<string, unknown>
const formOf = (request: FastifyRequest): Form => (request.body ?? {}) as Form

/** A text field as sent, or undefined when missing or not text (a bracketed name sends a list). */
function text(form: Form, name: string): string | undefined {
  const value = form[name]
  return typeof value === 'string' ? value : undefined
}

const length = (value: string) => Array.from(value).length
// eslint-disable-next-line no-control-regex -- control characters are exactly what this finds
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/

/** Path ids are 1..2^53-1 in decimal; anything else names no token (404). */
function pathId(request: FastifyRequest): number {
  const raw = (request.params as { id?: string }).id ?? ''
  const id = /^[1-9]\d{0,15}$/.test(raw) ? Number(raw) : 0
  if (id < 1 || id > MAX_ID) throw new ApiError(404)
  return id
}

/** The access and expiry chosen on the token form; what is wrong with them, as sentences. */
function tokenChoice(form: Form): { typed: TokenForm; choice: TokenChoice } {
  const raw = form.scopes === undefined ? [] : Array.isArray(form.scopes) ? (form.scopes as unknown[]) : [form.scopes]
  const names = raw.filter((name): name is string => typeof name === 'string')
  const scopes = names.filter(isScope)
  const full = text(form, 'access') !== 'scopes'
  const expiry = text(form, 'expires_in_days') ?? ''
  const days = EXPIRY_CHOICES.find((choice) => String(choice) === expiry)
  const errors: string[] = []
  if (!full && scopes.length === 0) errors.push('Choose at least one scope, or full access.')
  if (!full && scopes.length !== names.length) errors.push('Only the scopes listed can be chosen.')
  if (expiry !== '' && days === undefined) errors.push('Choose an expiry from the list.')
  return {
    typed: { full, scopes, expiresInDays: days, errors },
    choice: { scopes: full ? undefined : (scopes), expiresInDays: days },
  }
}

const routes: FastifyPluginAsync<RoutesOptions> = async (app, { config, cookies, chrome, signInLimiter }) => {
  const now = () => app.clock()

  async function session(request: FastifyRequest): Promise<{ account: Account; secret: string } | undefined> {
    const secret = cookies.sessionSecret(request)
    if (!secret) return undefined
    const account = await findAccount(app.db, secret, now())
    return account && { account, secret }
  }

  const signedInChrome = (account: Account, secret: string): Chrome => ({ ...chrome, signedIn: { account, csrf: sessionCsrf(secret) } })

  function toLogin(request: FastifyRequest, reply: FastifyReply) {
    // A cookie whose session ended (signed out elsewhere, expired, user deactivated) is dropped.
    if (request.cookies[cookies.names.session] !== undefined) cookies.clearSession(reply)
    return reply.code(303).header('cache-control', 'no-store').redirect('/login', 303)
  }

  const forbidden = (reply: FastifyReply, page: Chrome) =>
    sendPage(
      reply,
      403,
      errorPage(page, 'Form expired', 'This form has expired or was sent from another site, so nothing was changed. Reload the page and try again.', {
        href: '/',
        text: 'Go to the start page',
      }),
    )

  /** A signed-in page or form: the account, or a redirect to sign in; a form's CSRF token is checked. */
  async function requireAccount(request: FastifyRequest, reply: FastifyReply, form?: Form) {
    const current = await session(request)
    if (!current) {
      await toLogin(request, reply)
      return undefined
    }
    if (form && !sessionCsrfMatches(current.secret, form[CSRF_FIELD])) {
      await forbidden(reply, signedInChrome(current.account, current.secret))
      return undefined
    }
    return current
  }

  /** A page or form only admins may use: a member gets a 403 page and nothing changes. */
  async function requireAdmin(request: FastifyRequest, reply: FastifyReply, form?: Form) {
    const current = await requireAccount(request, reply, form)
    if (!current || current.account.role === 'admin') return current
    await sendPage(
      reply,
      403,
      errorPage(signedInChrome(current.account, current.secret), 'Admins only', `Only an admin of ${current.account.companyName} can do this, so nothing was changed.`, {
        href: HOME,
        text: 'Back to Integrations',
      }),
    )
    return undefined
  }

  /**
   * Signing in (or accepting an invite) always starts a new session: the old one, if any, ends.
   * Then on to Integrations, or back to the authorization request that asked to sign in.
   */
  async function startSession(request: FastifyRequest, reply: FastifyReply, secret: string, next?: string) {
    const previous = cookies.sessionSecret(request)
    if (previous) await signOut(app.db, previous)
    cookies.setSession(reply, secret)
    return reply.code(303).redirect(next ?? HOME, 303)
  }

  /**
   * A form that does one thing to the item its path names (a token, a webhook, an app): sent by
   * whom `allowed` lets in, CSRF-checked; then on to `to`, where the flash `act` returns says
   * what was done (Post/Redirect/Get).
   */
  function itemForm(allowed: typeof requireAccount, to: string, act: (acting: Account & Acting, id: number) => Promise<object>) {
    return async (request: FastifyRequest, reply: FastifyReply) => {
      const current = await allowed(request, reply, formOf(request))
      if (!current) return reply
      const flash = await act(webActing(request, current.account, now()), pathId(request))
      cookies.setFlash(reply, current.secret, flash)
      return reply.redirect(to, 303)
    }
  }

  const formRoute = { bodyLimit: FORM_BODY_LIMIT }

  // Refused sign-ins' audit records being written after their answer; closing waits for them
  // (this plugin's onClose runs before the database's).
  const recording = new Set<Promise<void>>()
  app.addHook('onClose', async () => {
    await Promise.all(recording)
  })

  /**
   * Writes a refused sign-in's records once its answer is sent (or the client went away), so
   * the answer takes as long for an email with accounts as for one without.
   */
  function recordAfterAnswer(request: FastifyRequest, reply: FastifyReply, records: RefusalRecords) {
    reply.raw.once('close', () => {
      // On the next turn, as the client is told the answer first (with inject too).
      const written = new Promise<void>((resolve) => setImmediate(resolve))
        .then(records)
        .catch((err: unknown) => {
          request.log.error({ err }, 'could not write the audit record of a refused sign-in')
        })
        .finally(() => recording.delete(written))
      recording.add(written)
    })
  }

  app.get('/', async (request, reply) => reply.redirect((await session(request)) ? HOME : '/login', 303))

  app.get('/login', async (request, reply) => {
    const asked = (request.query as Form).next
    const next = isAuthorizeReturn(asked) ? asked : undefined
    if (await session(request)) return reply.redirect(next ?? HOME, 303)
    const csrf = cookies.formToken(request, reply)
    return sendPage(reply, 200, loginPage(chrome, { csrf, next }))
  })

  app.post('/login', formRoute, async (request, reply) => {
    const form = formOf(request)
    const csrf = cookies.formToken(request, reply)
    if (!cookies.formTokenMatches(request, form[CSRF_FIELD])) return forbidden(reply, chrome)
    const email = text(form, 'email')?.trim() ?? ''
    const password = text(form, 'password') ?? ''
    const next = isAuthorizeReturn(form.next) ? form.next : undefined
    const again = (status: number, error: string) =>
      sendPage(reply, status, loginPage(chrome, { csrf, email: email.slice(0, EMAIL_MAX_LENGTH), error, next }))
    if (email === '' || password === '') return again(422, 'Enter your email and your password.')
    if (length(email) > EMAIL_MAX_LENGTH || CONTROL.test(email) || !email.isWellFormed()) {
      return again(422, 'That is not an email address: check it and try again.')
    }
    if (length(password) > PASSWORD_MAX_LENGTH) return again(422, INVALID_CREDENTIALS)

    // Per client address first, then per email: a refused attempt costs no password check.
    for (const key of [`ip:${request.ip}`, `email:${email.toLowerCase()}`]) {
      const decision = await signInLimiter.consume(key)
      if (!decision.allowed) {
        recordAfterAnswer(request, reply, await signInRateLimited(app.db, email, originOf(request), now()))
        const minutes = Math.max(1, Math.ceil(decision.resetSeconds / 60))
        reply.header('retry-after', String(Math.max(1, decision.resetSeconds)))
        return again(429, `Too many sign-in attempts. Wait ${String(minutes)} minute${minutes === 1 ? '' : 's'} and try again.`)
      }
    }
    const result = await signIn(app.db, email, password, now(), originOf(request))
    if (!result.ok) {
      recordAfterAnswer(request, reply, result.records)
      return result.reason === 'ambiguous'
        ? again(409, 'This email and password open accounts in more than one company. Ask an admin to give one of them another password.')
        : again(401, INVALID_CREDENTIALS)
    }
    return startSession(request, reply, result.session, next)
  })

  app.post('/logout', formRoute, async (request, reply) => {
    const current = await requireAccount(request, reply, formOf(request))
    if (!current) return reply
    await signOut(app.db, current.secret, webContext(request, current.account))
    cookies.clearSession(reply)
    return reply.redirect('/login', 303)
  })

  /** Where the API is reached, for the curl line of a new token. */
  const baseUrlOf = (request: FastifyRequest) => config.publicUrl ?? `${request.protocol}://${request.host}`

  /** What Integrations shows the account: its tokens, the company's webhooks, the apps it authorised. */
  async function integrationsView(request: FastifyRequest, account: Account, secret: string, appRevoked: boolean) {
    const [tokens, webhooks, apps] = await Promise.all([
      listOwnTokens(app.db, account.companyId, account.userId),
      subscriptionsOverviewOf(app.db, account),
      listAuthorisedApps(app.db, account.companyId, account.userId),
    ])
    const authorisedApps = authorisedAppsSection(sessionCsrf(secret), account, apps, appRevoked)
    return { tokens, baseUrl: baseUrlOf(request), webhooks, authorisedApps }
  }

  /** Integrations again after a form that failed (422): what was typed, and what is wrong with it. */
  async function integrationsAgain(request: FastifyRequest, reply: FastifyReply, { account, secret }: { account: Account; secret: string }, typed: Partial<IntegrationsView>) {
    const view = { ...(await integrationsView(request, account, secret, false)), ...typed }
    return sendPage(reply, 422, integrationsPage(signedInChrome(account, secret), sessionCsrf(secret), account, view, now()))
  }

  app.get(HOME, async (request, reply) => {
    const current = await requireAccount(request, reply)
    if (!current) return reply
    const { account, secret } = current
    const taken = cookies.takeFlash(request, reply, secret) as Flash | { kind: 'app-revoked' } | undefined
    const flash = taken?.kind === 'app-revoked' ? undefined : taken
    const view = { ...(await integrationsView(request, account, secret, taken?.kind === 'app-revoked')), flash }
    return sendPage(reply, 200, integrationsPage(signedInChrome(account, secret), sessionCsrf(secret), account, view, now()))
  })

  app.post(`${HOME}/tokens`, formRoute, async (request, reply) => {
    const form = formOf(request)
    const current = await requireAccount(request, reply, form)
    if (!current) return reply
    const { account, secret } = current
    const label = form.label === undefined ? '' : text(form, 'label')
    const { typed, choice } = tokenChoice(form)
    try {
      if (label === undefined) throw new ApiError(422, 'The label must be text.')
      if (typed.errors.length > 0) throw new ApiError(422, typed.errors.join(' '))
      const created = await createOwnToken(app.db, webActing(request, account, now()), label, choice)
      cookies.setFlash(reply, secret, { kind: 'created', token: created.token, label: created.label } satisfies Flash)
      return await reply.redirect(HOME, 303)
    } catch (err) {
      if (!(err instanceof ApiError) || err.statusCode !== 422) throw err
      const problem = err.details?.label?.[0]
      return integrationsAgain(request, reply, current, {
        label: (label ?? '').slice(0, 255),
        labelError: problem ? `The label ${problem}.` : err.message,
        tokenForm: typed,
      })
    }
  })

  app.get(`${HOME}/tokens/:id/revoke`, async (request, reply) => {
    const current = await requireAccount(request, reply)
    if (!current) return reply
    const { account, secret } = current
    const token = await findOwnToken(app.db, account.companyId, account.userId, pathId(request))
    return sendPage(reply, 200, revokePage(signedInChrome(account, secret), sessionCsrf(secret), account, token))
  })

  app.post(`${HOME}/tokens/:id/revoke`, formRoute, itemForm(requireAccount, HOME, async (acting, id) => {
    const revoked = await revokeOwnToken(app.db, acting, id)
    return { kind: 'revoked', prefix: revoked.prefix, label: revoked.label } satisfies Flash
  }))

  // Webhooks of the company, through the same service as the API: admins manage them,
  // members only see them (the list on the Integrations page).
  const webhookSettings = (): WebhookSettings => ({ secretKey: app.keys.derive('webhook secrets'), allowPrivate: config.webhookAllowPrivate })
  const WEBHOOKS = `${HOME}/webhooks`
  /** A URL as a message shows it: its start only (the flash cookie stays small). */
  const shortUrl = (url: string) => (length(url) > 120 ? `${Array.from(url).slice(0, 120).join('')}…` : url)

  app.post(WEBHOOKS, formRoute, async (request, reply) => {
    const form = formOf(request)
    const current = await requireAdmin(request, reply, form)
    if (!current) return reply
    const { account, secret } = current
    const rawEvents = form.events === undefined ? [] : Array.isArray(form.events) ? (form.events as unknown[]) : [form.events]
    const typed: WebhookForm = {
      url: (text(form, 'url') ?? '').slice(0, MAX_URL_LENGTH),
      all: text(form, 'scope') !== 'some',
      events: rawEvents.filter((e): e is string => typeof e === 'string').map((e) => e.slice(0, 64)),
      description: (text(form, 'description') ?? '').slice(0, 255),
      errors: [],
    }
    const url = text(form, 'url') ?? ''
    const description = text(form, 'description') ?? ''
    if (url.trim() === '') typed.errors.push('Enter the URL to send events to.')
    else if (length(url) > MAX_URL_LENGTH || CONTROL.test(url) || !url.isWellFormed()) typed.errors.push('That URL cannot be used: check it and try again.')
    if (!typed.all && typed.events.length === 0) typed.errors.push('Choose at least one event type, or all events.')
    if (length(description) > 255 || description.includes('\u0000') || !description.isWellFormed()) {
      typed.errors.push('The description must be at most 255 characters of text.')
    }
    if (typed.errors.length === 0) {
      try {
        const created = await createSubscription(
          app.db,
          webActing(request, account, now()),
          { url, events: typed.all ? ['*'] : typed.events, description: description === '' ? null : description },
          webhookSettings(),
        )
        cookies.setFlash(reply, secret, { kind: 'webhook-secret', url: shortUrl(created.url), secret: created.secret, rotated: false } satisfies Flash)
        return await reply.redirect(HOME, 303)
      } catch (err) {
        if (!(err instanceof ApiError) || err.statusCode !== 422) throw err
        const names: Record<string, string> = { url: 'The URL', events: 'Events:', description: 'The description' }
        for (const [name, problems] of Object.entries(err.details ?? { base: [err.message] })) {
          for (const problem of problems) typed.errors.push(names[name] ? `${names[name]} ${problem}.` : `${problem.charAt(0).toUpperCase()}${problem.slice(1)}.`)
        }
      }
    }
    return integrationsAgain(request, reply, current, { webhookForm: typed })
  })

  app.get(`${WEBHOOKS}/:id/delete`, async (request, reply) => {
    const current = await requireAdmin(request, reply)
    if (!current) return reply
    const { account, secret } = current
    const webhook = await subscriptionOf(app.db, account, pathId(request))
    return sendPage(reply, 200, deleteWebhookPage(signedInChrome(account, secret), sessionCsrf(secret), account, webhook))
  })

  app.post(`${WEBHOOKS}/:id/delete`, formRoute, itemForm(requireAdmin, HOME, async (acting, id) => {
    const webhook = await subscriptionOf(app.db, acting, id)
    await removeSubscription(app.db, acting, id)
    return { kind: 'webhook-deleted', url: shortUrl(webhook.url) } satisfies Flash
  }))

  app.post(`${WEBHOOKS}/:id/rotate`, formRoute, itemForm(requireAdmin, HOME, async (acting, id) => {
    const rotated = await rotateSubscriptionSecret(app.db, acting, id, webhookSettings())
    return { kind: 'webhook-secret', url: shortUrl(rotated.url), secret: rotated.secret, rotated: true } satisfies Flash
  }))

  app.post(`${WEBHOOKS}/:id/enable`, formRoute, itemForm(requireAdmin, HOME, async (acting, id) => {
    const enabled = await changeSubscription(app.db, acting, id, { enabled: true }, webhookSettings())
    return { kind: 'webhook-enabled', url: shortUrl(enabled.url) } satisfies Flash
  }))

  // Settings → Security log: admins only, through the audit module's service like the API.
  const adminOnly = (reply: FastifyReply, page: Chrome) =>
    sendPage(reply, 403, errorPage(page, 'Admins only', 'The security log is for the admins of your company.', { href: HOME, text: 'Go to Integrations' }))

  app.get(AUDIT_PATH, async (request, reply) => {
    const current = await requireAccount(request, reply)
    if (!current) return reply
    const { account, secret } = current
    const page = signedInChrome(account, secret)
    if (account.role !== 'admin') return adminOnly(reply, page)
    const raw = request.query as Record<string, unknown>
    const form: AuditForm = {}
    for (const field of AUDIT_FIELDS) {
      const value = raw[field]
      if (typeof value === 'string' && value !== '') form[field] = value.slice(0, 64)
    }
    const cursor = typeof raw.cursor === 'string' ? raw.cursor : undefined
    try {
      const query = validate(AuditEventsQuery, { ...form, ...(cursor ? { cursor } : {}) })
      const listed = await auditEventsPage(app.db, account, app.keys.derive('sync cursor'), query)
      return await sendPage(reply, 200, auditPage(page, account, { form, page: listed, errors: [], now: now() }))
    } catch (err) {
      if (!(err instanceof ApiError) || err.statusCode !== 422) throw err
      const errors = Object.entries(err.details ?? { filters: [err.message] }).flatMap(([name, problems]) => problems.map((p) => `${name.replace('_', ' ')} ${p}.`))
      return sendPage(reply, 422, auditPage(page, account, { form, errors, now: now() }))
    }
  })

  app.get(`${AUDIT_PATH}/export`, async (request, reply) => {
    const current = await requireAccount(request, reply)
    if (!current) return reply
    const { account, secret } = current
    if (account.role !== 'admin') return adminOnly(reply, signedInChrome(account, secret))
    const range = validate(AuditExportQuery, request.query)
    const events = await exportFor(app.db, account, range)
    const lines = Readable.from((async function* () {
      for await (const event of events) yield `${JSON.stringify(event)}\n`
    })())
    return reply
      .header('cache-control', 'no-store')
      .header('content-disposition', 'attachment; filename="security-log.jsonl"')
      .type('application/x-ndjson; charset=utf-8')
      .send(lines)
  })

  // Tokens of this company (admins): every member's live tokens, any of which they may revoke.
  app.get(COMPANY_TOKENS, async (request, reply) => {
    const current = await requireAdmin(request, reply)
    if (!current) return reply
    const { account, secret } = current
    const flash = cookies.takeFlash(request, reply, secret) as Flash | undefined
    const tokens = await listCompanyTokens(app.db, account.companyId)
    return sendPage(reply, 200, companyTokensPage(signedInChrome(account, secret), account, tokens, flash, now()))
  })

  app.get(`${COMPANY_TOKENS}/:id/revoke`, async (request, reply) => {
    const current = await requireAdmin(request, reply)
    if (!current) return reply
    const { account, secret } = current
    const token = await findCompanyToken(app.db, account.companyId, pathId(request))
    return sendPage(reply, 200, revokePage(signedInChrome(account, secret), sessionCsrf(secret), account, token, { action: `${COMPANY_TOKENS}/${String(token.id)}/revoke`, back: COMPANY_TOKENS }))
  })

  app.post(`${COMPANY_TOKENS}/:id/revoke`, formRoute, itemForm(requireAdmin, COMPANY_TOKENS, async (acting, id) => {
    const revoked = await revokeCompanyTokenById(app.db, acting, id)
    return { kind: 'revoked', prefix: revoked.prefix, label: revoked.label } satisfies Flash
  }))

  const inviteGone = (reply: FastifyReply) =>
    sendPage(
      reply,
      404,
      errorPage(chrome, 'Invite link not valid', 'This invite link was used already, has expired (links are valid 7 days) or was replaced by a newer one. Ask an admin of your company for a new one.', {
        href: '/login',
        text: 'Go to sign in',
      }),
    )

  /** Invite tokens are 43 base64url characters; anything else is no invite. */
  const inviteToken = (request: FastifyRequest) => {
    const token = (request.params as { token?: string }).token ?? ''
    return /^[A-Za-z0-9_-]{43}$/.test(token) ? token : undefined
  }

  app.get('/invite/:token', async (request, reply) => {
    const token = inviteToken(request)
    const invite = token && (await findInvite(app.db, token, now()))
    if (!token || !invite) return inviteGone(reply)
    const csrf = cookies.formToken(request, reply)
    return sendPage(reply, 200, invitePage(chrome, { csrf, action: `/invite/${token}`, ...invite }))
  })

  app.post('/invite/:token', formRoute, async (request, reply) => {
    const form = formOf(request)
    const csrf = cookies.formToken(request, reply)
    if (!cookies.formTokenMatches(request, form[CSRF_FIELD])) return forbidden(reply, chrome)
    const token = inviteToken(request)
    const invite = token && (await findInvite(app.db, token, now()))
    if (!token || !invite) return inviteGone(reply)
    const password = text(form, 'password') ?? ''
    const again = (error: string) => sendPage(reply, 422, invitePage(chrome, { csrf, action: `/invite/${token}`, ...invite, error }))
    if (password !== (text(form, 'confirm') ?? '')) return again('The two passwords differ: type the same password twice.')
    const result = await acceptInvite(app.db, token, password, now(), originOf(request))
    if (!result.ok) return result.reason === 'gone' ? inviteGone(reply) : again(result.problem)
    return startSession(request, reply, result.session)
  })

  await oauthPages(app, { cookies, chrome, now, session, requireAccount, requireAdmin, itemForm, signedInChrome, pathId, formRoute })
}

export default routes
