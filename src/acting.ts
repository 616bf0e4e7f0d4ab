// Who acts, from where and when: the context every change is made in, below the modules so
// that a module needs none of the others for it. Routes and commands build it once (the
// request's address, user agent and id; the command line's system user) and hand it to the
// service; the audit record it ends up in is written by modules/audit/audit.service.ts.
import { userInfo } from 'node:os'
import type { FastifyRequest } from 'fastify'

export const ACTOR_TYPES = ['user', 'api_token', 'oauth_app', 'cli', 'system'] as const
export type ActorType = (typeof ACTOR_TYPES)[number]

export interface Actor {
  type: ActorType
  id: number | null
  /** A name or label as it was when the action happened; an api token's is filled in by the insert when null. */
  label: string | null
  /** An OAuth app's: the user whose grant it acts with (their name is filled in by the insert). */
  onBehalfOf?: number
}

export interface AuditContext {
  actor: Actor
  ip: string | null
  userAgent: string | null
  requestId: string | null
}

export const USER_AGENT_MAX = 512

/** The service itself (demo data, background jobs, tests that call services directly). */
export const SYSTEM_CONTEXT: AuditContext = {
  actor: { type: 'system', id: null, label: 'engage' },
  ip: null,
  userAgent: null,
  requestId: null,
}

/** The address, user agent (cut to 512 characters) and id of a request, for `actor`. */
export function requestContext(request: FastifyRequest, actor: Actor): AuditContext {
  const agent = request.headers['user-agent']
  return {
    actor,
    ip: request.ip,
    userAgent: agent === undefined || agent === '' ? null : Array.from(agent).slice(0, USER_AGENT_MAX).join(''),
    requestId: request.id,
  }
}

/**
 * An /api request: its token acts (labelled from the token and its user by the insert), or
 * for an OAuth access token the app the user authorised, on behalf of that user.
 */
export function apiContext(request: FastifyRequest): AuditContext {
  const app = request.caller.access.app
  if (app) return requestContext(request, { type: 'oauth_app', id: app.id, label: app.name, onBehalfOf: request.caller.userId })
  return requestContext(request, { type: 'api_token', id: request.caller.tokenId, label: null })
}

/** An OAuth app's context acting with the grant of `userId` (at /oauth/token and /oauth/revoke). */
export function forGrantOf(context: AuditContext, userId: number): AuditContext {
  return { ...context, actor: { ...context.actor, onBehalfOf: userId } }
}

/** The admin command line: actor `cli`, labelled with the system user who ran it. */
export function cliContext(): AuditContext {
  let name: string
  try {
    name = userInfo().username
  } catch {
    name = process.env.USER ?? 'unknown'
  }
  return { actor: { type: 'cli', id: null, label: name }, ip: null, userAgent: null, requestId: null }
}

/**
 * Who acts in one call to a service, and when: the clock's reading and the audit context,
 * built once per API request (`apiActing`), web request (`webActing`), command (`cliActing`,
 * the command context) or background job (`systemActing`). A service reads the time from it
 * and records what it changed under its actor, wherever it is called from; a service scoped
 * to a company takes the company with it (`Pick<Caller, 'companyId'> & Acting`).
 */
export interface Acting {
  readonly now: Date
  readonly audit: AuditContext
}

/** An /api request: its caller, the app's clock read now, and `apiContext`. */
export function apiActing(request: FastifyRequest): FastifyRequest['caller'] & Acting {
  return { ...request.caller, audit: apiContext(request) }
}

/** A signed-in user of the web application: the account, the time given and `webContext`. */
export function webActing<A extends { userId: number; name: string }>(request: FastifyRequest, account: A, now: Date): A & Acting {
  return { ...account, now, audit: webContext(request, account) }
}

/** The admin command line (its command context is one, built by cli/run.ts). */
export function cliActing(now = new Date()): Acting {
  return { now, audit: cliContext() }
}

/** The service itself (demo data, background jobs, tests that call services directly). */
export function systemActing(now = new Date()): Acting {
  return { now, audit: SYSTEM_CONTEXT }
}

/** Where a request comes from, before its actor is known (signing in). */
export type Origin = Omit<AuditContext, 'actor'>

export const NO_ORIGIN: Origin = { ip: null, userAgent: null, requestId: null }

export function originOf(request: FastifyRequest): Origin {
  const { actor: _, ...origin } = requestContext(request, SYSTEM_CONTEXT.actor)
  return origin
}

/** A signed-in user of the web application acting. */
export function webContext(request: FastifyRequest, account: { userId: number; name: string }): AuditContext {
  return requestContext(request, { type: 'user', id: account.userId, label: account.name })
}
