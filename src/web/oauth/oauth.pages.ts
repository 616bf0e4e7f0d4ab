// The OAuth pages: Settings → Apps (admins register, change, rotate and delete the company's
// apps), the consent page of /oauth/authorize, and the Integrations section listing the apps
// the user authorised. Plain forms: everything works without JavaScript.
import type { Account } from '../../modules/auth/index.js'
import { SCOPE_DESCRIPTIONS, SCOPES, type Scope } from '../../scopes.js'
import type { AuthorisedApp } from '../../modules/oauth/index.js'
import type { ShownApp } from '../../modules/oauth-server/index.js'
import { html, type Html } from '../shared/html.js'
import { alert, confirmPage, csrfInput, formatter, layout, recordTable, scopeList, time, type PageFrame } from '../frame/frame.js'

export const APPS = '/settings/apps'

export type AppFlash =
  | { kind: 'app-secret'; name: string; clientId: string; secret: string | null; rotated: boolean }
  | { kind: 'app-deleted' | 'app-changed'; name: string }
export const APP_FLASHES: readonly AppFlash['kind'][] = ['app-secret', 'app-deleted', 'app-changed']

export interface AppForm {
  name: string
  redirectUris: string
  scopes: string[]
  public: boolean
  errors: string[]
}

const EMPTY_FORM: AppForm = { name: '', redirectUris: '', scopes: [], public: false, errors: [] }

function appFields(form: AppForm, idPrefix: string, withType: boolean): Html {
  return html`<label for="${idPrefix}name">Name</label>
    <input id="${idPrefix}name" name="name" type="text" maxlength="255" required value="${form.name}">
    <label for="${idPrefix}redirect">Redirect URIs</label>
    <textarea id="${idPrefix}redirect" name="redirect_uris" rows="3" required aria-describedby="${idPrefix}redirect-hint">${form.redirectUris}</textarea>
    <p id="${idPrefix}redirect-hint" class="hint">One a line, matched exactly (port and path included). https, or http only for 127.0.0.1 or localhost.</p>
    <fieldset>
      <legend>Scopes the app may ask for</legend>
      <div class="scope-choices">
      ${SCOPES.map(
        (scope) => html`<label class="choice"><input type="checkbox" name="scopes[]" value="${scope}"${form.scopes.includes(scope) ? html` checked` : ''}> <span><code>${scope}</code> <span class="muted">${SCOPE_DESCRIPTIONS[scope]}</span></span></label>`,
      )}
      </div>
    </fieldset>
    ${withType &&
    html`<fieldset>
      <legend>Client type</legend>
      <label class="choice"><input type="radio" name="client_type" value="confidential"${form.public ? '' : html` checked`}> Confidential: a server that keeps a client secret</label>
      <label class="choice"><input type="radio" name="client_type" value="public"${form.public ? html` checked` : ''}> Public: a desktop, mobile or browser app (no secret; PKCE only)</label>
    </fieldset>`}`
}

function appFlash(flash: AppFlash | undefined): Html | false {
  if (!flash) return false
  if (flash.kind !== 'app-secret') {
    const done = flash.kind === 'app-deleted' ? 'deleted: every token it held stopped working' : 'saved'
    return html`<p class="notice" role="status">App “${flash.name}” ${done}.</p>`
  }
  return html`<section class="card new-token" aria-labelledby="app-secret-title">
  <h2 id="app-secret-title">${flash.rotated ? 'New client secret' : 'App registered'}: ${flash.name}</h2>
  <dl class="facts">
    <dt>client_id</dt><dd><code class="secret" id="client-id">${flash.clientId}</code></dd>
    ${flash.secret !== null && html`<dt>client_secret</dt><dd><code class="secret" id="client-secret">${flash.secret}</code></dd>`}
  </dl>
  ${flash.secret !== null
    ? html`<p>Copy the client secret now: it is shown only once.${flash.rotated ? ' The previous secret keeps working for 24 hours.' : ''}</p>`
    : html`<p>A public client has no secret: it must use PKCE (S256) on every authorization.</p>`}
</section>`
}

export function appsPage(chrome: PageFrame, csrf: string, account: Account, apps: ShownApp[], view: { flash?: AppFlash | undefined; form?: AppForm }): Html {
  const format = formatter(account.timezone)
  const form = view.form ?? EMPTY_FORM
  return layout(
    chrome,
    'Apps',
    html`<h1>Apps</h1>
<p class="lead">Third-party apps of ${account.companyName} that ask users for access through OAuth 2.0
(authorization code with PKCE). See the <a href="/docs/v1">API reference</a> and docs/access-control.md.</p>
${appFlash(view.flash)}
<section class="card" aria-labelledby="apps-title">
  <h2 id="apps-title">Registered apps</h2>
  ${recordTable(apps, {
    empty: 'No app is registered yet.',
    columns: [
      ['Name', (app) => app.name],
      ['client_id', (app) => html`<code>${app.client_id}</code>`],
      ['Type', (app) => app.client_type],
      ['Redirect URIs', (app) => app.redirect_uris.map((uri) => html`<code>${uri}</code><br>`)],
      ['Scopes', (app) => scopeList(app.scopes)],
      ['Registered', (app) => time(app.created_at, format)],
    ],
    actions: (app) => html`<a class="button" href="${APPS}/${String(app.id)}">Change<span class="visually-hidden"> ${app.name}</span></a>`,
  })}
</section>
<section class="card" aria-labelledby="register-title">
  <h2 id="register-title">Register an app</h2>
  ${form.errors.map((error) => alert(error))}
  <form method="post" action="${APPS}" class="stack">
    ${csrfInput(csrf)}
    ${appFields(form, 'new-', true)}
    <button type="submit" class="primary">Register app</button>
  </form>
</section>`,
  )
}

export function editAppPage(chrome: PageFrame, csrf: string, app: ShownApp, form?: AppForm): Html {
  const shown = form ?? { name: app.name, redirectUris: app.redirect_uris.join('\n'), scopes: app.scopes, public: app.client_type === 'public', errors: [] }
  const base = `${APPS}/${String(app.id)}`
  return layout(
    chrome,
    `App ${app.name}`,
    html`<h1>${app.name}</h1>
<p class="lead">client_id <code>${app.client_id}</code> · ${app.client_type} client</p>
<section class="card" aria-labelledby="edit-title">
  <h2 id="edit-title">Change</h2>
  ${shown.errors.map((error) => alert(error))}
  <form method="post" action="${base}" class="stack">
    ${csrfInput(csrf)}
    ${appFields(shown, 'edit-', false)}
    <button type="submit" class="primary">Save</button>
  </form>
</section>
${app.client_type === 'confidential' &&
html`<section class="card" aria-labelledby="rotate-title">
  <h2 id="rotate-title">Client secret</h2>
  <p>A new secret is shown once; the current one keeps working for 24 hours so the app can switch.</p>
  <form method="post" action="${base}/rotate">${csrfInput(csrf)}<button type="submit">Rotate the secret</button></form>
</section>`}
<section class="card" aria-labelledby="delete-title">
  <h2 id="delete-title">Delete</h2>
  <p>Every user's authorisation of this app ends and each of its tokens stops working at once.</p>
  <a class="button danger" href="${base}/delete">Delete this app</a>
</section>
<p><a href="${APPS}">Back to Apps</a></p>`,
  )
}

export function deleteAppPage(chrome: PageFrame, csrf: string, app: ShownApp): Html {
  const base = `${APPS}/${String(app.id)}`
  return confirmPage(chrome, csrf, {
    title: 'Delete app',
    question: `Delete “${app.name}”?`,
    consequence: "Every user's authorisation of it ends and each of its tokens stops working at once. This cannot be undone.",
    action: `${base}/delete`,
    button: 'Delete app',
    back: base,
  })
}

/** The authorization request, carried through the consent form as hidden fields and checked again on submit. */
export type AuthorizeFields = Record<'client_id' | 'redirect_uri' | 'response_type' | 'scope' | 'state' | 'code_challenge' | 'code_challenge_method', string | undefined>

export function consentPage(
  chrome: PageFrame,
  csrf: string,
  account: Account,
  consent: { appName: string; appCompany: string; redirectUri: string; scopes: Scope[]; fields: AuthorizeFields },
): Html {
  return layout(
    chrome,
    `Authorise ${consent.appName}`,
    html`<section class="card narrow" aria-labelledby="consent-title">
  <h1 id="consent-title">Allow “${consent.appName}” to use your ${'engage'} account?</h1>
  <p>The app is registered by <strong>${consent.appCompany}</strong>. It will act as you,
  <strong>${account.name}</strong>, in <strong>${account.companyName}</strong>, and may:</p>
  <ul class="consent-scopes">
    ${consent.scopes.map((scope) => html`<li>${SCOPE_DESCRIPTIONS[scope]} <span class="muted">(<code>${scope}</code>)</span></li>`)}
  </ul>
  <p class="muted">You can revoke its access at any time on Settings → Integrations. After you answer you are sent to <code>${consent.redirectUri}</code>.</p>
  <form method="post" action="/oauth/authorize" class="row">
    ${csrfInput(csrf)}
    ${Object.entries(consent.fields).map(([name, value]) => value !== undefined && html`<input type="hidden" name="${name}" value="${value}">`)}
    <button type="submit" name="decision" value="allow" class="primary">Allow</button>
    <button type="submit" name="decision" value="deny">Deny</button>
  </form>
</section>`,
  )
}

export function authorisedAppsSection(csrf: string, account: Account, apps: AuthorisedApp[], revoked: boolean): Html {
  const format = formatter(account.timezone)
  return html`<section class="card" aria-labelledby="authorised-title">
  <h2 id="authorised-title">Apps you authorised</h2>
  ${revoked && html`<p class="notice" role="status">The app's access was revoked: its tokens no longer work.</p>`}
  ${recordTable(apps, {
    empty: 'You have not authorised any app.',
    columns: [
      ['App', (app) => app.app_name],
      ['Registered by', (app) => app.company_name],
      ['Scopes', (app) => scopeList(app.scopes)],
      ['Authorised', (app) => time(app.created_at, format)],
    ],
    actions: (app) =>
      html`<form method="post" action="/settings/integrations/apps/${String(app.grant_id)}/revoke">${csrfInput(csrf)}<button type="submit" class="danger">Revoke<span class="visually-hidden"> ${app.app_name}</span></button></form>`,
  })}
</section>`
}

/**
 * After the consent form, on to an app whose redirect URI's host a Content-Security-Policy
 * cannot name ([::1]): a refresh, which form-action does not govern, and a link to follow by hand.
 */
export function continuePage(chrome: PageFrame, to: string): Html {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="refresh" content="0; url=${to}">
<title>Back to the app · engage</title>
<link rel="stylesheet" href="${chrome.assets.css}">
</head>
<body>
<main id="main">
<section class="card narrow">
  <h1>Back to the app</h1>
  <p>Your answer was sent. If the app does not open by itself, <a href="${to}">continue to the app</a>.</p>
</section>
</main>
</body>
</html>
`
}
