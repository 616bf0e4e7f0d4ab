// Sign in, sign out and invite links: the pages before a session, through the auth module's
// services. Their forms carry a double-submit token (no session yet to derive one from).
// Signing in lands on Tasks, or back on the authorization request that asked to sign in.
import { CONTROL, formOf, length, text, type FormBody } from '../frame/form.js'
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify'
import type { RateLimiter } from '../../rate-limit/limiter.js'
import { originOf, webContext } from '../../acting.js'
import {
  acceptInvite,
  findAccount,
  findInvite,
  signIn,
  signInRateLimited,
  signOut,
  PASSWORD_MAX_LENGTH,
  type RefusalRecords,
} from '../../modules/auth/index.js'
import { errorPage, sendHtml } from '../frame/frame.js'
import { forbiddenForm, formRoute, pageRoute, signedIn, type PageGroupOptions } from '../frame/guard.js'
import { isAuthorizeReturn } from '../oauth/oauth.page-routes.js'
import { CSRF_FIELD } from '../shared/security.js'
import { invitePage, loginPage } from './sign-in.pages.js'

/** Where a user lands after signing in. */
export const LANDING = '/tasks'
const EMAIL_MAX_LENGTH = 255
const INVALID_CREDENTIALS = 'Invalid email or password.'


export interface SignInOptions extends PageGroupOptions {
  signInLimiter: RateLimiter
}

const signInPages: FastifyPluginAsync<SignInOptions> = async (app, { cookies, chrome, now, signInLimiter }) => {
  const signedInNow = async (request: FastifyRequest) => {
    const secret = cookies.sessionSecret(request)
    return secret !== undefined && (await findAccount(app.db, secret, now())) !== undefined
  }

  /** Signing in (or accepting an invite) always starts a new session: the old one, if any, ends. */
  async function startSession(request: FastifyRequest, reply: FastifyReply, secret: string, next?: string) {
    const previous = cookies.sessionSecret(request)
    if (previous) await signOut(app.db, previous)
    cookies.setSession(reply, secret)
    return reply.code(303).redirect(next ?? LANDING, 303)
  }

  app.get('/', pageRoute('public'), async (request, reply) => reply.redirect((await signedInNow(request)) ? LANDING : '/login', 303))

  app.get('/login', pageRoute('public'), async (request, reply) => {
    const asked = (request.query as FormBody).next
    const next = isAuthorizeReturn(asked) ? asked : undefined
    if (await signedInNow(request)) return reply.redirect(next ?? LANDING, 303)
    const csrf = cookies.formToken(request, reply)
    return sendHtml(reply, 200, loginPage(chrome, { csrf, next }))
  })

  // Refused sign-ins' audit records still being written after their answer, which closing waits
  // for because this plugin's onClose runs before the database's.
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

  app.post('/login', formRoute('public'), async (request, reply) => {
    const form = formOf(request)
    const csrf = cookies.formToken(request, reply)
    if (!cookies.formTokenMatches(request, form[CSRF_FIELD])) return forbiddenForm(reply, chrome)
    const email = text(form, 'email')?.trim() ?? ''
    const password = text(form, 'password') ?? ''
    const next = isAuthorizeReturn(form.next) ? form.next : undefined
    const again = (status: number, error: string) =>
      sendHtml(reply, status, loginPage(chrome, { csrf, email: email.slice(0, EMAIL_MAX_LENGTH), error, next }))
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

  app.post('/logout', formRoute('member'), async (request, reply) => {
    const { account, secret } = signedIn(request)
    await signOut(app.db, secret, webContext(request, account))
    cookies.clearSession(reply)
    return reply.redirect('/login', 303)
  })

  const inviteGone = (reply: FastifyReply) =>
    sendHtml(
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

  app.get('/invite/:token', pageRoute('public'), async (request, reply) => {
    const token = inviteToken(request)
    const invite = token && (await findInvite(app.db, token, now()))
    if (!token || !invite) return inviteGone(reply)
    const csrf = cookies.formToken(request, reply)
    return sendHtml(reply, 200, invitePage(chrome, { csrf, action: `/invite/${token}`, ...invite }))
  })

  app.post('/invite/:token', formRoute('public'), async (request, reply) => {
    const form = formOf(request)
    const csrf = cookies.formToken(request, reply)
    if (!cookies.formTokenMatches(request, form[CSRF_FIELD])) return forbiddenForm(reply, chrome)
    const token = inviteToken(request)
    const invite = token && (await findInvite(app.db, token, now()))
    if (!token || !invite) return inviteGone(reply)
    const password = text(form, 'password') ?? ''
    const again = (error: string) => sendHtml(reply, 422, invitePage(chrome, { csrf, action: `/invite/${token}`, ...invite, error }))
    if (password !== (text(form, 'confirm') ?? '')) return again('The two passwords differ: type the same password twice.')
    const result = await acceptInvite(app.db, token, password, now(), originOf(request))
    if (!result.ok) return result.reason === 'gone' ? inviteGone(reply) : again(result.problem)
    return startSession(request, reply, result.session)
  })
}

export default signInPages
