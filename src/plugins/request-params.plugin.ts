// Contract section 2: an operation's parameters come from the path, the query string and
// the body, merged (path over body over query), optionally wrapped in the resource's root
// key (route config `rootKey`), with api_token taken out for the auth plugin (header, else
// query, else body). Bodies are JSON objects or Rails-style forms; anything else is 415,
// and a body that does not parse is 400 with `details.body` saying why. An empty body
// (or one of only whitespace) is no parameters, whatever its content type: many clients
// send `Content-Type: application/json` with nothing after it.
import type { FastifyBodyParser } from 'fastify'
import fp from 'fastify-plugin'
import { ApiError, MESSAGES } from '../errors.js'
import { FormError, parseForm } from '../http/nested-params.js'

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The resource's singular root key: `{"contact": {...}}` is read as `{...}`. */
    rootKey?: string
  }
  interface FastifyRequest {
    /** The api_token as sent (header, query or body), if any. */
    apiToken: string | undefined
  }
}

type Params = Record<string, unknown>

const isPlainObject = (value: unknown): value is Params =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

function unwrap(params: Params, rootKey: string | undefined): Params {
  if (!rootKey) return params
  const wrapped = params[rootKey]
  if (!isPlainObject(wrapped)) return params
  const { [rootKey]: _, ...rest } = params
  return { ...rest, ...wrapped }
}

/** 400 `Bad request` with what was wrong with the body in `details.body`. */
const badBody = (problem: string) => new ApiError(400, MESSAGES[400], { body: [problem] })

/**
 * Why a JSON text does not parse, without quoting it (Node 22's messages quote the body):
 * where it broke when the engine says, or that it ended early.
 */
function jsonProblem(text: string): string {
  try {
    JSON.parse(text)
  } catch (err) {
    const message = (err as Error).message
    if (/Unexpected end of JSON input/.test(message)) return 'is not valid JSON: it ends before the value is complete'
    const position = /at position (\d+)/.exec(message)?.[1]
    if (position !== undefined) return `is not valid JSON: unexpected character at position ${position}`
    return 'is not valid JSON'
  }
  // JSON.parse took it: Fastify's parser refused a "__proto__" or "constructor.prototype" key.
  return 'is not valid JSON: it has a "__proto__" or "constructor.prototype" key'
}

const isBlank = (text: string) => /^[ \t\r\n]*$/.test(text)

function bearer(header: string | undefined): string | undefined {
  if (!header) return undefined
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header)
  return match ? match[1] : header
}

function tokenFrom(value: unknown): string | undefined {
  if (value === undefined) return undefined
  return typeof value === 'string' ? value : '' // present but not a string: invalid, not missing
}

export default fp(
  (app, _opts, done) => {
    // Parameters may come in the body of any operation, GET included.
    app.addHttpMethod('GET', { hasBody: true, overrideExisting: true })
    app.removeContentTypeParser('text/plain')
    // Fastify's own JSON parser (prototype poisoning refused), except that an empty body is
    // no parameters and a broken one says why.
    const fastifyJson = app.getDefaultJsonParser('error', 'error')
    const parseJson: FastifyBodyParser<string> = (request, body, parsed) => {
      if (isBlank(body)) {
        parsed(null, undefined)
        return
      }
      void fastifyJson(request, body, (err, value) => {
        parsed(err ? badBody(jsonProblem(body)) : null, value)
      })
    }
    app.removeContentTypeParser('application/json')
    app.addContentTypeParser('application/json', { parseAs: 'string' }, parseJson)
    app.addContentTypeParser(
      'application/x-www-form-urlencoded',
      { parseAs: 'string' },
      (_request, body, parsed) => {
        try {
          parsed(null, isBlank(body as string) ? undefined : parseForm(body as string))
        } catch (err) {
          parsed(err instanceof FormError ? badBody(`is not a valid form: ${err.message}`) : (err as Error), undefined)
        }
      },
    )

    app.decorateRequest('apiToken', undefined)

    // A callback hook, not an async one: it runs on every request and awaits nothing.
    app.addHook('preValidation', (request, _reply, next) => {
      const rawBody: unknown = request.body
      if (rawBody !== undefined && rawBody !== null && !isPlainObject(rawBody)) {
        next(badBody('is not a JSON object'))
        return
      }
      const rootKey = request.routeOptions.config.rootKey
      const query = unwrap(isPlainObject(request.query) ? request.query : {}, rootKey)
      const body = rawBody === undefined || rawBody === null ? undefined : unwrap(rawBody, rootKey)
      const path = isPlainObject(request.params) ? request.params : {}

      request.apiToken =
        bearer(request.headers.authorization) ?? tokenFrom(query.api_token) ?? tokenFrom(body?.api_token)

      // Path parameters are validated and read on their own (request.params); here they
      // only win, by removing any body or query value of the same name. The body's value
      // of a name wins over the query's.
      const merged: Params = {}
      for (const source of body === undefined ? [query] : [query, body]) {
        for (const key of Object.keys(source)) {
          if (key !== 'api_token' && !(key in path)) merged[key] = source[key]
        }
      }
      if (request.method === 'GET' || request.method === 'HEAD' || request.method === 'DELETE') {
        request.query = merged
      } else {
        request.body = merged
      }
      next()
    })
    done()
  },
  { name: 'request-params' },
)
