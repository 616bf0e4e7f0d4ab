// The pages before signing in: the sign-in form and the invite link's password form.
import { html, type Html } from '../shared/html.js'
import { alert, csrfInput, layout, type PageFrame } from '../frame/frame.js'

export function loginPage(chrome: PageFrame, form: { csrf: string; email?: string; error?: string; notice?: string; next?: string | undefined }): Html {
  return layout(
    chrome,
    'Sign in',
    html`<section class="card narrow">
  <h1>Sign in</h1>
  ${form.notice && html`<p class="notice" role="status">${form.notice}</p>`}
  ${alert(form.error)}
  <form method="post" action="/login" class="stack">
    ${csrfInput(form.csrf)}
    ${form.next !== undefined && html`<input type="hidden" name="next" value="${form.next}">`}
    <label for="email">Email</label>
    <input id="email" name="email" type="email" autocomplete="username" required maxlength="255" value="${form.email ?? ''}">
    <label for="password">Password</label>
    <input id="password" name="password" type="password" autocomplete="current-password" required maxlength="1000">
    <button type="submit" class="primary">Sign in</button>
  </form>
  <p class="muted">No password yet? Ask an admin of your company for an invite link.</p>
</section>`,
  )
}

export function invitePage(
  chrome: PageFrame,
  form: { csrf: string; action: string; name: string; email: string; companyName: string; error?: string },
): Html {
  return layout(
    chrome,
    'Choose your password',
    html`<section class="card narrow">
  <h1>Choose your password</h1>
  <p>For <strong>${form.name}</strong> (${form.email}) at ${form.companyName}.</p>
  ${alert(form.error)}
  <form method="post" action="${form.action}" class="stack">
    ${csrfInput(form.csrf)}
    <input type="hidden" name="email" value="${form.email}" autocomplete="username">
    <label for="password">New password</label>
    <input id="password" name="password" type="password" autocomplete="new-password" required minlength="10" maxlength="1000" aria-describedby="password-hint">
    <p id="password-hint" class="hint">At least 10 characters. A few unrelated words make a strong one.</p>
    <label for="confirm">Repeat the password</label>
    <input id="confirm" name="confirm" type="password" autocomplete="new-password" required minlength="10" maxlength="1000">
    <button type="submit" class="primary">Set password and sign in</button>
  </form>
</section>`,
  )
}
