// Who may call each /api operation (docs/access-control.md): the route's `config.scope`
// (a scope of src/scopes.ts, or 'none' for what every token may call) and
// `config.role` ('admin' where only admins may). A route without a known scope stops the
// app at start. Per request, right after auth and before anything else of the request
// (idempotency, validation, the handler): the token's scopes and the user's role are
// checked against the route, from the caller the token lookup resolved (no query).
import type { FastifyReply, FastifyRequest, RouteOptions } from 'fastify'
import fp from 'fastify-plugin'
import { forbiddenRole, insufficientScope } from '../errors.js'
import { acceptedScopes, isScope, NO_SCOPE, type RouteScope } from '../scopes.js'

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The scope the operation needs; 'none': every token may call it (authorize_api). */
    scope?: RouteScope
    /** 'admin': only a token of an admin may call it (403 forbidden_role otherwise). */
    role?: 'admin'
    /** X-Accepted-Scopes of the route, computed once when it is registered (set by this plugin). */
    acceptedScopes?: string
  }
  interface FastifyInstance {
    /** Every /api operation with its scope and role, in the order they were registered. */
    accessTable: AccessRule[]
  }
}

export interface AccessRule {
  method: string
  url: string
  operationId: string
  scope: RouteScope
  role: 'admin' | undefined
}

/** Throws when a route under /api does not say which scope it needs. */
export function accessRuleOf(route: RouteOptions): AccessRule {
  const config = (route.config ?? {}) as { scope?: unknown; role?: unknown }
  const method = ([] as string[]).concat(route.method).join(',')
  const operationId = route.schema?.operationId ?? ''
  const scope = config.scope
  if (typeof scope !== 'string' || (scope !== NO_SCOPE && !isScope(scope))) {
    throw new Error(
      `${method} ${route.url}: every /api route declares its scope (config: { scope: 'contacts:read' }, or 'none'), ` +
        `one of src/scopes.ts; got ${JSON.stringify(scope)}`,
    )
  }
  if (config.role !== undefined && config.role !== 'admin') throw new Error(`${method} ${route.url}: config.role must be 'admin' or absent`)
  return { method, url: route.url, operationId, scope, role: config.role }
}

export interface AccessOptions {
  /** Filled with every /api operation as it is registered (the app's accessTable). */
  table: AccessRule[]
}

export default fp<AccessOptions>(
  (app, { table }, done) => {
    app.addHook('onRoute', (route) => {
      // HEAD routes Fastify adds for GET share the GET's config (not listed twice).
      if (route.method === 'HEAD') {
        const scope = route.config?.scope
        if (scope !== undefined) route.config = { ...route.config, acceptedScopes: acceptedScopes(scope).join(', ') }
        return
      }
      const rule = accessRuleOf(route)
      table.push(rule)
      // The header's value is the route's own: built here once, not on every request.
      route.config = { ...route.config, acceptedScopes: acceptedScopes(rule.scope).join(', ') }
    })

    app.addHook('preValidation', async (request: FastifyRequest, reply: FastifyReply) => {
      const { scope, role, acceptedScopes: accepted } = request.routeOptions.config
      if (scope === undefined) return // no route (404): nothing to check
      reply.header('x-accepted-scopes', accepted ?? '')
      const grants = request.caller.access.grants
      if (scope !== NO_SCOPE && grants !== null && !grants.has(scope)) throw insufficientScope(scope)
      if (role === 'admin' && request.caller.role !== 'admin') throw forbiddenRole()
    })
    done()
  },
  { name: 'access', dependencies: ['auth'] },
)
