// The web application (the workspace), served by the same process and port as the API: one
// plugin per page group (sign-in/, contacts/, settings/, oauth/, …), each with its routes, form
// schemas and templates, drawn in one page frame (frame/). Server-rendered pages, one
// stylesheet (assets/web.css) and one small script (shared/script.ts). Everything here is
// encapsulated: the security headers (@fastify/helmet, a strict Content-Security-Policy),
// the cookies and the HTML error pages apply to these routes only, so /api keeps its JSON
// and /docs/v1 its own policy.
import { createHash } from 'node:crypto'
import { readFileSync } from 'node:fs'
import cookie from '@fastify/cookie'
import helmet from '@fastify/helmet'
import type { FastifyError, FastifyPluginAsync } from 'fastify'
import type { Config } from '../config.js'
import { isDatabaseUnavailable } from '../db/pg-errors.js'
import { ApiError } from '../errors.js'
import { hideFromOpenApi, scopeRateLimiter } from '../http/non-api-scope.js'
import contactsPages from './contacts/contacts.page-routes.js'
import importsPages from './imports/imports.page-routes.js'
import { errorPage, sendHtml, type Assets, type PageFrame } from './frame/frame.js'
import { addPageGuard, handlerGates, type PageGroupOptions } from './frame/guard.js'
import { oauthPages } from './oauth/oauth.page-routes.js'
import settingsPages from './settings/settings.page-routes.js'
import usersPages from './settings/users.page-routes.js'
import { SCRIPT } from './shared/script.js'
import { WebCookies } from './shared/security.js'
import signInPages from './sign-in/sign-in.page-routes.js'
import tasksPages from './tasks/tasks.page-routes.js'
import flowsPages from './flows/flows.page-routes.js'
import leadsPages from './leads/leads.page-routes.js'
import meetingsPages from './meetings/meetings.page-routes.js'

// The stylesheet stays in src/web/assets, found from the package root both from src/web
// (tsx) and from dist/web (the build), as the migrations are.
const stylesheet = new URL('../../src/web/assets/web.css', import.meta.url)
const favicon = new URL('../../src/web/assets/favicon.svg', import.meta.url)

interface Asset {
  path: string
  body: string
  type: string
  /** The path with the content's hash: a changed asset gets a new URL, so browsers may keep each. */
  url: string
}

function asset(path: string, body: string, type: string): Asset {
  const version = createHash('sha256').update(body).digest('hex').slice(0, 12)
  return { path, body, type, url: `${path}?v=${version}` }
}

export interface WebOptions {
  config: Config
}

const ERROR_PAGES: Record<number, { title: string; message: string }> = {
  400: { title: 'Bad request', message: 'The form could not be read. Go back, reload the page and try again.' },
  431: { title: 'Address too long', message: 'The address (or the request\'s headers) is too long to be read. Go back and try a shorter one.' },
  404: { title: 'Page not found', message: 'There is nothing here, or it is not yours to see.' },
  413: { title: 'Too large', message: 'What was sent is too large for this form.' },
  415: { title: 'Unsupported form', message: 'This form takes the fields of an ordinary web form (application/x-www-form-urlencoded).' },
  500: { title: 'Something went wrong', message: 'The error was logged. Try again in a moment.' },
  503: { title: 'Service unavailable', message: 'The service cannot reach its database right now. Try again in a moment.' },
}

function statusOf(error: FastifyError): number {
  if (error instanceof ApiError) return error.statusCode
  if (error.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') return 415
  if (error.code === 'FST_ERR_CTP_BODY_TOO_LARGE') return 413
  const status = error.statusCode
  return status !== undefined && status >= 400 && status < 500 ? status : 500
}

const css = asset('/assets/web.css', readFileSync(stylesheet, 'utf8'), 'text/css; charset=utf-8')
const js = asset('/assets/web.js', SCRIPT, 'text/javascript; charset=utf-8')
const icon = asset('/assets/favicon.svg', readFileSync(favicon, 'utf8'), 'image/svg+xml')
const assets: Assets = { css: css.url, js: js.url, icon: icon.url }

// The paths of the pages (docs/web.md): what is not the API, its documents, the OAuth
// endpoints that answer JSON, or the probes.
const WEB_PATH = /^\/(?:$|[?#]|(?:login|logout|settings|invite|assets|contacts|tasks|flows|leads|meetings)(?:[/?#]|$)|oauth\/authorize(?:[/?#]|$))/

/** Whether a request target is one of the web application's pages. */
export const isWebPath = (url: string) => WEB_PATH.test(url)

/**
 * The HTML error page of a request refused before routing (a bad percent escape, an address
 * too long to read), for a page's path: the same page the web plugin answers, as text.
 */
export function webErrorPage(status: number): string {
  const { title, message } = ERROR_PAGES[status] ?? ERROR_PAGES[400] ?? { title: 'Error', message: '' }
  return errorPage({ assets }, title, message, { href: '/', text: 'Go to the start page' }).text
}

const web: FastifyPluginAsync<WebOptions> = async (app, { config }) => {
  const secure = config.publicUrl?.startsWith('https:') ?? false
  const cookies = new WebCookies(secure)
  const signInLimiter = await scopeRateLimiter(app, config, config.signInLimit, 'signin')
  hideFromOpenApi(app)

  await app.register(cookie)
  await app.register(helmet, {
    contentSecurityPolicy: {
      useDefaults: false,
      directives: {
        defaultSrc: ["'none'"],
        styleSrc: ["'self'"],
        scriptSrc: ["'self'"],
        imgSrc: ["'self'"],
        // The script fetches pages of this site (search as you type) and posts Mark done to it.
        connectSrc: ["'self'"],
        formAction: ["'self'"],
        frameAncestors: ["'none'"],
        baseUri: ["'none'"],
      },
    },
    frameguard: { action: 'deny' },
    referrerPolicy: { policy: 'no-referrer' },
    // Only over https does Strict-Transport-Security mean anything; on plain http it would mislead.
    strictTransportSecurity: secure ? { maxAge: 31_536_000 } : false,
  })

  app.setErrorHandler((error: FastifyError, request, reply) => {
    let status = statusOf(error)
    if (isDatabaseUnavailable(error)) {
      request.log.error({ err: error }, 'database unavailable')
      status = 503
      reply.header('retry-after', '5')
    } else if (status >= 500) {
      request.log.error({ err: error }, 'unhandled error')
    } else {
      request.log.info({ reason: error.message, statusCode: status }, 'rejected request')
    }
    const page = ERROR_PAGES[status] ?? ERROR_PAGES[status >= 500 ? 500 : 400]
    const { title, message } = page ?? { title: 'Error', message: 'Something went wrong.' }
    return sendHtml(reply, status, errorPage(request.webSession?.chrome ?? { assets }, title, message, { href: '/', text: 'Go to the start page' }))
  })

  for (const { path, body, type } of [css, js, icon]) {
    app.get(path, (_request, reply) => reply.header('cache-control', 'public, max-age=31536000, immutable').type(type).send(body))
  }

  const chrome: PageFrame = { assets }
  const now = () => app.clock()
  addPageGuard(app, cookies, chrome)
  // The page groups: each a plugin whose routes declare who may open them (config.page).
  const group: PageGroupOptions = { config, cookies, chrome, now }
  await app.register(signInPages, { ...group, signInLimiter })
  await app.register(importsPages, group)
  await app.register(contactsPages, group)
  await app.register(tasksPages, group)
  await app.register(flowsPages, group)
  await app.register(leadsPages, group)
  await app.register(meetingsPages, group)
  await app.register(settingsPages, group)
  await app.register(usersPages, group)
  await app.register(async (scope) => oauthPages(scope, handlerGates(scope, cookies, chrome, now)))
  // Unknown addresses under the pages' own prefixes answer an HTML 404 too (elsewhere the
  // app's JSON one, as /api needs).
  for (const prefix of ['/settings', '/invite', '/contacts', '/tasks', '/flows', '/leads', '/meetings']) {
    await app.register(
      async (scope) => {
        scope.setNotFoundHandler((_request, reply) => {
          const { title, message } = ERROR_PAGES[404] ?? { title: 'Page not found', message: '' }
          return sendHtml(reply, 404, errorPage(chrome, title, message, { href: '/', text: 'Go to the start page' }))
        })
      },
      { prefix },
    )
  }
}

export default web
