// Settings → Integrations (the user's api tokens, the company's webhooks) and Settings →
// Company tokens: their pages, confirmations and one-time messages.
import type { Account } from '../../modules/auth/index.js'
import type { CompanyTokenRecord, ListedTokenRecord } from '../../modules/api-tokens/index.js'
import { SCOPE_DESCRIPTIONS, SCOPES, type Scope } from '../../scopes.js'
import { EVENT_TYPES } from '../../modules/outbox/index.js'
import type { SubscriptionRow, SubscriptionOverview } from '../../modules/webhooks/index.js'
import { html, type Html } from '../shared/html.js'
import { alert, confirmPage, csrfInput, formatter, layout, recordTable, scopeList, time, type PageFrame, type TableColumn } from '../frame/frame.js'
import { PRODUCT } from '../../version.js'

export type Flash =
  | { kind: 'created'; token: string; label: string | null }
  | { kind: 'revoked'; prefix: string; label: string | null }
  | WebhookFlash

/** After a webhook form: the secret (shown once) of a new subscription or a rotation, or what was done. */
export type WebhookFlash =
  | { kind: 'webhook-secret'; url: string; secret: string; rotated: boolean }
  | { kind: 'webhook-deleted'; url: string }
  | { kind: 'webhook-enabled'; url: string }
export const INTEGRATIONS_FLASHES: readonly Flash['kind'][] = ['created', 'revoked', 'webhook-secret', 'webhook-deleted', 'webhook-enabled']

/** The webhook form as typed, and what is wrong with it, when creating failed. */
export interface WebhookForm {
  url: string
  all: boolean
  events: string[]
  description: string
  errors: string[]
}

/** Expiries a token can be given on the form, in days (or none: never). */
export const EXPIRY_CHOICES = [30, 90, 365] as const

/** The access and expiry chosen on the token form, and what is wrong with them. */
export interface TokenForm {
  full: boolean
  scopes: Scope[]
  expiresInDays: number | undefined
  errors: string[]
}

export interface IntegrationsView {
  tokens: ListedTokenRecord[]
  flash?: Flash | undefined
  /** Where the API is reached, for the curl line. */
  baseUrl: string
  /** The label typed, and what is wrong with it, when creating failed. */
  label?: string
  labelError?: string
  tokenForm?: TokenForm
  /** The company's webhook subscriptions, with their latest delivery. */
  webhooks: SubscriptionOverview[]
  webhookForm?: WebhookForm
  /** The section of the apps the user authorised through OAuth (src/web/oauth-pages.ts). */
  authorisedApps?: Html
}


/** A token's access in words: full access, or its scopes. */
const accessOf = (token: { scopes: Scope[] | null }) => (token.scopes === null ? html`Full access` : scopeList(token.scopes))

/** When a token expires; expired ones say so. */
function expiryOf(token: { expires_at: Date | null }, format: Intl.DateTimeFormat, now: Date): Html {
  if (token.expires_at === null) return html`<span class="muted">Never</span>`
  const at = time(token.expires_at, format)
  return token.expires_at.getTime() <= now.getTime() ? html`<strong class="danger-text">Expired</strong> ${at}` : at
}

function scopeChoices(form: TokenForm): Html {
  return html`<fieldset>
      <legend>Access</legend>
      <label class="choice"><input type="radio" name="access" value="full" ${form.full ? html`checked` : ''}> Full access: everything you can do</label>
      <label class="choice"><input type="radio" name="access" value="scopes" ${form.full ? '' : html`checked`}> Only these scopes (a write scope includes its read scope):</label>
      <div class="scope-choices">
      ${SCOPES.map(
        (scope) => html`<label class="choice" title="${SCOPE_DESCRIPTIONS[scope]}"><input type="checkbox" name="scopes[]" value="${scope}" ${form.scopes.includes(scope) ? html`checked` : ''}> <code>${scope}</code></label>`,
      )}
      </div>
    </fieldset>
    <label for="expires_in_days">Expires</label>
    <select id="expires_in_days" name="expires_in_days">
      <option value="" ${form.expiresInDays === undefined ? html`selected` : ''}>Never</option>
      ${EXPIRY_CHOICES.map((days) => html`<option value="${String(days)}" ${form.expiresInDays === days ? html`selected` : ''}>In ${String(days)} days</option>`)}
    </select>`
}

const tokenName = (token: { label: string | null; prefix: string }) => token.label ?? `${token.prefix}…`

/** The columns of both token tables (the user's own, the company's). */
function tokenColumns(format: Intl.DateTimeFormat, now: Date): TableColumn<ListedTokenRecord | CompanyTokenRecord>[] {
  return [
    ['Label', (token) => token.label ?? html`<span class="muted">No label</span>`],
    ['Token', (token) => html`<code>${token.prefix}…</code>`],
    ['Access', accessOf],
    ['Expires', (token) => expiryOf(token, format, now)],
    ['Created', (token) => time(token.created_at, format)],
    ['Last used', (token) => time(token.last_used_at, format)],
  ]
}

function newToken(flash: Extract<Flash, { kind: 'created' }>, baseUrl: string): Html {
  const curl = `curl ${baseUrl}/api/v1/users/authorize_api -H "Authorization: Bearer ${flash.token}"`
  return html`<section class="card new-token" role="status" aria-labelledby="new-token-title">
  <h2 id="new-token-title">Your new token${flash.label && html`: ${flash.label}`}</h2>
  <p><strong>Copy it now: it is shown only this once.</strong> Keep it secret; anyone with it acts as you.</p>
  <div class="copy-row">
    <code id="new-token" class="secret">${flash.token}</code>
    <button type="button" class="copy" data-copy="new-token" hidden>Copy</button>
  </div>
  <p>Try it:</p>
  <div class="copy-row">
    <pre><code id="try-it">${curl}</code></pre>
    <button type="button" class="copy" data-copy="try-it" hidden>Copy</button>
  </div>
</section>`
}

export function integrationsPage(chrome: PageFrame, csrf: string, account: Account, view: IntegrationsView, now = new Date()): Html {
  const format = formatter(account.timezone)
  const tokenForm = view.tokenForm ?? { full: true, scopes: [], expiresInDays: undefined, errors: [] }
  const flash = view.flash
  return layout(
    chrome,
    'Integrations',
    html`<h1>Integrations</h1>
<p class="lead">api tokens let other tools (a CRM sync, Zapier, your own scripts) call the
<a href="/docs/v1">${PRODUCT} API</a> as you: a token sees every record of ${account.companyName}.</p>
${flash?.kind === 'created' && newToken(flash, view.baseUrl)}
${flash?.kind === 'revoked' &&
html`<p class="notice" role="status">Token “${tokenName(flash)}” revoked: it no longer works.</p>`}
<section class="card" aria-labelledby="tokens-title">
  <h2 id="tokens-title">Your api tokens</h2>
  ${recordTable(view.tokens, {
    empty: 'You have no api tokens yet.',
    timezone: account.timezone,
    columns: tokenColumns(format, now),
    actions: (token) =>
      html`<a class="button danger" href="/settings/integrations/tokens/${String(token.id)}/revoke">Revoke<span class="visually-hidden"> ${tokenName(token)}</span></a>`,
  })}
</section>
<section class="card" aria-labelledby="create-title">
  <h2 id="create-title">Create a token</h2>
  ${alert(view.labelError)}
  <form method="post" action="/settings/integrations/tokens" class="stack">
    ${csrfInput(csrf)}
    <label for="label">Label <span class="muted">(optional)</span></label>
    <input id="label" name="label" type="text" maxlength="255" value="${view.label ?? ''}" aria-describedby="label-hint">
    <p id="label-hint" class="hint">What will use it, e.g. “CRM sync”, so you can tell your tokens apart.</p>
    ${scopeChoices(tokenForm)}
    <button type="submit" class="primary">Create token</button>
  </form>
</section>
${view.authorisedApps}
${webhooksSection(csrf, account, view, format)}`,
  )
}

const WEBHOOKS = '/settings/integrations/webhooks'

function webhookFlash(flash: WebhookFlash | undefined): Html | false {
  if (!flash) return false
  if (flash.kind === 'webhook-deleted') return html`<p class="notice" role="status">Webhook to ${flash.url} deleted: nothing more is sent to it.</p>`
  if (flash.kind === 'webhook-enabled') return html`<p class="notice" role="status">Webhook to ${flash.url} enabled again: new events are sent to it.</p>`
  return html`<section class="card new-token" role="status" aria-labelledby="new-secret-title">
  <h2 id="new-secret-title">${flash.rotated ? 'New signing secret' : 'Webhook created'}: ${flash.url}</h2>
  <p><strong>Copy the signing secret now: it is shown only this once.</strong> Your endpoint checks each delivery's
  <code>webhook-signature</code> with it (<a href="/docs/v1">API reference</a>, docs/webhooks.md).${flash.rotated &&
  ' The previous secret keeps signing deliveries for 24 hours, so you can switch without losing events.'}</p>
  <div class="copy-row">
    <code id="new-webhook-secret" class="secret">${flash.secret}</code>
    <button type="button" class="copy" data-copy="new-webhook-secret" hidden>Copy</button>
  </div>
</section>`
}

function webhookStatus(webhook: SubscriptionOverview, format: Intl.DateTimeFormat): Html {
  if (webhook.enabled) return html`Active`
  return html`<strong class="danger-text">Disabled</strong> ${time(webhook.disabled_at, format, '')}${webhook.disabled_reason &&
    html`<br><span class="muted">${webhook.disabled_reason}</span>`}`
}

function lastDelivery(webhook: SubscriptionOverview, format: Intl.DateTimeFormat): Html {
  if (!webhook.last_delivery_status) return html`<span class="muted">None yet</span>`
  const word = { delivered: 'Delivered', pending: 'Pending', failed: 'Failed' }[webhook.last_delivery_status]
  return html`${word} ${time(webhook.last_delivery_at, format, '')}${webhook.last_delivery_status !== 'delivered' &&
    webhook.last_delivery_error &&
    html`<br><span class="muted">${webhook.last_delivery_error}</span>`}`
}

const eventsText = (events: string[]) => (events.includes('*') ? 'All events' : events.join(', '))

function webhooksSection(csrf: string, account: Account, view: IntegrationsView, format: Intl.DateTimeFormat): Html {
  const admin = account.role === 'admin'
  const form = view.webhookForm ?? { url: '', all: true, events: [], description: '', errors: [] }
  const flash = view.flash?.kind.startsWith('webhook-') ? (view.flash as WebhookFlash) : undefined
  return html`${webhookFlash(flash)}
<section class="card" aria-labelledby="webhooks-title">
  <h2 id="webhooks-title">Webhooks</h2>
  <p class="muted">Every change in ${account.companyName} posted to your URL as it happens, signed, and retried for 3 days.
  ${admin ? 'Admins of the company manage them.' : `Only admins of ${account.companyName} manage them; you can see them here.`}</p>
  ${recordTable(view.webhooks, {
    empty: 'No webhooks yet.',
    className: 'tokens webhooks',
    timezone: account.timezone,
    columns: [
      ['URL', (webhook) => html`<code class="url">${webhook.url}</code>${webhook.description && html`<br><span class="muted">${webhook.description}</span>`}`],
      ['Events', (webhook) => eventsText(webhook.events)],
      ['Status', (webhook) => webhookStatus(webhook, format)],
      ['Last delivery', (webhook) => lastDelivery(webhook, format)],
    ],
    actions:
      admin &&
      ((webhook) => html`
        ${!webhook.enabled &&
        html`<form method="post" action="${WEBHOOKS}/${String(webhook.id)}/enable">${csrfInput(csrf)}<button type="submit">Enable<span class="visually-hidden"> ${webhook.url}</span></button></form>`}
        <form method="post" action="${WEBHOOKS}/${String(webhook.id)}/rotate">${csrfInput(csrf)}<button type="submit">Rotate secret<span class="visually-hidden"> of ${webhook.url}</span></button></form>
        <a class="button danger" href="${WEBHOOKS}/${String(webhook.id)}/delete">Delete<span class="visually-hidden"> ${webhook.url}</span></a>
      `),
  })}
</section>
${admin && html`<section class="card" aria-labelledby="create-webhook-title">
  <h2 id="create-webhook-title">Create a webhook</h2>
  ${form.errors.length > 0 && html`<div class="alert" role="alert">${form.errors.map((error) => html`<p>${error}</p>`)}</div>`}
  <form method="post" action="${WEBHOOKS}" class="stack">
    ${csrfInput(csrf)}
    <label for="webhook-url">URL</label>
    <input id="webhook-url" name="url" type="url" required maxlength="2048" value="${form.url}" placeholder="https://" aria-describedby="webhook-url-hint">
    <p id="webhook-url-hint" class="hint">An https address on the public internet; redirects are not followed.</p>
    <fieldset>
      <legend>Events</legend>
      <label class="choice"><input type="radio" name="scope" value="all" ${form.all ? html`checked` : ''}> All events, also types added later</label>
      <label class="choice"><input type="radio" name="scope" value="some" ${form.all ? '' : html`checked`}> Only these:</label>
      <div class="event-types">
      ${EVENT_TYPES.map(
        (type) => html`<label class="choice"><input type="checkbox" name="events[]" value="${type}" ${form.events.includes(type) ? html`checked` : ''}> <code>${type}</code></label>`,
      )}
      </div>
    </fieldset>
    <label for="webhook-description">Description <span class="muted">(optional)</span></label>
    <input id="webhook-description" name="description" type="text" maxlength="255" value="${form.description}">
    <button type="submit" class="primary">Create webhook</button>
  </form>
</section>`}`
}

/** A page that asks before something that cannot be undone: what it is, what follows, and the button that does it. */

export function deleteWebhookPage(chrome: PageFrame, csrf: string, account: Account, webhook: SubscriptionRow): Html {
  const format = formatter(account.timezone)
  return confirmPage(chrome, csrf, {
    title: 'Delete webhook',
    question: 'Delete this webhook?',
    facts: html`<dt>URL</dt><dd><code>${webhook.url}</code></dd>
    <dt>Events</dt><dd>${eventsText(webhook.events)}</dd>
    <dt>Description</dt><dd>${webhook.description ?? html`<span class="muted">None</span>`}</dd>
    <dt>Created</dt><dd>${time(webhook.created_at, format)}</dd>`,
    consequence: 'Nothing more is sent to it, and its delivery history is deleted. This cannot be undone.',
    action: `${WEBHOOKS}/${String(webhook.id)}/delete`,
    button: 'Delete webhook',
    back: '/settings/integrations',
  })
}

export function revokePage(
  chrome: PageFrame,
  csrf: string,
  account: Account,
  token: ListedTokenRecord | CompanyTokenRecord,
  target: { action: string; back: string } = { action: `/settings/integrations/tokens/${String(token.id)}/revoke`, back: '/settings/integrations' },
): Html {
  const format = formatter(account.timezone)
  return confirmPage(chrome, csrf, {
    title: 'Revoke token',
    question: 'Revoke this token?',
    facts: html`${'user_name' in token && html`<dt>User</dt><dd>${token.user_name} (${token.user_email})</dd>`}
    <dt>Label</dt><dd>${token.label ?? html`<span class="muted">No label</span>`}</dd>
    <dt>Token</dt><dd><code>${token.prefix}…</code></dd>
    <dt>Access</dt><dd>${accessOf(token)}</dd>
    <dt>Created</dt><dd>${time(token.created_at, format)}</dd>
    <dt>Last used</dt><dd>${time(token.last_used_at, format)}</dd>`,
    consequence: 'Anything using it stops working at once. This cannot be undone.',
    ...target,
    button: 'Revoke token',
  })
}

/** Tokens of this company (admins): every user's live tokens, each revocable. */
export function companyTokensPage(chrome: PageFrame, account: Account, tokens: CompanyTokenRecord[], flash: Flash | undefined, now: Date): Html {
  const format = formatter(account.timezone)
  return layout(
    chrome,
    'Tokens of this company',
    html`<h1>Tokens of this company</h1>
<p class="lead">Every live api token of the users of ${account.companyName}. As an admin you can revoke any of them:
it stops working at once. Users make their own tokens on their Integrations page.</p>
${flash?.kind === 'revoked' && html`<p class="notice" role="status">Token “${tokenName(flash)}” revoked: it no longer works.</p>`}
<section class="card" aria-labelledby="company-tokens-title">
  <h2 id="company-tokens-title">Live tokens</h2>
  ${recordTable(tokens, {
    empty: `No user of ${account.companyName} has a live api token.`,
    timezone: account.timezone,
    columns: [['User', (token) => html`${token.user_name}<br><span class="muted">${token.user_email}</span>`], ...tokenColumns(format, now)],
    actions: (token) =>
      html`<a class="button danger" href="/settings/tokens/${String(token.id)}/revoke">Revoke<span class="visually-hidden"> ${tokenName(token)} of ${token.user_name}</span></a>`,
  })}
</section>`,
  )
}
