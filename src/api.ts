// The token-authenticated, rate-limited API under /api: the auth plugin's hooks apply to
// these routes only (health and docs stay open).
import type { FastifyPluginAsync } from 'fastify'
import { resourceRoutes } from './modules/index.js'
import auth from './plugins/auth.js'
import type { RateLimiter } from './rate-limit/limiter.js'

const ERROR_REF = { $ref: 'Error#' }

const api: FastifyPluginAsync<{ limiter: RateLimiter }> = async (app, { limiter }) => {
  // Every operation can answer with the contract's error body; declared once, here, so
  // the OpenAPI document shows it and Fastify serializes it fast.
  app.addHook('onRoute', (route) => {
    route.schema = {
      ...route.schema,
      response: { ...(route.schema?.response as object | undefined), '4xx': ERROR_REF, '5xx': ERROR_REF },
    }
  })
  await app.register(auth, { limiter })
  for (const routes of resourceRoutes) await app.register(routes)
}

export default api
