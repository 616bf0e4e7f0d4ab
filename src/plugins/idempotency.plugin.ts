// Idempotency-Key on every POST and PUT under /api/v1 (issue 13; docs/integrators.md,
// "Retrying safely"). After auth and the rate limit, a request with the header claims
// (company, token, key) in one statement: the first runs, and its answer is stored when it
// is final; a retry with the same parameters gets that answer again without running
// (Idempotent-Replayed: true); other parameters are 422; a retry while the first still runs
// is 409 with Retry-After: 1. Keys last 24 h from the first request. Requests without the
// header run exactly as before: the hooks are only on POST and PUT routes, and do nothing
// but read the header (or find no claim), and their routes hand services the pool.
//
// Exactly once across a crash (issue 38; docs/reliability.md, "Idempotency-Key across a
// crash"): the claimed request runs in one transaction held from its claim to its answer,
// whose client is `request.db`, the database the route hands its services (their own
// transactions become savepoints of it). The answer is written into the key row, if the
// claim is still this request's, before the COMMIT, which comes before the answer leaves:
// after a crash the key holds either the answer of committed writes or a claim that wrote
// nothing.
import { createHash, type Hash } from 'node:crypto'
import type { FastifyReply, FastifyRequest, onResponseHookHandler, onSendHookHandler, preValidationHookHandler, RouteOptions } from 'fastify'
import fp from 'fastify-plugin'
import { holdTransaction, type Db, type HeldTransaction } from '../db/db.js'
import { defineQuery, run, runOne } from '../db/query.js'
import { CODES, invalid, MESSAGES, type ErrorCode, type ErrorDetails } from '../errors.js'
import { decrypt, encrypt } from '../secret-key.js'
import type { CompanyId } from '../tenancy.js'

export const KEY_HEADER = 'idempotency-key'
export const REPLAYED_HEADER = 'idempotent-replayed'
/** How long a key is kept, from its first request. */
export const KEY_TTL_MS = 24 * 60 * 60 * 1000
/** How often each instance deletes expired keys. */
export const PRUNE_INTERVAL_MS = 10 * 60 * 1000
const PRUNE_BATCH = 1_000
const PRUNE_MAX_BATCHES = 100

/** 1 to 255 printable ASCII characters (space included). */
const VALID_KEY = /^[\x20-\x7e]{1,255}$/
export const INVALID_KEY = 'must be 1 to 255 printable characters'
export const REUSED_KEY = 'was already used with different parameters'
export const KEY_IN_USE = 'A request with this Idempotency-Key is still running: retry after Retry-After seconds'
/** The answer's headers that are stored and replayed with it. */
const STORED_HEADERS = ['content-type', 'location'] as const

interface Claim {
  companyId: CompanyId
  tokenId: number
  key: string
  /** Tells this claim from a later one that took over the same key. */
  createdAt: Date
  /** The request's transaction: its writes and its stored answer commit together. */
  held: HeldTransaction
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The Idempotency-Key this request claimed and will answer for; null otherwise. */
    idempotencyClaim: Claim | null
    /**
     * The database a route hands its services: the pool, or the transaction of a request
     * with an Idempotency-Key (its writes commit with the stored answer).
     */
    readonly db: Db
  }
}

interface KeyRow {
  claimed: boolean
  fingerprint: string | null
  status_code: number | null
  response_headers: Record<string, string> | null
  response_body: string | null
}

// $1 company, $2 token, $3 key, $4 fingerprint, $5 now, $6 expired before (now - 24 h),
// $7 abandoned before (now - request timeout). One round trip: claims the key (new, expired,
// or left running by a process that died), else answers the row already there. The primary
// key serves both parts (docs/performance.md, "Figures from the statements"). A row that
// a concurrent request inserted after this statement's snapshot answers nothing: the caller
// reads it with idempotency.find.
const claimStatement = defineQuery<KeyRow>(
  'idempotency.claim',
  `with claimed as (
     insert into idempotency_keys as k (company_id, token_id, key, fingerprint, created_at)
     values ($1, $2, $3, $4, $5)
     on conflict (company_id, token_id, key) do update
        set fingerprint = excluded.fingerprint, created_at = excluded.created_at, status_code = null,
            response_headers = null, response_body = null, completed_at = null
      where k.created_at <= $6 or (k.status_code is null and k.created_at <= $7)
     returning 1
   )
   select true as claimed, null::text as fingerprint, null::int as status_code,
          null::json as response_headers, null::text as response_body
     from claimed
   union all
   select false, fingerprint, status_code, response_headers, response_body
     from idempotency_keys
    where company_id = $1 and token_id = $2 and key = $3 and not exists (select from claimed)`,
)

const findStatement = defineQuery<KeyRow>(
  'idempotency.find',
  `select false as claimed, fingerprint, status_code, response_headers, response_body
     from idempotency_keys
    where company_id = $1 and token_id = $2 and key = $3`,
)

// Only this request's claim ($4: its created_at), still running. In the request's
// transaction: the row stays locked until its COMMIT, so a takeover that comes meanwhile
// waits and then finds the answer; a takeover that came first leaves no row to update, and
// the request's writes are rolled back.
const completeStatement = defineQuery<{ stored: boolean }>(
  'idempotency.complete',
  `update idempotency_keys
      set status_code = $5, response_headers = $6, response_body = $7, completed_at = $8
    where company_id = $1 and token_id = $2 and key = $3 and created_at = $4 and status_code is null
   returning true as stored`,
)

const releaseStatement = defineQuery(
  'idempotency.release',
  `delete from idempotency_keys
    where company_id = $1 and token_id = $2 and key = $3 and created_at = $4 and status_code is null`,
)

// A bounded batch, oldest first, through idempotency_keys_created_idx, deleted by primary
// key (docs/performance.md, "Figures from the statements"); rows another instance is
// deleting (or a request is taking over) are skipped.
const pruneStatement = defineQuery<{ deleted: number }>(
  'idempotency.prune',
  `with gone as (
     delete from idempotency_keys k
      using (select company_id, token_id, key from idempotency_keys
              where created_at < $1 order by created_at limit $2 for update skip locked) old
      where k.company_id = old.company_id and k.token_id = old.token_id and k.key = old.key
     returning 1
   )
   select count(*)::int as deleted from gone`,
)

/** Deletes the keys created before `now` - 24 h, in bounded batches; answers how many. */
export async function pruneIdempotencyKeys(db: Db, now: Date): Promise<number> {
  const before = new Date(now.getTime() - KEY_TTL_MS)
  let total = 0
  for (let batch = 0; batch < PRUNE_MAX_BATCHES; batch++) {
    const deleted = (await runOne(db, pruneStatement, [before, PRUNE_BATCH]))?.deleted ?? 0
    total += deleted
    if (deleted < PRUNE_BATCH) break
  }
  return total
}

/**
 * Whether an answer is stored for replay: what the operation decided (2xx, and 4xx such as
 * 404 or 422, which a retry would get again). Not 5xx (503 included) nor 429 or 409, which
 * say "try again": the key is released and a retry runs.
 */
export function storesAnswer(status: number): boolean {
  return status < 500 && status !== 409 && status !== 429 && status !== 408
}

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

/**
 * Feeds `root` to the hash as JSON with object keys sorted, so that the same parameters in
 * another order (or from a form instead of the same strings in JSON) hash the same. An
 * explicit stack, not recursion: a body may nest deeper than the call stack allows.
 */
function hashCanonical(hash: Hash, root: unknown): void {
  const stack: { entries: [string | undefined, unknown][]; next: number; close: string }[] = []
  let value = root
  for (;;) {
    if (Array.isArray(value)) {
      hash.update('[')
      stack.push({ entries: value.map((item: unknown) => [undefined, item]), next: 0, close: ']' })
    } else if (isPlainObject(value)) {
      hash.update('{')
      const object = value
      stack.push({ entries: Object.keys(object).sort().map((key) => [key, object[key]]), next: 0, close: '}' })
    } else {
      hash.update(value === undefined ? 'null' : JSON.stringify(value))
    }
    let frame = stack.at(-1)
    while (frame && frame.next === frame.entries.length) {
      hash.update(frame.close)
      stack.pop()
      frame = stack.at(-1)
    }
    if (!frame) return
    const [key, item] = frame.entries[frame.next] as [string | undefined, unknown]
    if (frame.next > 0) hash.update(',')
    frame.next++
    if (key !== undefined) hash.update(`${JSON.stringify(key)}:`)
    value = item
  }
}

/** sha256 of the method, the path (with its ids) and the request's merged parameters. */
export function fingerprint(method: string, url: string, params: unknown): string {
  const query = url.indexOf('?')
  const hash = createHash('sha256').update(`${method} ${query === -1 ? url : url.slice(0, query)}\n`)
  hashCanonical(hash, params)
  return hash.digest('hex')
}

/** The contract's error body for the two answers that are this plugin's own (409, 422 reused). */
function sendOwnError(
  request: FastifyRequest,
  reply: FastifyReply,
  status: 409 | 422,
  message: string,
  code: Extract<ErrorCode, `idempotency_key_${string}`>,
  problems?: { details: ErrorDetails; detail_codes: ErrorDetails },
) {
  return reply
    .code(status)
    .type('application/json; charset=utf-8')
    .send({
      error: {
        status,
        message,
        code,
        ...problems,
        request_id: request.id,
      },
    })
}

/** A stored error body names the request that ran; the replay's names this one (contract: equal to X-Request-Id). */
function replayedBody(status: number, body: string, requestId: string): string {
  if (status < 400) return body
  try {
    const parsed = JSON.parse(body) as { error?: { request_id?: string } }
    if (!parsed.error) return body
    parsed.error.request_id = requestId
    return JSON.stringify(parsed)
  } catch {
    return body
  }
}

const toArray = <T>(hooks: T | T[] | undefined): T[] => (hooks === undefined ? [] : Array.isArray(hooks) ? hooks : [hooks])

export default fp(
  async (app) => {
    app.decorateRequest('idempotencyClaim', null)
    app.decorateRequest('db', {
      getter(this: FastifyRequest): Db {
        return this.idempotencyClaim?.held.db ?? app.db
      },
    })
    // A claim still running after the longest a request may take to arrive was left by a
    // process that died (or lost its database) before answering: taken over.
    const abandonMs = app.server.requestTimeout || 30_000
    // Stored answers are encrypted: one may hold a webhook's signing secret (create,
    // rotate_secret), others personal data, and a database dump alone must not reveal them.
    const answerKey = app.keys.derive('idempotency')

    /** The transaction of a claimed request; a failure to open it releases the claim. */
    async function holdClaim(id: unknown[], createdAt: Date): Promise<HeldTransaction> {
      try {
        return await holdTransaction(app.db)
      } catch (err) {
        await run(app.db, releaseStatement, [...id, createdAt]).catch(() => undefined)
        throw err
      }
    }

    /** Claims the key, or answers for it (replay, 409, 422); true when it answered. */
    async function claimOrAnswer(request: FastifyRequest, reply: FastifyReply, key: string): Promise<boolean> {
      if (!VALID_KEY.test(key)) throw invalid({ 'Idempotency-Key': [INVALID_KEY] })
      const { companyId, tokenId } = request.caller
      const now = app.clock()
      const print = fingerprint(request.method, request.url, request.body)
      const id = [companyId, tokenId, key]
      const claim = await runOne(app.db, claimStatement, [
        ...id,
        print,
        now,
        new Date(now.getTime() - KEY_TTL_MS),
        new Date(now.getTime() - abandonMs),
      ])
      if (claim?.claimed) {
        request.idempotencyClaim = { companyId, tokenId, key, createdAt: now, held: await holdClaim(id, now) }
        return false
      }
      const row = claim ?? (await runOne(app.db, findStatement, id))
      if (row && row.fingerprint !== print) {
        void sendOwnError(request, reply, 422, MESSAGES[422], 'idempotency_key_reused', {
          details: { 'Idempotency-Key': [REUSED_KEY] },
          detail_codes: { 'Idempotency-Key': ['reused'] },
        })
      } else if (row?.status_code == null) {
        // Running (or released between the two reads): the retry decides.
        reply.header('retry-after', '1')
        void sendOwnError(request, reply, 409, KEY_IN_USE, 'idempotency_key_in_use')
      } else {
        reply.code(row.status_code)
        for (const [name, value] of Object.entries(row.response_headers ?? {})) reply.header(name, value)
        reply.header(REPLAYED_HEADER, 'true')
        void reply.send(row.response_body === null ? undefined : replayedBody(row.status_code, decrypt(answerKey, row.response_body), request.id))
      }
      return true
    }

    /** Stores the final answer of a claimed key on `db`, or releases the key; false when the claim is no longer this request's. */
    async function store(db: Db, reply: FastifyReply, claim: Claim, payload: unknown): Promise<boolean> {
      const id = [claim.companyId, claim.tokenId, claim.key, claim.createdAt]
      const body = typeof payload === 'string' ? payload : payload == null ? null : Buffer.isBuffer(payload) ? payload.toString('utf8') : undefined
      if (storesAnswer(reply.statusCode) && body !== undefined) {
        const headers: Record<string, string> = {}
        for (const name of STORED_HEADERS) {
          const value = reply.getHeader(name)
          if (value !== undefined) headers[name] = String(value)
        }
        const stored = await runOne(db, completeStatement, [...id, reply.statusCode, JSON.stringify(headers), body === null ? null : encrypt(answerKey, body), app.clock()])
        return stored !== undefined
      }
      await run(db, releaseStatement, id)
      return true
    }

    /**
     * A success commits with its stored answer, before it leaves: when the COMMIT fails it
     * answers 503 instead (never a 2xx for writes that may not be there). Any other answer
     * rolls its writes back, then is stored (or the key released) on its own.
     */
    async function finish(request: FastifyRequest, reply: FastifyReply, claim: Claim, payload: unknown): Promise<unknown> {
      const { held } = claim
      if (reply.statusCode >= 400) {
        // A client that a failed statement destroyed (src/db/client.ts) rolled back with its connection.
        await held.rollback().catch(() => undefined)
        try {
          await store(app.db, reply, claim, payload)
        } catch (err) {
          // The answer still goes out; the claim is taken over once abandoned.
          request.log.warn({ err }, 'could not store the answer of an Idempotency-Key')
        }
        return payload
      }
      try {
        if (!(await store(held.db, reply, claim, payload))) throw new Error('the Idempotency-Key was taken over')
        await held.commit()
      } catch (err) {
        await held.rollback().catch(() => undefined)
        request.log.error({ err }, 'could not commit a request with an Idempotency-Key')
        return unavailable(request, reply)
      }
      // Test-only (docs/reliability.md): the instance dies between its commit and its answer.
      if (app.config.testFaultAfterCommit) process.kill(process.pid, 'SIGKILL')
      // Read-your-writes (src/plugins/replica.plugin.ts): the position after this COMMIT.
      await app.database.noteWrite?.(claim.tokenId).catch((err: unknown) => {
        request.log.warn({ err }, 'could not note the write for read-your-writes')
      })
      return payload
    }

    /** The contract's 503 in place of the answer about to be sent. */
    function unavailable(request: FastifyRequest, reply: FastifyReply): string {
      reply.removeHeader('location')
      reply.removeHeader('content-length')
      reply.code(503).header('retry-after', '5').type('application/json; charset=utf-8')
      return JSON.stringify({ error: { status: 503, message: MESSAGES[503], code: CODES[503], request_id: request.id } })
    }

    // Callback hooks: without the header, a request costs a header lookup, not a promise.
    const claimKey: preValidationHookHandler = (request, reply, done) => {
      const key = request.headers[KEY_HEADER]
      if (key === undefined) {
        done()
        return
      }
      claimOrAnswer(request, reply, String(key)).then(
        (answered) => {
          if (!answered) done()
        },
        done,
      )
    }

    const storeAnswer: onSendHookHandler = (request, reply, payload, done) => {
      const claim = request.idempotencyClaim
      if (claim === null) {
        done(null, payload)
        return
      }
      request.idempotencyClaim = null
      void finish(request, reply, claim, payload).then((sent) => {
        done(null, sent)
      })
    }

    // A request whose answer never went through onSend gives its transaction back all the same.
    const endHeld: onResponseHookHandler = (request, _reply, done) => {
      const claim = request.idempotencyClaim
      if (claim === null) {
        done()
        return
      }
      request.idempotencyClaim = null
      void claim.held.rollback().then(
        () => run(app.db, releaseStatement, [claim.companyId, claim.tokenId, claim.key, claim.createdAt]),
      ).catch((err: unknown) => {
        request.log.warn({ err }, 'could not release an Idempotency-Key')
      }).finally(done)
    }

    app.addHook('onRoute', (route: RouteOptions) => {
      const methods = toArray(route.method)
      if (!methods.includes('POST') && !methods.includes('PUT')) return
      route.preValidation = [...toArray(route.preValidation), claimKey]
      route.onSend = [...toArray(route.onSend), storeAnswer]
      route.onResponse = [...toArray(route.onResponse), endHeld]
    })

    // Expired keys already count as absent when claimed; this only frees their rows. Each
    // instance runs it; batches skip rows another one holds.
    let timer: NodeJS.Timeout | undefined
    let pruning: Promise<unknown> = Promise.resolve()
    app.addHook('onReady', async () => {
      timer = setInterval(() => {
        pruning = pruneIdempotencyKeys(app.db, app.clock()).catch((err: unknown) => {
          app.log.warn({ err }, 'could not prune expired Idempotency-Keys')
        })
      }, PRUNE_INTERVAL_MS).unref()
    })
    app.addHook('onClose', async () => {
      clearInterval(timer)
      await pruning
    })
  },
  { name: 'idempotency', dependencies: ['db', 'auth'] },
)
