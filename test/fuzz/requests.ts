// Requests for one operation: its parameters (valid, hostile, missing, of the wrong type,
// plus prototype keys and unknown ones) placed in the query string, a JSON body or a
// Rails-style form body, with the token in the header (mostly), the query or the body.
import fc from 'fast-check'
import type { Pools } from './fixture.js'
import type { Operation, Param } from './operations.js'
import { hostileSegments, hostileValue, prototypeKeys, Raw, resourcePool, validValue, wrongTypes, type Value } from './values.js'

export interface FuzzRequest {
  operation: string
  /** The resource the operation is about (`contacts`): a record it creates joins that pool. */
  resource: string
  method: string
  url: string
  headers: Record<string, string>
  payload?: string | Buffer
  /** The parameters sent as a well-formed JSON body (unwrapped): echoed strings must come back equal. */
  json?: Record<string, Value>
  /** The X-Request-Id sent, when it is one the service must keep. */
  requestId?: string
}

const OMIT = Symbol('omit')
type Slot = Value | typeof OMIT

/** JSON text, with Raw number tokens written as they are. */
export function toJson(value: Value): string {
  if (value instanceof Raw) return value.text
  if (Array.isArray(value)) return `[${value.map(toJson).join(',')}]`
  if (value !== null && typeof value === 'object') {
    return `{${Object.entries(value).map(([k, v]) => `${JSON.stringify(k)}:${toJson(v)}`).join(',')}}`
  }
  return JSON.stringify(value)
}

/** Percent-encoding that also writes lone surrogates (as their WTF-8 bytes) instead of throwing. */
export function encode(text: string, keepBrackets = false): string {
  let out = ''
  for (const char of text) {
    const unit = char.charCodeAt(0)
    if (char.length === 1 && unit >= 0xd800 && unit <= 0xdfff) {
      out += [0xe0 | (unit >> 12), 0x80 | ((unit >> 6) & 0x3f), 0x80 | (unit & 0x3f)]
        .map((b) => `%${b.toString(16).toUpperCase()}`)
        .join('')
    } else if (keepBrackets && (char === '[' || char === ']')) out += char
    else out += encodeURIComponent(char)
  }
  return out
}

/** Rails-style pairs: `a[b]=1`, `tags[]=1`, `custom_fields[][field]=x`. */
export function formPairs(prefix: string, value: Value): string[] {
  if (value instanceof Raw) return [`${encode(prefix, true)}=${encode(value.text)}`]
  if (Array.isArray(value)) {
    return value.flatMap((item) =>
      item !== null && typeof item === 'object' && !Array.isArray(item) && !(item instanceof Raw)
        ? Object.entries(item).flatMap(([k, v]) => formPairs(`${prefix}[][${k}]`, v))
        : formPairs(`${prefix}[]`, item),
    )
  }
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value)
    return entries.length === 0 ? [`${encode(prefix, true)}=`] : entries.flatMap(([k, v]) => formPairs(`${prefix}[${k}]`, v))
  }
  return [`${encode(prefix, true)}=${encode(value === null ? '' : String(value))}`]
}

const formOf = (params: Record<string, Value>) => Object.entries(params).flatMap(([k, v]) => formPairs(k, v))

/** Raw pairs no encoder would write: deep or conflicting nesting, prototype keys, bad escapes. */
function hostilePairs(names: string[]): string[] {
  const name = names[0] ?? 'x'
  return [
    `a${'[b]'.repeat(20)}=1`,
    `${name}${'[x]'.repeat(17)}=1`,
    `${name}[][]=1`,
    `tags[][]=1`,
    `tags[]=1&tags[x]=2`,
    `tags=1&tags[]=2`,
    `tags[]=1&tags=2`,
    `${name}[]=1&${name}[x]=1`,
    `${name}[x]=1&${name}[]=1`,
    `${name}=1&${name}[x]=1`,
    `custom_fields[][field]=x&custom_fields[]=y`,
    `custom_fields[]=y&custom_fields[][field]=x`,
    `custom_fields[][field][]=x`,
    `options[][name][x]=1`,
    `__proto__[polluted]=1`,
    `constructor[prototype][polluted]=1`,
    `${name}[__proto__][polluted]=1`,
    `contact[__proto__]=1`,
    `[]=1`,
    `[a]=1`,
    `a[=1`,
    `a]=1`,
    `a[]]=1`,
    `a[b]c=1`,
    `=1`,
    `&&&`,
    `%=1`,
    `a=%`,
    `${name}=%zz`,
    `${name}=%00`,
    `${name}=%ED%A0%80`,
    `${name}=%C0%80`,
    Array.from({ length: 1001 }, (_, i) => `p${i}=1`).join('&'),
  ]
}

const CONTENT_TYPES = {
  json: ['application/json', 'application/json; charset=utf-8', 'APPLICATION/JSON', 'application/json; charset=latin1', 'application/vnd.api+json'],
  form: ['application/x-www-form-urlencoded', 'application/x-www-form-urlencoded; charset=UTF-8'],
  other: ['text/plain', 'application/xml', 'multipart/form-data; boundary=x', 'application/octet-stream', 'text/html; charset=utf-8'],
}

const BROKEN_JSON: (string | Buffer)[] = [
  '{',
  '{"a":}',
  '[1,2]',
  '"x"',
  'null',
  '1e309',
  '',
  ' ',
  '{"a":1}garbage',
  '{"a":1,}',
  "{'a':1}",
  '{"a":NaN}',
  '[' .repeat(5000) + ']'.repeat(5000),
  `{"a":${'['.repeat(100_000)}${']'.repeat(100_000)}}`,
  '\ufeff{"a":1}',
  Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d]),
  Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xed, 0xa0, 0x80, 0x22, 0x7d]),
  Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0x00, 0x22, 0x7d]),
  '{"__proto__":{"polluted":true}}',
  '{"constructor":{"prototype":{"polluted":true}}}',
  `{"first_name":"${'a'.repeat(1024 * 1024 + 10)}"}`,
]

function pathSegment(op: Operation, param: Param, pools: Pools): fc.Arbitrary<string> {
  // Drawn when the request is built, from the live pool (records created by earlier
  // requests join it), mostly the newest ones; DELETE only from the newest half, so a long
  // run keeps most of the seeded records to hit.
  const live = fc.tuple(fc.boolean(), fc.nat()).map(([recent, n]) => {
    const pool = param.name === 'id' ? resourcePool(op.resource, pools) : pools.contacts
    const from = recent || op.method === 'DELETE' ? Math.floor(pool.length / 2) : 0
    return String(pool[from + (n % Math.max(1, pool.length - from))] ?? 1)
  })
  return fc.oneof(
    { weight: 6, arbitrary: live },
    { weight: 1, arbitrary: fc.constantFrom(...pools.foreign).map(String) },
    { weight: 3, arbitrary: fc.constantFrom(...hostileSegments) },
  )
}

function validSlot(op: Operation, param: Param, pools: Pools): fc.Arbitrary<Slot> {
  return fc.oneof(
    { weight: param.required ? 0 : 2, arbitrary: fc.constant<Slot>(OMIT) },
    { weight: 8, arbitrary: validValue(param.name, param.schema, op.resource, pools) },
    { weight: param.required ? 0 : 1, arbitrary: fc.constant<Slot>('') },
  )
}

/** Which parameters get a hostile value: mostly one or two (so the rest passes validation), sometimes each. */
const hits = (n: number): fc.Arbitrary<(index: number) => boolean> =>
  n === 0
    ? fc.constant(() => false)
    : fc.oneof(
        { weight: 2, arbitrary: fc.constant(() => false) },
        { weight: 6, arbitrary: fc.uniqueArray(fc.nat(n - 1), { minLength: 1, maxLength: 2 }).map((list) => (i: number) => list.includes(i)) },
        { weight: 1, arbitrary: fc.uniqueArray(fc.nat(n - 1), { maxLength: n }).map((list) => (i: number) => list.includes(i)) },
      )

const extraEntry = fc.tuple(
  fc.oneof(fc.constantFrom(...prototypeKeys), fc.string({ maxLength: 8 })),
  fc.oneof(fc.constantFrom(...wrongTypes), fc.constant<Value>('x')),
)

export function requestArbitrary(op: Operation, pools: Pools, token: string): fc.Arbitrary<FuzzRequest> {
  const params = op.method === 'GET' || op.method === 'DELETE' ? op.query : op.body
  const names = params.map((p) => p.name)
  return fc
    .record({
      segments: fc.tuple(...op.pathParams.map((p) => pathSegment(op, p, pools))),
      slots: fc.tuple(...params.map((p) => validSlot(op, p, pools))),
      hostile: fc.tuple(
        ...params.map((p) =>
          p.required ? fc.oneof({ weight: 8, arbitrary: hostileValue(p.name, p.schema, pools) }, { weight: 1, arbitrary: fc.constantFrom<Slot>(OMIT, '') }) : hostileValue(p.name, p.schema, pools),
        ),
      ),
      hit: hits(params.length),
      extras: fc.array(extraEntry, { maxLength: 2 }),
      wrap: fc.oneof({ weight: 4, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) }),
      placement: fc.constantFrom('natural', 'natural', 'natural', 'natural', 'query', 'json', 'form'),
      encoding: fc.oneof(
        { weight: 12, arbitrary: fc.constant('ok' as const) },
        { weight: 1, arbitrary: fc.constant('broken' as const) },
        { weight: 1, arbitrary: fc.constant('hostile-pairs' as const) },
        { weight: 1, arbitrary: fc.constant('other-type' as const) },
      ),
      contentType: fc.nat(),
      broken: fc.constantFrom(...BROKEN_JSON),
      pair: fc.constantFrom(...hostilePairs(names)),
      auth: fc.oneof(
        { weight: 16, arbitrary: fc.constant('header' as const) },
        { weight: 1, arbitrary: fc.constantFrom('query' as const, 'body' as const, 'none' as const, 'wrong' as const, 'array' as const) },
      ),
      requestId: fc.oneof(
        { weight: 6, arbitrary: fc.constant(undefined) },
        { weight: 2, arbitrary: fc.stringMatching(/^[A-Za-z0-9._-]{1,40}$/) },
        { weight: 1, arbitrary: fc.constantFrom('x'.repeat(129), 'bad id', 'é', '') },
      ),
    })
    .map((g): FuzzRequest => {
      let path = op.path
      op.pathParams.forEach((p, i) => {
        path = path.replace(`{${p.name}}`, g.segments[i] ?? '1')
      })
      const given: Record<string, Value> = {}
      params.forEach((p, i) => {
        const slot = g.hit(i) ? g.hostile[i] : g.slots[i]
        if (slot !== OMIT && slot !== undefined) given[p.name] = slot
      })
      for (const [key, value] of g.extras) given[key] = value
      const headers: Record<string, string> = {}
      if (g.requestId !== undefined) headers['x-request-id'] = g.requestId
      if (g.auth === 'header') headers.authorization = `Bearer ${token}`
      if (g.auth === 'wrong') headers.authorization = g.contentType % 2 ? `Bearer eng_${'A'.repeat(32)}` : 'Basic YTpi'

      const hasBody = op.method !== 'GET' && op.method !== 'DELETE'
      const where: 'query' | 'json' | 'form' = g.placement === 'natural' ? (hasBody ? (g.contentType % 3 ? 'json' : 'form') : 'query') : g.placement
      const body: Record<string, Value> = g.wrap && hasBody && op.rootKey ? { [op.rootKey]: given } : given
      const tokenParams: Record<string, Value> = g.auth === 'array' ? { api_token: [token] } : { api_token: token }
      const queryParts: string[] = []
      if (g.auth === 'query' || g.auth === 'array') queryParts.push(...formOf(tokenParams))
      let payload: string | Buffer | undefined
      let json: Record<string, Value> | undefined
      const bodyWithToken = g.auth === 'body' ? { ...body, ...tokenParams } : body
      const pick = (list: string[]) => list[g.contentType % list.length] ?? list[0] ?? ''

      if (g.encoding === 'broken') {
        payload = g.broken
        headers['content-type'] = pick(CONTENT_TYPES.json)
      } else if (g.encoding === 'hostile-pairs') {
        if (where === 'query') queryParts.push(g.pair, ...formOf(body))
        else {
          payload = [g.pair, ...formOf(bodyWithToken)].join('&')
          headers['content-type'] = pick(CONTENT_TYPES.form)
        }
      } else if (g.encoding === 'other-type') {
        payload = toJson(bodyWithToken)
        headers['content-type'] = pick(CONTENT_TYPES.other)
      } else if (where === 'query') {
        queryParts.push(...formOf(body))
        if (g.auth === 'body') {
          payload = toJson(tokenParams)
          headers['content-type'] = 'application/json'
        }
      } else if (where === 'json') {
        payload = toJson(bodyWithToken)
        headers['content-type'] = pick(CONTENT_TYPES.json)
        if (!headers['content-type'].includes('latin1')) json = given
      } else {
        payload = formOf(bodyWithToken).join('&')
        headers['content-type'] = pick(CONTENT_TYPES.form)
      }
      const url = queryParts.length > 0 ? `${path}?${queryParts.join('&')}` : path
      const request: FuzzRequest = { operation: op.name, resource: op.resource, method: op.method, url, headers }
      if (payload !== undefined) request.payload = payload
      if (json && hasBody) request.json = json
      if (g.requestId && /^[A-Za-z0-9._-]{1,128}$/.test(g.requestId)) request.requestId = g.requestId
      return request
    })
}

/** A short, printable description of a request (payloads cut to a few hundred characters). */
export function describeRequest(r: FuzzRequest): string {
  const cut = (s: string) => (s.length > 300 ? `${s.slice(0, 300)}… (${s.length} chars)` : s)
  const payload = r.payload === undefined ? '' : Buffer.isBuffer(r.payload) ? ` <bytes ${r.payload.toString('hex').slice(0, 80)}>` : ` ${JSON.stringify(cut(r.payload))}`
  const type = r.headers['content-type'] ? ` [${r.headers['content-type']}]` : ''
  const auth = r.headers.authorization ? '' : ' (no Authorization header)'
  return `${r.method} ${cut(r.url)}${type}${auth}${payload}`
}
