// What every response must satisfy (../shared/CONTRACT.md sections 4 and 5), as a list of
// violations, each a stable phrase (so a long run can group them by cause).
import type { FuzzRequest } from './requests.js'
import type { Value } from './values.js'

export interface Response {
  statusCode: number
  headers: Record<string, string | string[] | number | undefined>
  body: string
}

const MESSAGES: Record<number, string[]> = {
  400: ['Bad request'],
  401: ['Missing api_token', 'Invalid api_token'],
  404: ['Not found'],
  413: ['Payload too large'],
  415: ['Unsupported media type'],
  422: ['Could not save the entity'],
  429: ['Requests limit exceeded for api_token'],
}

const CODES: Record<number, string[]> = {
  400: ['bad_request'],
  401: ['token_missing', 'token_invalid'],
  404: ['not_found'],
  413: ['payload_too_large'],
  415: ['unsupported_media_type'],
  422: ['validation_failed', 'state_refused'],
  429: ['rate_limited'],
}

const ERROR_KEYS = new Set(['status', 'message', 'code', 'request_id', 'details', 'detail_codes'])
const SNAKE = /^[a-z][a-z0-9_]*$/
const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/
const DAY = /^\d{4}-\d{2}-\d{2}$/

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)

function checkError(res: Response, body: unknown, out: string[]) {
  const status = res.statusCode
  if (!isObject(body) || Object.keys(body).join() !== 'error' || !isObject(body.error)) {
    out.push('error body is not {"error": {...}}')
    return
  }
  const error = body.error
  const extra = Object.keys(error).filter((k) => !ERROR_KEYS.has(k))
  if (extra.length > 0) out.push(`error body has extra keys ${extra.join(', ')}`)
  if (error.status !== status) out.push('error.status differs from the HTTP status')
  const messages = MESSAGES[status]
  if (messages && !messages.includes(error.message as string)) out.push(`error.message is not the contract's for ${status}`)
  if (typeof error.message !== 'string') out.push('error.message missing')
  if (error.request_id !== res.headers['x-request-id']) out.push('error.request_id differs from X-Request-Id')
  if (typeof error.code !== 'string') out.push('error.code missing')
  else if (!SNAKE.test(error.code)) out.push('error.code not snake_case')
  else if (CODES[status] && !CODES[status].includes(error.code)) out.push(`error.code ${error.code} for ${status}`)
  if (status === 401 && typeof error.code === 'string') {
    const expected = error.message === 'Missing api_token' ? 'token_missing' : 'token_invalid'
    if (error.code !== expected) out.push(`error.code ${error.code} with message ${String(error.message)}`)
  }
  if (error.details !== undefined) {
    const details = error.details
    if (!isObject(details) || Object.keys(details).length === 0) out.push('error.details not a non-empty object')
    else {
      for (const [key, problems] of Object.entries(details)) {
        if (!Array.isArray(problems) || problems.length === 0 || problems.some((p) => typeof p !== 'string')) {
          out.push('error.details value not a list of messages')
        }
        const codes = isObject(error.detail_codes) ? error.detail_codes[key] : undefined
        if (!Array.isArray(codes) || codes.length !== (problems as unknown[]).length || codes.some((c) => typeof c !== 'string' || !SNAKE.test(c))) {
          out.push('error.detail_codes missing or not matching details')
          break
        }
      }
      if (isObject(error.detail_codes) && Object.keys(error.detail_codes).join() !== Object.keys(details).join()) {
        out.push('error.detail_codes keys differ from details')
      }
    }
  } else if (error.detail_codes !== undefined) out.push('error.detail_codes without details')
  if (status === 422 && error.details === undefined) out.push('422 without details')
  if (status === 429 && res.headers['retry-after'] === undefined) out.push('429 without Retry-After')
}

/** Timestamps (`*_at`) and days (`*_date`) of a success body, anywhere in it. */
function checkShapes(value: unknown, out: Set<string>) {
  if (Array.isArray(value)) value.forEach((v) => { checkShapes(v, out) })
  else if (isObject(value)) {
    for (const [key, v] of Object.entries(value)) {
      if (typeof v === 'string' && key.endsWith('_at') && !TIMESTAMP.test(v)) out.add(`${key} not ISO 8601 UTC with milliseconds: ${v.slice(0, 40)}`)
      else if (typeof v === 'string' && key.endsWith('_date') && !DAY.test(v)) out.add(`${key} not yyyy-mm-dd: ${v.slice(0, 40)}`)
      else checkShapes(v, out)
    }
  }
}

/** Stored as sent: the strings of a JSON body come back unchanged (no U+FFFD, no trimming). */
function checkEcho(sent: Record<string, Value>, body: unknown, out: string[]) {
  if (!isObject(body)) return
  for (const [key, value] of Object.entries(sent)) {
    const back = body[key]
    // '' for a parameter that is not free text (an enum, a date) counts as not given.
    if (typeof value !== 'string' || value === '' || typeof back !== 'string') continue
    if (key === 'stopped_at') {
      // Date-times only (a date is midnight in the company's zone), and only those JavaScript
      // reads too: a leap second (23:59:60, valid RFC 3339) rolls over to the next minute.
      const sent = Date.parse(value)
      if (/T/.test(value) && !Number.isNaN(sent) && sent !== Date.parse(back)) out.push(`stopped_at ${value} read back as ${back}`)
    } else if (back !== value) {
      out.push(`${key} read back changed`)
    }
  }
}

export function violations(req: FuzzRequest, res: Response): string[] {
  const out: string[] = []
  const status = res.statusCode
  if (status >= 500) out.push(`${status} answered`)
  else if (status >= 400 && !MESSAGES[status]) out.push(`status ${status} is not in the contract`)
  const id = res.headers['x-request-id']
  if (typeof id !== 'string' || id === '') out.push('no X-Request-Id')
  else if (req.requestId !== undefined && id !== req.requestId) out.push('X-Request-Id not the caller\'s')
  if (status === 204) {
    if (res.body !== '') out.push('204 with a body')
    return out
  }
  // A JSON Lines answer (the audit export): each line one JSON record with the shapes above.
  if (status < 300 && /^application\/x-ndjson\b/.test(String(res.headers['content-type']))) {
    const shapes = new Set<string>()
    for (const line of res.body.split('\n').filter((l) => l !== '')) {
      try {
        checkShapes(JSON.parse(line), shapes)
      } catch {
        out.push('a JSON Lines line is not JSON')
        break
      }
    }
    out.push(...shapes)
    return out
  }
  // A CSV answer (the contacts export, an import's rejected rows): a header line, then rows.
  if (status < 300 && /^text\/csv\b/.test(String(res.headers['content-type']))) {
    if (!/^\uFEFF?[^\r\n]+\r?\n/.test(res.body)) out.push('a CSV answer without its header line')
    return out
  }
  if (!/^application\/json\b/.test(String(res.headers['content-type']))) {
    out.push(`content type ${String(res.headers['content-type'])}`)
    return out
  }
  let body: unknown
  try {
    body = JSON.parse(res.body)
  } catch {
    out.push('body is not JSON')
    return out
  }
  if (status >= 400) checkError(res, body, out)
  else {
    if (status === 201 && res.headers.location === undefined) out.push('201 without Location')
    const shapes = new Set<string>()
    checkShapes(body, shapes)
    out.push(...shapes)
    if (req.json && (req.method === 'POST' || req.method === 'PUT')) checkEcho(req.json, body, out)
  }
  return out
}
