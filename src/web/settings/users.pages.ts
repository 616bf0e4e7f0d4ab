// Settings → Users: the company's users; for admins Invite (the one-time link shown once),
// change role, deactivate and activate. Members see the list only.
import type { Account } from '../../modules/auth/index.js'
import type { User } from '../../modules/users/index.js'
import { html, type Html } from '../shared/html.js'
import { field, postForm, type FormState } from '../frame/form.js'
import { csrfInput, layout, recordTable, type PageFrame } from '../frame/frame.js'

export const USERS = '/settings/users'

export type UsersFlash =
  | { kind: 'invited'; name: string; email: string; url: string }
  | { kind: 'user-changed'; what: string }
export const USERS_FLASHES: readonly UsersFlash['kind'][] = ['invited', 'user-changed']

function inviteNotice(flash: Extract<UsersFlash, { kind: 'invited' }>): Html {
  return html`<section class="card new-token" role="status" aria-labelledby="invite-title">
  <h2 id="invite-title">Invite link for ${flash.name}</h2>
  <p><strong>Copy it now: it is shown only this once.</strong> Send it to ${flash.email}; it is valid 7 days and works once.</p>
  <div class="copy-row">
    <code id="invite-link" class="secret">${flash.url}</code>
    <button type="button" class="copy" data-copy="invite-link" hidden>Copy</button>
  </div>
</section>`
}

export function usersListPage(chrome: PageFrame, csrf: string, account: Account, users: User[], flash: UsersFlash | undefined, invite: FormState): Html {
  const admin = account.role === 'admin'
  const action = (user: User, path: string, label: string, extra = '') =>
    html`<form method="post" action="${USERS}/${String(user.id)}/${path}" class="inline">${csrfInput(csrf)}${extra && html`<input type="hidden" name="role" value="${extra}">`}<button type="submit">${label}<span class="visually-hidden"> ${user.name}</span></button></form>`
  return layout(
    chrome,
    'Users',
    html`<h1>Users</h1>
<p class="lead">The people of ${account.companyName}. ${admin ? 'Admins invite users, change their role and deactivate them.' : 'Only admins change them; you can see them here.'}</p>
${flash?.kind === 'invited' && inviteNotice(flash)}
${flash?.kind === 'user-changed' && html`<p class="notice" role="status">${flash.what}</p>`}
<section class="card" aria-labelledby="users-title">
  <h2 id="users-title">Users</h2>
  ${recordTable(users, {
    empty: 'No users.',
    className: 'records users',
    columns: [
      ['Name', (user) => user.name],
      ['Email', (user) => html`<span class="wrap">${user.email}</span>`],
      ['Role', (user) => (user.role === 'admin' ? 'Admin' : 'Member')],
      ['Status', (user) => (user.active ? 'Active' : html`<strong class="danger-text">Deactivated</strong>`)],
    ],
    actions:
      admin &&
      ((user) =>
        user.id === account.userId
          ? html`<span class="muted">You</span>`
          : html`${user.role === 'member' ? action(user, 'role', 'Make admin', 'admin') : action(user, 'role', 'Make member', 'member')}
      ${user.active ? action(user, 'invite', 'New invite link') : ''}
      ${user.active ? action(user, 'deactivate', 'Deactivate') : action(user, 'activate', 'Activate')}`),
  })}
</section>
${admin && html`<section class="card" aria-labelledby="invite-form-title">
  <h2 id="invite-form-title">Invite a user</h2>
  ${postForm({
    action: `${USERS}/invite`,
    csrf,
    state: invite,
    submit: 'Invite',
    shown: ['name', 'email', 'role'],
    fields: html`${field(invite, { name: 'name', label: 'Name', required: true, maxlength: 255 })}
    ${field(invite, { name: 'email', label: 'Email', type: 'email', required: true, maxlength: 255 })}
    ${field(invite, { name: 'role', label: 'Role', type: 'select', options: [['member', 'Member'], ['admin', 'Admin']] })}`,
  })}
</section>`}`,
  )
}
