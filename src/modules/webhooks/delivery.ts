// One delivery attempt: the payload, the Standard Webhooks headers, the POST itself with
// its limits, and when to try again. No database here (the worker records outcomes).
import { readFileSync } from 'node:fs'
import http, { type IncomingMessage } from 'node:http'
import https from 'node:https'
import { safeLookup, urlProblem } from './destination.js'
import { signatureHeader } from './secrets.js'

const version = (JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version: string }).version
export const USER_AGENT = `engage-webhooks/${version}`

/** The longest a post may take, connection to last byte read. */
export const DELIVERY_TIMEOUT_MS = 10_000
/** Of a response body, at most this much is read; then the connection is closed. */
export const RESPONSE_BODY_LIMIT = 4096
/** Of that, the start kept in last_error. */
const EXCERPT_LENGTH = 200

export interface EventForPayload {
  event_id: number
  type: string
  event_created_at: Date
  sequence: number
  /** The stored json text, put in the body verbatim (never parsed again). */
  data: string
}

/** The body: `{"id","type","created_at","sequence","data"}`. */
export function payload(event: EventForPayload): string {
  return `{"id":${String(event.event_id)},"type":${JSON.stringify(event.type)},"created_at":${JSON.stringify(event.event_created_at.toISOString())},"sequence":${String(event.sequence)},"data":${event.data}}`
}

/** The same for every attempt and every subscription of an event, so receivers can drop repeats. */
export const webhookId = (eventId: number) => `evt_${String(eventId)}`

export function deliveryHeaders(id: string, body: string, secrets: string[], timestampSeconds: number): Record<string, string> {
  return {
    'content-type': 'application/json',
    'user-agent': USER_AGENT,
    'webhook-id': id,
    'webhook-timestamp': String(timestampSeconds),
    'webhook-signature': signatureHeader(secrets, id, timestampSeconds, body),
  }
}

export interface PostResult {
  delivered: boolean
  /** The response's status, or null without a response. */
  status: number | null
  /** Why it failed (null when delivered). */
  error: string | null
}

export interface PostOptions {
  allowPrivate: boolean
  timeoutMs: number
  /** Keep-alive agents, one per scheme (the worker's). */
  agents: { http: http.Agent; https: https.Agent }
  /** Cuts the post (the worker is stopping). */
  signal?: AbortSignal
}

const excerpt = (body: Buffer) => {
  const text = body.toString('utf8').replace(/\s+/g, ' ').trim()
  return text.length > EXCERPT_LENGTH ? `${text.slice(0, EXCERPT_LENGTH)}…` : text
}

function describeError(err: unknown): string {
  const e = err as NodeJS.ErrnoException
  if (e.code === 'EFORBIDDENDESTINATION') return `refused: ${e.message}`
  return e.code && !e.message.includes(e.code) ? `${e.code}: ${e.message}` : e.message
}

/**
 * POSTs `body` to `url`: the destination is checked again (syntax, and every address it
 * resolves to at connect time), redirects are not followed (a 3xx fails), the response body
 * is read up to RESPONSE_BODY_LIMIT, and the whole exchange is cut at timeoutMs.
 */
export function post(url: string, headers: Record<string, string>, body: string, options: PostOptions): Promise<PostResult> {
  const problem = urlProblem(url, options.allowPrivate)
  if (problem) return Promise.resolve({ delivered: false, status: null, error: `refused: the URL ${problem}` })
  const target = new URL(url)
  const secure = target.protocol === 'https:'
  return new Promise((resolve) => {
    let status: number | null = null
    let settled = false
    const finish = (result: PostResult) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      resolve(result)
    }
    const request = (secure ? https : http).request(target, {
      method: 'POST',
      headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
      agent: secure ? options.agents.https : options.agents.http,
      lookup: safeLookup(options.allowPrivate),
    })
    // Cut short: a 2xx status already received counts, whatever the body still does.
    const cut = (why: string) => {
      const accepted = status !== null && status >= 200 && status < 300
      finish({ delivered: accepted, status, error: accepted ? null : why })
      request.destroy()
    }
    const seconds = String(options.timeoutMs / 1000)
    const timer = setTimeout(() => {
      cut(status === null ? `timed out after ${seconds} s without a response` : `timed out after ${seconds} s reading the response`)
    }, options.timeoutMs)
    const onAbort = () => {
      cut('cut short: the service was stopping')
    }
    options.signal?.addEventListener('abort', onAbort, { once: true })
    request.on('close', () => {
      options.signal?.removeEventListener('abort', onAbort)
    })
    request.on('error', (err) => {
      finish({ delivered: false, status, error: describeError(err) })
    })
    request.on('response', (response: IncomingMessage) => {
      status = response.statusCode ?? 0
      const chunks: Buffer[] = []
      let size = 0
      const done = (cut: boolean) => {
        if (cut) response.destroy()
        const code = status ?? 0
        const text = excerpt(Buffer.concat(chunks).subarray(0, RESPONSE_BODY_LIMIT))
        if (code >= 200 && code < 300) finish({ delivered: true, status: code, error: null })
        else if (code >= 300 && code < 400) {
          const location = response.headers.location
          finish({ delivered: false, status: code, error: `HTTP ${String(code)}: redirect${location ? ` to ${location.slice(0, EXCERPT_LENGTH)}` : ''} not followed` })
        } else finish({ delivered: false, status: code, error: `HTTP ${String(code)}${text ? `: ${text}` : ''}` })
      }
      response.on('data', (chunk: Buffer) => {
        chunks.push(chunk)
        size += chunk.length
        if (size >= RESPONSE_BODY_LIMIT) done(true)
      })
      response.on('end', () => {
        done(false)
      })
      response.on('error', () => {
        done(true)
      })
    })
    request.end(body)
  })
}

// The retry schedule: the wait after attempt n (1-based) is SCHEDULE_MS[n - 1], then every
// 12 h, each ±10 % at random, and never past 3 days after the first attempt: the last
// attempt is made at that moment; a failure then is final.
const SECOND = 1000
const MINUTE = 60 * SECOND
const HOUR = 60 * MINUTE
export const SCHEDULE_MS = [5 * SECOND, 30 * SECOND, 2 * MINUTE, 10 * MINUTE, 30 * MINUTE, HOUR, 2 * HOUR, 4 * HOUR, 8 * HOUR]
export const LATER_DELAY_MS = 12 * HOUR
export const RETRY_WINDOW_MS = 3 * 24 * HOUR
export const JITTER = 0.1

export interface Schedule {
  delaysMs: number[]
  laterDelayMs: number
  windowMs: number
  /** 0..1; Math.random unless a test pins it. */
  random: () => number
}

export const defaultSchedule = (): Schedule => ({
  delaysMs: SCHEDULE_MS,
  laterDelayMs: LATER_DELAY_MS,
  windowMs: RETRY_WINDOW_MS,
  random: Math.random,
})

/** When to try again after failed attempt number `attempts`, or null to give up. */
export function nextAttempt(schedule: Schedule, attempts: number, firstAttemptAt: Date, now: Date): Date | null {
  const deadline = firstAttemptAt.getTime() + schedule.windowMs
  if (now.getTime() >= deadline) return null
  const delay = schedule.delaysMs[attempts - 1] ?? schedule.laterDelayMs
  const jittered = delay * (1 - JITTER + 2 * JITTER * schedule.random())
  return new Date(Math.min(now.getTime() + Math.round(jittered), deadline))
}
