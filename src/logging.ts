// What the logs may hold: no api_token (it may come in the query string), no invite token (in
// the path of an invite link), no bound SQL parameters or row values (emails, names) from
// database errors. The logger's serializers do it, so every log line of the app goes through
// them. And one line per request: JSON, or readable lines on a terminal (terminalLogger).
import { LogController, type FastifyReply, type FastifyRequest, type FastifyServerOptions } from 'fastify'
import pretty from 'pino-pretty'

const REDACTED = '[redacted]'
const MAX_SQL = 200

function decodedKey(pair: string): string {
  const raw = pair.split('=', 1)[0] ?? ''
  try {
    return decodeURIComponent(raw.replace(/\+/g, ' '))
  } catch {
    return raw
  }
}

// Query parameters that carry a secret: the api token, and what an OAuth client might put in
// a URL by mistake (the OAuth endpoints refuse it, but the refused request is logged too).
const SECRET_PARAMETERS = new Set(['api_token', 'client_secret', 'code', 'code_verifier', 'refresh_token', 'access_token', 'token'])

// Paths that carry a secret: an invite link (`/invite/<token>`) lets whoever reads it choose
// the account's password for 7 days.
const SECRET_PATHS = /^(\/invite\/)[^/?#]+/

/**
 * The URL with the secret of a secret path (an invite link's token) and the value of every
 * secret query parameter (`api_token[x]` too) replaced.
 */
export function redactUrl(given: string): string {
  const url = given.replace(SECRET_PATHS, `$1${REDACTED}`)
  const q = url.indexOf('?')
  if (q === -1) return url
  const pairs = url.slice(q + 1).split('&').map((pair) => {
    const key = decodedKey(pair)
    const name = key.split('[', 1)[0]
    return name !== undefined && SECRET_PARAMETERS.has(name) && pair.includes('=') ? `${pair.slice(0, pair.indexOf('='))}=${REDACTED}` : pair
  })
  return `${url.slice(0, q)}?${pairs.join('&')}`
}

interface ErrorFields {
  name?: unknown
  message?: unknown
  stack?: unknown
  code?: unknown
  severity?: unknown
  constraint?: unknown
  table?: unknown
  column?: unknown
  schema?: unknown
  routine?: unknown
  query?: unknown
  params?: unknown
  cause?: unknown
}

const isObject = (value: unknown): value is ErrorFields => typeof value === 'object' && value !== null

function firstLine(sql: string): string {
  const line = sql.trim().split('\n', 1)[0] ?? ''
  return line.length > MAX_SQL ? `${line.slice(0, MAX_SQL)}…` : line
}

/**
 * An error's message without the data it may carry: Drizzle's "Failed query: <sql>
 * params: <values>" keeps the first line of the SQL (placeholders only); PostgreSQL's
 * messages that quote an input value (`invalid input syntax for type integer: "…"`) lose it.
 */
function safeMessage(err: ErrorFields): string {
  const message = typeof err.message === 'string' ? err.message : ''
  if (typeof err.query === 'string' && 'params' in err) return `Failed query: ${firstLine(err.query)}`
  if (typeof err.severity === 'string') return message.replace(/: ".*"$/s, `: ${REDACTED}`)
  return message
}

/**
 * The log form of an error: type, safe message, SQLSTATE code, constraint, table and column,
 * stack (its head rewritten with the safe message) and cause. Not the bound parameters, nor
 * PostgreSQL's `detail` (`Key (email)=(ana@…) already exists`), `where` or `internalQuery`.
 */
export function serializeError(value: unknown, depth = 0): Record<string, unknown> {
  if (!isObject(value)) return { message: String(value) }
  const err = value
  const constructorName = (value.constructor as { name?: unknown } | undefined)?.name
  const type = typeof constructorName === 'string' ? constructorName : err.name
  const message = safeMessage(err)
  const out: Record<string, unknown> = { type, message }
  for (const key of ['code', 'constraint', 'table', 'column', 'schema', 'routine'] as const) {
    if (typeof err[key] === 'string' || typeof err[key] === 'number') out[key] = err[key]
  }
  if (typeof err.stack === 'string') {
    const frames = err.stack.indexOf('\n    at ')
    out.stack = `${String(type)}: ${message}${frames === -1 ? '' : err.stack.slice(frames)}`
  }
  if (err.cause !== undefined && depth < 4) out.cause = serializeError(err.cause, depth + 1)
  return out
}

function serializeRequest(request: FastifyRequest) {
  return {
    method: request.method,
    url: redactUrl(request.url),
    host: request.host,
    remoteAddress: request.ip,
    remotePort: request.socket.remotePort,
  }
}

// Fastify's type for the `err` serializer wants these three always.
const serializeLogError = (err: unknown) => ({ type: 'Error', message: '', stack: '', ...serializeError(err) })

type LoggerOptions = Exclude<FastifyServerOptions['logger'], boolean | undefined>

/** The Fastify logger options: the level (or the test's options) with the redacting serializers. */
export function loggerOptions(level: string, given: FastifyServerOptions['logger']): FastifyServerOptions['logger'] {
  if (given === false) return false
  const base: LoggerOptions = typeof given === 'object' ? given : { level }
  return { level, ...base, serializers: { ...base.serializers, req: serializeRequest, err: serializeLogError } }
}

const QUIET_ROUTES = new Set(['/healthz', '/readyz'])

/**
 * Fastify's request log lines: one per request, when its response is done (method, URL
 * without the token, status, time, request id), not one more when it arrives. The probes
 * log at debug only, so that a load balancer polling them does not fill the logs.
 */
export class RequestLog extends LogController {
  override incomingRequest() {
    // The completed line says it all.
  }

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply) {
    const fields = {
      method: request.method,
      url: redactUrl(request.url),
      statusCode: reply.statusCode,
      responseTime: Math.round(reply.elapsedTime * 10) / 10,
    }
    if (error) reply.log.error({ ...fields, err: error }, 'request errored')
    else if (QUIET_ROUTES.has(request.routeOptions.url ?? '')) reply.log.debug(fields, 'request completed')
    else reply.log.info(fields, 'request completed')
  }
}

/** A log line's fields as pino-pretty hands them to messageFormat. */
type LogRecord = Record<string, unknown>

const text = (value: unknown) => (typeof value === 'string' || typeof value === 'number' ? String(value) : '')

/** A request line as a person reads it: `GET /api/v1/contacts 200 3.1 ms`; other lines: their message. */
export function humanMessage(log: LogRecord, messageKey: string): string {
  const message = text(log[messageKey])
  if (typeof log.method !== 'string' || log.statusCode === undefined) return message
  const request = `${log.method} ${text(log.url)} ${text(log.statusCode)} ${text(log.responseTime)} ms`
  return message === 'request completed' ? request : `${message}: ${request}`
}

/**
 * For a person at a terminal (npm start, npm run dev): the log as readable lines (time,
 * level, message, other fields on the same line, an error's stack below), through
 * pino-pretty in this thread. Pipes, files and supervisors get the JSON lines.
 */
export function terminalLogger(level: string, destination: NodeJS.WritableStream = process.stdout): LoggerOptions {
  return {
    level,
    stream: pretty({
      destination,
      sync: true, // a crash's last lines reach the terminal before the process ends
      colorize: 'isTTY' in destination && destination.isTTY === true,
      translateTime: 'SYS:HH:MM:ss',
      ignore: 'pid,hostname,method,url,statusCode,responseTime',
      singleLine: true,
      messageFormat: (log, messageKey) => humanMessage(log, messageKey),
    }),
  }
}
