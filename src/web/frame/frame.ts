// The page frame of the web application: the one layout every page is drawn in (header,
// main navigation, sign-out form), and the parts pages share (tables, times, confirmation
// and error pages). Pages are functions from typed data to Html, escaped by default
// (shared/html.ts). No page has inline script or style: the Content-Security-Policy allows
// only the stylesheet and the small script served under /assets.
import type { FastifyReply } from 'fastify'
import type { Account } from '../../modules/auth/index.js'
import { html, type Html, type Interpolation } from '../shared/html.js'
import { CSRF_FIELD } from '../shared/security.js'
import { PRODUCT } from '../../version.js'


export interface Assets {
  css: string
  js: string
  icon: string
}

export interface PageFrame {
  assets: Assets
  /** The signed-in user and the CSRF token of the sign-out form. */
  signedIn?: { account: Account; csrf: string }
  /** The address of the page (its path), which marks the current link of the navigation. */
  path?: string
}

/** Answers a page; every page is private to its viewer and may hold a secret: never stored by caches. */
export function sendHtml(reply: FastifyReply, status: number, page: Html) {
  return reply.code(status).header('cache-control', 'no-store').type('text/html; charset=utf-8').send(page.text)
}

export const csrfInput = (token: string) => html`<input type="hidden" name="${CSRF_FIELD}" value="${token}">`

/** The page groups of the main navigation, in order: each label and where it leads. */
export const MAIN_NAV: readonly (readonly [label: string, href: string])[] = [
  ['Contacts', '/contacts'],
  ['Tasks', '/tasks'],
  ['Flows', '/flows'],
  ['Leads', '/leads'],
  ['Meetings', '/meetings'],
  ['Settings', '/settings'],
]

/** The pages under Settings; `admin`: shown to admins only. */
export const SETTINGS_NAV: readonly { label: string; href: string; admin: boolean }[] = [
  { label: 'Integrations', href: '/settings/integrations', admin: false },
  { label: 'Users', href: '/settings/users', admin: false },
  { label: 'Security log', href: '/settings/audit', admin: true },
  { label: 'Company tokens', href: '/settings/tokens', admin: true },
  { label: 'Apps', href: '/settings/apps', admin: true },
]

/** Whether `path` is `href` or a page below it. */
const within = (path: string | undefined, href: string) => path !== undefined && (path === href || path.startsWith(`${href}/`) || path.startsWith(`${href}?`))

const navLink = (path: string | undefined, label: string, href: string) =>
  html`<a href="${href}"${within(path, href) ? html` aria-current="page"` : ''}>${label}</a>`

/**
 * The frame of every page: the header (product, main navigation and the signed-in user with
 * the sign-out form, or only the API reference link before signing in), on Settings pages the
 * Settings navigation, then `main`.
 */
export function layout(chrome: PageFrame, title: string, main: Interpolation): Html {
  const who = chrome.signedIn
  const path = chrome.path
  const settings = who !== undefined && within(path, '/settings')
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} · ${PRODUCT}</title>
<link rel="icon" type="image/svg+xml" href="${chrome.assets.icon}">
<link rel="stylesheet" href="${chrome.assets.css}">
<script src="${chrome.assets.js}" defer></script>
</head>
<body>
<a class="skip" href="#main">Skip to content</a>
<header class="top">
  <a class="brand" href="/">${PRODUCT}</a>
  <nav aria-label="Main">
    ${who ? MAIN_NAV.map(([label, href]) => navLink(path, label, href)) : html`<a href="/docs/v1">API reference</a>`}
  </nav>
  ${who &&
  html`<div class="who">
    <span class="who-name">${who.account.name}</span>
    <span class="who-detail">${who.account.email} · ${who.account.companyName}</span>
    <form method="post" action="/logout">${csrfInput(who.csrf)}<button type="submit" class="link">Sign out</button></form>
  </div>`}
</header>
${settings &&
html`<nav class="subnav" aria-label="Settings">
  ${SETTINGS_NAV.filter((item) => !item.admin || who.account.role === 'admin').map((item) => navLink(path, item.label, item.href))}
  <a href="/docs/v1">API reference</a>
</nav>`}
<main id="main">
${main}
</main>
</body>
</html>
`
}

/** A list page's head: its heading and the button to its New page (`<list>/new`), the same on every list that makes records. */
export function listPageHead(heading: string, list: string, newLabel: string): Html {
  return html`<div class="page-head">
  <h1>${heading}</h1>
  <a class="button primary" href="${list}/new">${newLabel}</a>
</div>`
}

/**
 * A record's page head: the crumb back to its list (`list`, named `listName`), its heading
 * (`wrap`: a long one breaks anywhere) and the page's buttons, if it has any.
 */
export function recordPageHead(list: string, listName: string, heading: string, options: { actions?: Html; wrap?: boolean } = {}): Html {
  return html`<p class="crumbs"><a href="${list}">${listName}</a></p>
<div class="page-head">
  <h1${options.wrap === true && html` class="wrap"`}>${heading}</h1>${options.actions && html`
  ${options.actions}`}
</div>`
}

/**
 * A list's address for a view, so the view can be bookmarked: only the parameters that are set
 * (a blank or missing one, and the first page, are left out).
 */
export function viewHref(base: string, view: Record<string, string | number | undefined>): string {
  const params = new URLSearchParams()
  for (const [name, value] of Object.entries(view)) {
    if (value === undefined || value === '' || (name === 'page' && Number(value) <= 1)) continue
    params.set(name, String(value))
  }
  const query = params.toString()
  return query === '' ? base : `${base}?${query}`
}

export const alert = (message: string | undefined) => message && html`<p class="alert" role="alert">${message}</p>`
/** Dates in the company's time zone, e.g. "22 Nov 2026, 10:00". */
export function formatter(timezone: string) {
  return new Intl.DateTimeFormat('en-GB', { dateStyle: 'medium', timeStyle: 'short', timeZone: timezone })
}

export const time = (at: Date | null, format: Intl.DateTimeFormat, never = 'Never') =>
  at ? html`<time datetime="${at.toISOString()}">${format.format(at)}</time>` : html`<span class="muted">${never}</span>`

/** Scopes as a comma-separated list of code names. */
export const scopeList = (scopes: readonly string[]) => html`${scopes.map((scope, i) => html`${i > 0 ? ', ' : ''}<code>${scope}</code>`)}`
/** A column of a record table: its heading (also each cell's label on narrow screens) and its cell's content. */
/** A record a page shows or offers by its name: a user, a contact, a flow. */
export interface Named {
  id: number
  name: string
}

export type TableColumn<T> = [heading: string, cell: (record: T) => Interpolation]

/**
 * The table of a list of records (tokens, webhooks, apps), one row per record, or `empty` (a
 * paragraph) when there is none. `actions`, when given, fills a last column whose heading only
 * screen readers read; `timezone` is the caption, for tables that show times.
 */
export function recordTable<T>(
  records: readonly T[],
  table: { empty: string; columns: TableColumn<T>[]; actions?: ((record: T) => Interpolation) | false; timezone?: string; className?: string },
): Html {
  if (records.length === 0) return html`<p class="muted">${table.empty}</p>`
  const { columns, actions } = table
  return html`<table class="${table.className ?? 'tokens'}">
    ${table.timezone !== undefined && html`<caption class="muted">Times in ${table.timezone}</caption>`}
    <thead><tr>${columns.map(([heading]) => html`<th scope="col">${heading}</th>`)}${actions && html`<th scope="col"><span class="visually-hidden">Actions</span></th>`}</tr></thead>
    <tbody>
    ${records.map(
      (record) => html`<tr>
      ${columns.map(([heading, cell]) => html`<td data-label="${heading}">${cell(record)}</td>`)}
      ${actions && html`<td class="actions">${actions(record)}</td>`}
    </tr>`,
    )}
    </tbody>
  </table>`
}

export function confirmPage(
  chrome: PageFrame,
  csrf: string,
  ask: { title: string; question: Interpolation; facts?: Html; consequence: string; action: string; button: string; back: string },
): Html {
  return layout(
    chrome,
    ask.title,
    html`<section class="card narrow">
  <h1>${ask.question}</h1>
  ${ask.facts && html`<dl class="facts">
    ${ask.facts}
  </dl>`}
  <p>${ask.consequence}</p>
  <form method="post" action="${ask.action}" class="row">
    ${csrfInput(csrf)}
    <button type="submit" class="danger">${ask.button}</button>
    <a class="button" href="${ask.back}">Cancel</a>
  </form>
</section>`,
  )
}
export function errorPage(chrome: PageFrame, title: string, message: string, next?: { href: string; text: string }): Html {
  return layout(
    chrome,
    title,
    html`<section class="card narrow">
  <h1>${title}</h1>
  <p>${message}</p>
  ${next && html`<p><a href="${next.href}">${next.text}</a></p>`}
</section>`,
  )
}
