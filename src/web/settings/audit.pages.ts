// Settings → Security log (/settings/audit): the company's audit log for its admins, newest
// first, each record as a sentence ("Ana created the token “CRM sync”, from 203.0.113.7,
// 2 minutes ago"), the list's filters as a GET form, an Older link with the cursor, and
// the export of the filtered time range. No script needed; one column on a phone.
import { ACTOR_TYPES } from '../../acting.js'
import type { Account } from '../../modules/auth/index.js'
import { AUDIT_ACTIONS, type AuditPage, type AuditRecord } from '../../modules/audit/index.js'
import { html, type Html } from '../shared/html.js'
import { layout, type PageFrame } from '../frame/frame.js'

export const AUDIT_PATH = '/settings/audit'

/** The form's fields, as typed (each optional). */
export const AUDIT_FIELDS = ['action', 'actor_type', 'actor_id', 'target_type', 'target_id', 'outcome', 'since', 'until'] as const
export type AuditForm = Partial<Record<(typeof AUDIT_FIELDS)[number], string>>

const REASONS: Record<string, string> = {
  wrong_password: 'a wrong password',
  rate_limited: 'too many attempts',
  deactivated: 'a deactivated account',
}

const quoted = (text: string | null) => (text === null ? '' : `“${text}”`)

function actorName(event: AuditRecord): string {
  const { type, label } = event.actor
  if (type === 'cli') return `${label ?? 'someone'} (admin command line)`
  if (type === 'api_token') return `the token ${quoted(label)}`
  if (type === 'system') return 'engage'
  const name = label ?? `${type} ${String(event.actor.id)}`
  const user = event.actor.on_behalf_of
  return user ? `${name} (for ${user.label ?? `user ${String(user.id)}`})` : name
}

/** What happened, as a sentence without its subject. */
function predicate(event: AuditRecord): string {
  const target = event.target.label ?? `#${String(event.target.id)}`
  const changed = Object.keys(event.changes ?? {}).join(', ')
  switch (event.action) {
    case 'user.signed_in': return 'signed in'
    case 'user.sign_in_refused': return `was refused sign-in (${REASONS[event.reason ?? ''] ?? event.reason ?? 'refused'})`
    case 'user.signed_out': return 'signed out'
    case 'user.password_set': return `set a new password for ${target}`
    case 'user.invite_created': return `made an invite link for ${target}`
    case 'user.invite_used': return 'chose a password through an invite link'
    case 'user.created': return `created the user ${target}`
    case 'user.deactivated': return `deactivated ${target}`
    case 'user.reactivated': return `reactivated ${target}`
    case 'user.changed': return `changed ${changed} of ${target}`
    case 'api_token.created': return `created the token ${quoted(target)}`
    case 'api_token.revoked': return `revoked the token ${quoted(target)}`
    case 'api_token.use_refused': return 'was refused: it has expired'
    case 'api_token.used_from_new_address': return 'was used from a new address'
    case 'webhook.created': return `created the webhook ${target}`
    case 'webhook.changed': return `changed the webhook ${target} (${changed})`
    case 'webhook.paused': return `paused the webhook ${target}`
    case 'webhook.resumed': return `resumed the webhook ${target}`
    case 'webhook.deleted': return `deleted the webhook ${target}`
    case 'webhook.secret_rotated': return `rotated the signing secret of the webhook ${target}`
    case 'webhook.delivery_replayed': return `replayed a delivery of the webhook ${target}`
    case 'company.created': return `created the company ${target}`
    case 'company.settings_changed': return `changed ${changed} of the company ${target}`
    case 'flow.created': return `created the flow ${target}`
    case 'flow.changed': return `changed the flow ${target}`
    case 'task.created': return `created the task ${quoted(target)}`
    case 'task.completed': return `completed the task ${quoted(target)}`
    case 'lead.linked': return `linked the lead ${target} to a contact`
    case 'contact_import.created': return `started importing contacts from ${quoted(target)}`
    case 'contact_import.finished': return `finished importing contacts from ${quoted(target)}`
    case 'contacts.exported': return 'exported contacts'
    case 'whatsapp_messages.imported': return `imported ${JSON.stringify((event.changes?.imported as unknown[] | undefined)?.[1] ?? '?')} WhatsApp messages`
    default: return `${event.action} ${target}`
  }
}

/** "2 minutes ago", "3 days ago". */
export function ago(at: Date, now: Date): string {
  const seconds = Math.max(0, Math.round((now.getTime() - at.getTime()) / 1000))
  const units: [number, string][] = [[86_400 * 365, 'year'], [86_400 * 30, 'month'], [86_400, 'day'], [3600, 'hour'], [60, 'minute']]
  for (const [size, name] of units) {
    const n = Math.floor(seconds / size)
    if (n >= 1) return `${String(n)} ${name}${n === 1 ? '' : 's'} ago`
  }
  return 'just now'
}

/** The record as one sentence: who, what, from where, when. */
export function auditSentence(event: AuditRecord, now: Date): string {
  const who = actorName(event)
  const from = event.ip ? `, from ${event.ip}` : ''
  const at = new Date(event.occurred_at)
  return `${who.charAt(0).toUpperCase()}${who.slice(1)} ${predicate(event)}${from}, ${ago(at, now)}`
}

const option = (value: string, chosen: string | undefined, label = value) =>
  html`<option value="${value}"${chosen === value ? html` selected` : ''}>${label}</option>`

function query(form: AuditForm, extra: Record<string, string> = {}): string {
  const params = new URLSearchParams()
  for (const [name, value] of Object.entries({ ...form, ...extra })) if (value) params.set(name, value)
  const text = params.toString()
  return text === '' ? '' : `?${text}`
}

export interface AuditView {
  form: AuditForm
  page?: AuditPage
  errors: string[]
  now: Date
}

export function auditLogPage(chrome: PageFrame, account: Account, view: AuditView): Html {
  const { form } = view
  const format = new Intl.DateTimeFormat('en-GB', { dateStyle: 'medium', timeStyle: 'medium', timeZone: account.timezone })
  const exportRange = { since: form.since || new Date(view.now.getTime() - 30 * 86_400_000).toISOString(), until: form.until || view.now.toISOString() }
  return layout(
    chrome,
    'Security log',
    html`<h1>Security log</h1>
<p class="lead">Who did what in ${account.companyName}, when and from where: sign-ins, tokens, users, webhooks and admin
commands, newest first. Records are kept 400 days.</p>
${view.errors.map((error) => html`<p class="alert" role="alert">${error}</p>`)}
<form method="get" action="${AUDIT_PATH}" class="card filters" aria-label="Filters">
  <div class="filter-grid">
    <label>Action <select name="action">
      ${option('', form.action, 'Any')}
      ${[...new Set(AUDIT_ACTIONS.map((a) => `${a.split('.')[0] ?? a}.`))].map((prefix) => option(prefix, form.action, `${prefix}*`))}
      ${AUDIT_ACTIONS.map((action) => option(action, form.action))}
    </select></label>
    <label>Actor type <select name="actor_type">${option('', form.actor_type, 'Any')}${ACTOR_TYPES.map((t) => option(t, form.actor_type))}</select></label>
    <label>Actor id <input type="text" inputmode="numeric" name="actor_id" value="${form.actor_id ?? ''}" maxlength="16"></label>
    <label>Target type <input type="text" name="target_type" value="${form.target_type ?? ''}" maxlength="32"></label>
    <label>Target id <input type="text" inputmode="numeric" name="target_id" value="${form.target_id ?? ''}" maxlength="16"></label>
    <label>Outcome <select name="outcome">${option('', form.outcome, 'Any')}${option('success', form.outcome)}${option('failure', form.outcome)}</select></label>
    <label>Since <input type="text" name="since" value="${form.since ?? ''}" placeholder="2026-11-01T00:00:00Z" maxlength="40" aria-describedby="range-hint"></label>
    <label>Until <input type="text" name="until" value="${form.until ?? ''}" placeholder="2026-12-01T00:00:00Z" maxlength="40" aria-describedby="range-hint"></label>
  </div>
  <p id="range-hint" class="hint">Since and Until: a date and time with its offset, in UTC with Z (2026-11-01T00:00:00Z) or in another zone (2026-11-01T00:00:00-03:00).</p>
  <div class="row"><button type="submit" class="primary">Filter</button> <a href="${AUDIT_PATH}">Clear</a>
  <a class="button" href="${AUDIT_PATH}/export${query({}, exportRange)}" download>Export ${form.since || form.until ? 'this range' : 'the last 30 days'} (JSON Lines)</a></div>
</form>
${view.page &&
(view.page.data.length === 0
  ? html`<p class="muted">No records${view.page.meta.has_more ? ' on this page: the filters match few records. Look further with Older.' : '.'}</p>`
  : html`<ol class="audit-log">${view.page.data.map(
      (event) => html`<li class="${event.outcome === 'failure' ? 'failure' : ''}">
        <span class="sentence">${auditSentence(event, view.now)}</span>
        <span class="muted detail"><time datetime="${new Date(event.occurred_at).toISOString()}">${format.format(new Date(event.occurred_at))}</time> · <code>${event.action}</code>${event.user_agent && html` · ${event.user_agent}`}</span>
      </li>`,
    )}</ol>`)}
${view.page?.meta.has_more && html`<p><a class="button" rel="next" href="${AUDIT_PATH}${query(form, { cursor: view.page.meta.next_cursor })}">Older</a></p>`}`,
  )
}
