// Contract sections 3 and 6, for the /api routes: resolve the api_token to a caller
// (through the in-process token cache; an expired token answers 401 token_expired), then spend one request of the caller's rate
// limit. Requests without a valid token spend from their client address's limit instead,
// so tokens cannot be guessed at speed. Every answer carries the X-RateLimit-* headers.
// A token's use is noted in memory for its "last used" and its client address (written once a
// minute, not per request); the first refusal of an expired token is recorded in the audit log.
import type { FastifyReply, FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import { ApiError, expiredToken, invalidToken, missingToken } from '../errors.js'
import { LastUsedTracker, TokenCache, findCaller, hashToken, recordExpiredRefusal } from '../modules/auth/index.js'
import { parseRevocation, REVOKE_CHANNEL } from '../revocations.js'
import { originOf, requestContext } from '../acting.js'
import type { RateLimitDecision, RateLimiter } from '../rate-limit/limiter.js'
import type { Caller, TokenHolder } from '../tenancy.js'

declare module 'fastify' {
  interface FastifyRequest {
    /** The authenticated caller; set on every /api route before validation. */
    caller: Caller
  }
}

function setRateHeaders(reply: FastifyReply, decision: RateLimitDecision) {
  reply.header('x-ratelimit-limit', decision.limit)
  reply.header('x-ratelimit-remaining', decision.remaining)
  reply.header('x-ratelimit-reset', decision.resetSeconds)
  if (!decision.allowed) reply.header('retry-after', Math.max(1, decision.resetSeconds))
}

export interface AuthOptions {
  limiter: RateLimiter
  cache?: TokenCache
  /** Where token uses are noted (tests flush it themselves); a new one flushing every minute otherwise. */
  lastUsed?: LastUsedTracker
}

export default fp<AuthOptions>(
  async (app, { limiter, cache = new TokenCache(), lastUsed: given }) => {
    app.decorateRequest('caller', null as unknown as Caller)
    const lastUsed =
      given ??
      new LastUsedTracker(app.db, (err) => {
        app.log.warn({ err }, 'could not record when api tokens were last used')
      })
    if (!given) lastUsed.start()
    app.addHook('onClose', async () => {
      await lastUsed.stop().catch((err: unknown) => {
        app.log.warn({ err }, 'could not record when api tokens were last used')
      })
    })
    // Another process (the admin command line, the web application) revoked a token or
    // deactivated a user: forget it now. After a lost LISTEN connection, forget everything,
    // since announcements may have been missed.
    const stopListening = await app.database.listen(
      REVOKE_CHANNEL,
      (payload) => {
        const revoked = parseRevocation(payload)
        if ('userId' in revoked) cache.deleteUser(revoked.userId)
        else if ('grantId' in revoked) cache.deleteGrant(revoked.grantId)
        else cache.delete(revoked.tokenHash)
      },
      () => {
        cache.clear()
      },
    )
    // Apps built on a database they do not own (tests, the drills) close before it does.
    app.addHook('onClose', stopListening)

    // Expired tokens whose first refusal this process has recorded (or found recorded): later
    // requests with them cost no query. Bounded: forgetting costs one no-op update.
    const refusalRecorded = new Set<number>()
    async function recordRefusal(caller: TokenHolder, request: FastifyRequest) {
      if (caller.access.kind !== 'personal' || refusalRecorded.has(caller.tokenId)) return
      try {
        await recordExpiredRefusal(app.db, { ...caller, now: app.clock(), audit: requestContext(request, { type: 'api_token', id: caller.tokenId, label: null }) })
        if (refusalRecorded.size >= 10_000) refusalRecorded.clear()
        refusalRecorded.add(caller.tokenId)
      } catch (err) {
        // The refusal stands; the record is tried again at the next request.
        request.log.warn({ err }, 'could not record the refusal of an expired api token')
      }
    }

    async function spend(key: string, reply: FastifyReply) {
      const decision = await limiter.consume(key)
      setRateHeaders(reply, decision)
      if (!decision.allowed) throw new ApiError(429)
    }

    app.addHook('preValidation', async (request, reply) => {
      const token = request.apiToken
      if (token === undefined) {
        await spend(`ip:${request.ip}`, reply)
        throw missingToken()
      }
      const tokenHash = hashToken(token)
      let caller = cache.get(tokenHash)
      if (!caller) {
        caller = token === '' ? undefined : await findCaller(app.db, tokenHash)
        if (caller) cache.set(tokenHash, caller)
      }
      if (!caller) {
        await spend(`ip:${request.ip}`, reply)
        throw invalidToken()
      }
      // The expiry travels with the cached caller: checked on every request, no query.
      const expiresAt = caller.access.expiresAt
      if (expiresAt !== null && expiresAt.getTime() <= app.clock().getTime()) {
        await spend(`ip:${request.ip}`, reply)
        await recordRefusal(caller, request)
        throw expiredToken()
      }
      request.caller = { ...caller, now: app.clock() }
      lastUsed.touch(caller.tokenId, caller.companyId, request.ip, () => originOf(request))
      // An OAuth grant's access tokens share one limit (a new one each hour must not reset it).
      const grantId = caller.access.grantId
      await spend(grantId === null ? `token:${String(caller.tokenId)}` : `grant:${String(grantId)}`, reply)
    })
  },
  { name: 'auth', dependencies: ['db', 'request-params'] },
)
