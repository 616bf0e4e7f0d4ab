// Settings → Integrations (the user's api tokens and the company's webhooks), Security log
// and Company tokens: thin handlers that read the form, call the services and render. Who may
// open each is its route's `config.page` (frame/guard.ts). POSTs answer 303 to a page
// (Post/Redirect/Get), so a reload never repeats them. A failed check changes nothing and
// answers a page with a clear sentence.
import { Readable } from 'node:stream'
import { CONTROL, formOf, length, text, type FormBody } from '../frame/form.js'
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify'
import { ApiError } from '../../errors.js'
import { validate } from '../../http/validation.js'
import { AuditEventsQuery, AuditExportQuery, auditEventsPage, exportFor } from '../../modules/audit/index.js'
import { type Acting } from '../../acting.js'
import {
  createOwnToken,
  findCompanyToken,
  findOwnToken,
  listCompanyTokens,
  listOwnTokens,
  revokeCompanyTokenById,
  revokeOwnToken,
  type Account,
  type TokenChoice,
} from '../../modules/auth/index.js'
import { isScope } from '../../scopes.js'
import { MAX_URL_LENGTH } from '../../modules/webhooks/index.js'
import * as webhooksApi from '../../modules/webhooks-api/index.js'
import { listAuthorisedApps } from '../../modules/oauth-server/index.js'
import { sendHtml } from '../frame/frame.js'
import { formRoute, pageRoute, pathId, signedIn, webCaller, type PageGroupOptions, type SignedIn } from '../frame/guard.js'
import { authorisedAppsSection } from '../oauth/oauth.pages.js'
import { AUDIT_FIELDS, AUDIT_PATH, auditLogPage, type AuditForm } from './audit.pages.js'
import {
  companyTokensPage,
  deleteWebhookPage,
  EXPIRY_CHOICES,
  integrationsPage,
  revokePage,
  INTEGRATIONS_FLASHES,
  type Flash,
  type IntegrationsView,
  type TokenForm,
  type WebhookForm,
} from './integrations.pages.js'

const HOME = '/settings/integrations'
const COMPANY_TOKENS = '/settings/tokens'


/** The access and expiry chosen on the token form; what is wrong with them, as sentences. */
function tokenChoice(form: FormBody): { typed: TokenForm; choice: TokenChoice } {
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

const settingsPages: FastifyPluginAsync<PageGroupOptions> = async (app, { config, cookies, now }) => {
  app.get('/settings', pageRoute('member'), async (_request, reply) => reply.redirect(HOME, 303))

  /**
   * A form that does one thing to the item its path names (a token, a webhook): then on to
   * `to`, where the flash `act` returns says what was done (Post/Redirect/Get).
   */
  function itemForm(to: string, act: (acting: Account & Acting, id: number) => Promise<object>) {
    return async (request: FastifyRequest, reply: FastifyReply) => {
      const current = signedIn(request)
      const flash = await act(webCaller(request, current.account, now()), pathId(request))
      cookies.setFlash(reply, current.secret, flash)
      return reply.redirect(to, 303)
    }
  }

  /** Where the API is reached, for the curl line of a new token. */
  const baseUrlOf = (request: FastifyRequest) => config.publicUrl ?? `${request.protocol}://${request.host}`

  /** What Integrations shows the account: its tokens, the company's webhooks, the apps it authorised. */
  async function integrationsView(request: FastifyRequest, { account, csrf }: SignedIn, appRevoked: boolean) {
    const [tokens, webhooks, apps] = await Promise.all([
      listOwnTokens(app.db, account.companyId, account.userId),
      webhooksApi.subscriptionsOverviewOf(app.db, account),
      listAuthorisedApps(app.db, account.companyId, account.userId),
    ])
    const authorisedApps = authorisedAppsSection(csrf, account, apps, appRevoked)
    return { tokens, baseUrl: baseUrlOf(request), webhooks, authorisedApps }
  }

  /** Integrations again after a form that failed (422): what was typed, and what is wrong with it. */
  async function integrationsAgain(request: FastifyRequest, reply: FastifyReply, current: SignedIn, typed: Partial<IntegrationsView>) {
    const view = { ...(await integrationsView(request, current, false)), ...typed }
    return sendHtml(reply, 422, integrationsPage(current.chrome, current.csrf, current.account, view, now()))
  }

  app.get(HOME, pageRoute('member'), async (request, reply) => {
    const current = signedIn(request)
    const { account, secret } = current
    const taken = cookies.takeFlash<Flash | { kind: 'app-revoked' }>(request, reply, secret, [...INTEGRATIONS_FLASHES, 'app-revoked'])
    const flash = taken?.kind === 'app-revoked' ? undefined : taken
    const view = { ...(await integrationsView(request, current, taken?.kind === 'app-revoked')), flash }
    return sendHtml(reply, 200, integrationsPage(current.chrome, current.csrf, account, view, now()))
  })

  app.post(`${HOME}/tokens`, formRoute('member'), async (request, reply) => {
    const form = formOf(request)
    const current = signedIn(request)
    const { account, secret } = current
    const label = form.label === undefined ? '' : text(form, 'label')
    const { typed, choice } = tokenChoice(form)
    try {
      if (label === undefined) throw new ApiError(422, 'The label must be text.')
      if (typed.errors.length > 0) throw new ApiError(422, typed.errors.join(' '))
      const created = await createOwnToken(app.db, webCaller(request, account, now()), label, choice)
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

  app.get(`${HOME}/tokens/:id/revoke`, pageRoute('member'), async (request, reply) => {
    const current = signedIn(request)
    const { account } = current
    const token = await findOwnToken(app.db, account.companyId, account.userId, pathId(request))
    return sendHtml(reply, 200, revokePage(current.chrome, current.csrf, account, token))
  })

  app.post(`${HOME}/tokens/:id/revoke`, formRoute('member'), itemForm(HOME, async (acting, id) => {
    const revoked = await revokeOwnToken(app.db, acting, id)
    return { kind: 'revoked', prefix: revoked.prefix, label: revoked.label } satisfies Flash
  }))

  // Webhooks of the company, through the same service as the API: admins manage them,
  // members only see them (the list on the Integrations page).
  const webhookSettings = (): webhooksApi.WebhookSettings => ({ secretKey: app.keys.derive('webhook secrets'), allowPrivate: config.webhookAllowPrivate })
  const WEBHOOKS = `${HOME}/webhooks`
  /** A URL as a message shows it: its start only (the flash cookie stays small). */
  const shortUrl = (url: string) => (length(url) > 120 ? `${Array.from(url).slice(0, 120).join('')}…` : url)

  app.post(WEBHOOKS, formRoute('admin'), async (request, reply) => {
    const form = formOf(request)
    const current = signedIn(request)
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
        const created = await webhooksApi.createSubscription(
          app.db,
          webCaller(request, account, now()),
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

  app.get(`${WEBHOOKS}/:id/delete`, pageRoute('admin'), async (request, reply) => {
    const current = signedIn(request)
    const { account } = current
    const webhook = await webhooksApi.subscriptionOf(app.db, account, pathId(request))
    return sendHtml(reply, 200, deleteWebhookPage(current.chrome, current.csrf, account, webhook))
  })

  app.post(`${WEBHOOKS}/:id/delete`, formRoute('admin'), itemForm(HOME, async (acting, id) => {
    const webhook = await webhooksApi.subscriptionOf(app.db, acting, id)
    await webhooksApi.removeSubscription(app.db, acting, id)
    return { kind: 'webhook-deleted', url: shortUrl(webhook.url) } satisfies Flash
  }))

  app.post(`${WEBHOOKS}/:id/rotate`, formRoute('admin'), itemForm(HOME, async (acting, id) => {
    const rotated = await webhooksApi.rotateSubscriptionSecret(app.db, acting, id, webhookSettings())
    return { kind: 'webhook-secret', url: shortUrl(rotated.url), secret: rotated.secret, rotated: true } satisfies Flash
  }))

  app.post(`${WEBHOOKS}/:id/enable`, formRoute('admin'), itemForm(HOME, async (acting, id) => {
    const enabled = await webhooksApi.changeSubscription(app.db, acting, id, { enabled: true }, webhookSettings())
    return { kind: 'webhook-enabled', url: shortUrl(enabled.url) } satisfies Flash
  }))

  // Settings → Security log: admins only, through the audit module's service like the API.

  app.get(AUDIT_PATH, pageRoute('admin'), async (request, reply) => {
    const current = signedIn(request)
    const { account } = current
    const page = current.chrome
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
      return await sendHtml(reply, 200, auditLogPage(page, account, { form, page: listed, errors: [], now: now() }))
    } catch (err) {
      if (!(err instanceof ApiError) || err.statusCode !== 422) throw err
      const errors = Object.entries(err.details ?? { filters: [err.message] }).flatMap(([name, problems]) => problems.map((p) => `${name.replace('_', ' ')} ${p}.`))
      return sendHtml(reply, 422, auditLogPage(page, account, { form, errors, now: now() }))
    }
  })

  app.get(`${AUDIT_PATH}/export`, pageRoute('admin'), async (request, reply) => {
    const current = signedIn(request)
    const { account } = current
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
  app.get(COMPANY_TOKENS, pageRoute('admin'), async (request, reply) => {
    const current = signedIn(request)
    const { account, secret } = current
    const flash = cookies.takeFlash<Flash>(request, reply, secret, ['created', 'revoked'])
    const tokens = await listCompanyTokens(app.db, account.companyId)
    return sendHtml(reply, 200, companyTokensPage(current.chrome, account, tokens, flash, now()))
  })

  app.get(`${COMPANY_TOKENS}/:id/revoke`, pageRoute('admin'), async (request, reply) => {
    const current = signedIn(request)
    const { account } = current
    const token = await findCompanyToken(app.db, account.companyId, pathId(request))
    return sendHtml(reply, 200, revokePage(current.chrome, current.csrf, account, token, { action: `${COMPANY_TOKENS}/${String(token.id)}/revoke`, back: COMPANY_TOKENS }))
  })

  app.post(`${COMPANY_TOKENS}/:id/revoke`, formRoute('admin'), itemForm(COMPANY_TOKENS, async (acting, id) => {
    const revoked = await revokeCompanyTokenById(app.db, acting, id)
    return { kind: 'revoked', prefix: revoked.prefix, label: revoked.label } satisfies Flash
  }))

}

export default settingsPages
