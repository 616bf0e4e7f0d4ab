// What a plugin beside the token API (the web application, the OAuth endpoints) sets up in its
// own encapsulated scope: its routes kept out of the OpenAPI document, and a rate limiter of its own.
import type { FastifyInstance } from 'fastify'
import type { Config } from '../config.js'
import { createRateLimiter, type RateLimiter } from '../rate-limit/limiter.js'

/** The scope's routes are not operations of the API: hidden from the OpenAPI document. */
export function hideFromOpenApi(app: FastifyInstance): void {
  app.addHook('onRoute', (route) => {
    route.schema = { ...route.schema, hide: true }
  })
}

/** A limiter for the scope alone, its keys under `<the configured prefix><name>:`, closed with the app. */
export async function scopeRateLimiter(
  app: FastifyInstance,
  config: Pick<Config, 'redisUrl' | 'rateLimit'>,
  limits: { max: number; windowMs: number },
  name: string,
): Promise<RateLimiter> {
  const limiter = await createRateLimiter({ ...limits, redisUrl: config.redisUrl, keyPrefix: `${config.rateLimit.keyPrefix}${name}:`, logger: app.log })
  app.addHook('onClose', () => limiter.close())
  return limiter
}
