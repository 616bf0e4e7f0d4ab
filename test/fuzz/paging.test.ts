// Issue 30: every list operation (each GET whose query takes `page`, read from the app's own
// OpenAPI document) under every shape of `page` and `per_page`: huge, negative, zero,
// fractional, non-numeric, empty, of the wrong type, in the query string, a form-encoded or
// a JSON body. A model of the contract (sections 2 and 4) says for each request whether it
// is a page or a 422; the answer must be exactly that: never a 5xx; a 422 with the contract's
// body naming the bad parameters; a page whose meta, Link header and records are those of
// the list (read whole beforehand), the same empty page past the end whatever its number.
// PAGING_RUNS (default 30) cases per list variant, seed PAGING_SEED.
import assert from 'node:assert/strict'
import { after, describe, test } from 'node:test'
import fc from 'fast-check'
import { startFuzzedApp } from './fixture.js'
import { violations } from './contract.js'
import { encode, toJson, type FuzzRequest } from './requests.js'
import { Raw, type Value } from './values.js'

const fuzz = await startFuzzedApp()
after(() => fuzz.close())

const MAX_ID = Number.MAX_SAFE_INTEGER
const SEED = Number(process.env.PAGING_SEED ?? 20261126)
const RUNS = Number(process.env.PAGING_RUNS ?? 30)
const auth = { authorization: `Bearer ${fuzz.token}` }
const { pools } = fuzz

interface Variant {
  /** The path with its ids in place. */
  path: string
  /** The list's own parameters (a valid context), sent in the query string. */
  query: Record<string, string>
}

const first = (ids: number[]) => String(ids[0] ?? 1)
const user = first(pools.users)
const contact = first(pools.contacts)
const company = first(pools.companies)

// Each list with the statements its filters choose; a list the OpenAPI document adds fails
// the first test until it is named here.
const VARIANTS: Record<string, Variant[]> = {
  'GET /api/v1/users': [{ path: '/api/v1/users', query: {} }],
  'GET /api/v1/contacts': [
    { path: '/api/v1/contacts', query: {} },
    { path: '/api/v1/contacts', query: { user_id: user } },
    { path: '/api/v1/contacts', query: { search_term: 'example' } },
    { path: '/api/v1/contacts', query: { search_term: 'a', user_id: user } },
    { path: '/api/v1/contacts', query: { search_term: 'a\u001fb' } },
  ],
  'GET /api/v1/contacts/{id}/events': [{ path: `/api/v1/contacts/${contact}/events`, query: {} }],
  'GET /api/v1/flows': [
    { path: '/api/v1/flows', query: {} },
    { path: '/api/v1/flows', query: { user_id: user, search_term: 'o' } },
  ],
  'GET /api/v1/tasks': [
    { path: '/api/v1/tasks', query: {} },
    { path: '/api/v1/tasks', query: { assigned_to_id: user } },
    { path: '/api/v1/tasks', query: { contact_id: contact } },
    { path: '/api/v1/tasks', query: { flow_id: first(pools.flows) } },
    { path: '/api/v1/tasks', query: { start_done_date: '2000-01-01', end_done_date: '2100-01-01' } },
  ],
  'GET /api/v1/leads': [
    { path: '/api/v1/leads', query: { user_id: user } },
    { path: '/api/v1/leads', query: { user_id: user, with_contact: 'true' } },
    { path: '/api/v1/leads', query: { user_id: user, without_contact: 'true' } },
  ],
  'GET /api/v1/meet_transcriptions': [
    { path: '/api/v1/meet_transcriptions', query: { user_id: user, company_id: company } },
    { path: '/api/v1/meet_transcriptions', query: { user_id: user, company_id: company, with_task: 'true' } },
    { path: '/api/v1/meet_transcriptions', query: { user_id: user, company_id: company, without_task: 'true' } },
  ],
  'GET /api/v1/whatsapp_messages': [
    { path: '/api/v1/whatsapp_messages', query: { contact_id: contact } },
    { path: '/api/v1/whatsapp_messages', query: { contact_id: contact, user_id: user } },
  ],
  'GET /api/v1/whatsapp_messages/chats': [{ path: '/api/v1/whatsapp_messages/chats', query: { contact_id: contact } }],
  'GET /api/v1/webhooks': [{ path: '/api/v1/webhooks', query: {} }],
  'GET /api/v1/webhooks/{id}/deliveries': [{ path: `/api/v1/webhooks/${first(pools.webhooks)}/deliveries`, query: {} }],
  'GET /api/v1/events': [
    { path: '/api/v1/events', query: {} },
    { path: '/api/v1/events', query: { type: 'contact.created' } },
  ],
}

const lists = fuzz.operations.filter((op) => op.method === 'GET' && op.query.some((p) => p.name === 'page'))

const queryOf = (params: Record<string, string>) =>
  Object.entries(params).map(([k, v]) => `${encode(k)}=${encode(v)}`)

/** The whole list of a variant, in its order, read with per_page=100. */
async function wholeList(variant: Variant): Promise<unknown[]> {
  const records: unknown[] = []
  for (let page = 1; ; page++) {
    const url = `${variant.path}?${[...queryOf(variant.query), `page=${String(page)}`, 'per_page=100'].join('&')}`
    const res = await fuzz.t.app.inject({ url, headers: auth })
    assert.equal(res.statusCode, 200, `${url}: ${res.body}`)
    const body = res.json<{ data: unknown[]; meta: { total_count: number } }>()
    records.push(...body.data)
    if (body.data.length < 100) {
      assert.equal(records.length, body.meta.total_count, `${url}: the pages hold the total`)
      return records
    }
  }
}

// ---- the values -----------------------------------------------------------------------

const OMIT = Symbol('omit')
type Slot = Value | typeof OMIT

const page = fc.oneof(
  { weight: 2, arbitrary: fc.integer({ min: 1, max: 6 }) },
  { weight: 3, arbitrary: fc.constantFrom(2 ** 31 - 1, 2 ** 31, 2 ** 32, 2 ** 53 - 1, 10 ** 15, 2 ** 53 - 2) },
  { weight: 1, arbitrary: fc.integer({ min: 1, max: MAX_ID }) },
)
const perPage = fc.oneof({ weight: 3, arbitrary: fc.integer({ min: 1, max: 4 }) }, { weight: 1, arbitrary: fc.integer({ min: 1, max: 100 }) })
const badNumbers: (number | Raw)[] = [
  0, -1, -(2 ** 31), -(2 ** 53), 2 ** 53, 2 ** 63, 1e21, 1.5, 0.5, 99.9, 101, 1000,
  new Raw('1e309'), new Raw('-1e309'), new Raw('1.0'), new Raw('2.0'), new Raw('-0'), new Raw('1e2'), new Raw('9007199254740993'),
  new Raw('9999999999999999999'), new Raw('0.0000001'),
]
const badTexts: Value[] = [
  '', ' ', 'abc', 'one', ' 1', '1 ', '+1', '-1', '0', '00', '1.5', '1e3', '0x10', '1_000', '1,000', 'NaN', 'Infinity', '-Infinity',
  'null', 'true', '９', '١٢٣', '0'.repeat(20) + '1', '9'.repeat(17), '9007199254740992', '18446744073709551616', '%', '\u0000', '1\u0000',
]
const wrongTypes: Value[] = [null, true, false, [], [1], ['1', '2'], {}, { a: 1 }]
/** Any value for `page` or `per_page`, as the number or as its text. */
const anyValue = (valid: fc.Arbitrary<number>): fc.Arbitrary<Slot> =>
  fc.oneof(
    { weight: 1, arbitrary: fc.constant<Slot>(OMIT) },
    { weight: 6, arbitrary: valid },
    { weight: 4, arbitrary: valid.map(String) },
    { weight: 2, arbitrary: fc.constantFrom(...badNumbers) },
    { weight: 1, arbitrary: fc.constantFrom(...badNumbers).map((v) => (v instanceof Raw ? v.text : String(v))) },
    { weight: 2, arbitrary: fc.constantFrom(...badTexts) },
    { weight: 1, arbitrary: fc.constantFrom(...wrongTypes) },
    { weight: 1, arbitrary: fc.double({ noNaN: true, noDefaultInfinity: true }) },
    { weight: 1, arbitrary: fc.integer({ min: -(2 ** 31), max: 0 }) },
  )

type Where = 'query' | 'body'
const where = fc.constantFrom<Where>('query', 'query', 'body')

// ---- the model --------------------------------------------------------------------------

/** What the contract reads: nothing given, an integer, or something that is not one. */
type Reading = { kind: 'absent' } | { kind: 'int'; n: number } | { kind: 'bad' }

/** Form and query text: '' counts as not given; an integer is a string of decimal digits. */
function readText(text: string): Reading {
  if (text === '') return { kind: 'absent' }
  // The service reads up to 16 digits (2^53 − 1 has 16); longer is no id of the contract's range.
  if (/^\d{1,16}$/.test(text) && Number.isSafeInteger(Number(text))) return { kind: 'int', n: Number(text) }
  return { kind: 'bad' }
}

function read(slot: Slot, body: 'json' | 'form' | 'query'): Reading {
  if (slot === OMIT) return { kind: 'absent' }
  if (body === 'json') {
    const value: unknown = slot instanceof Raw ? JSON.parse(slot.text) : JSON.parse(toJson(slot))
    if (typeof value === 'string') return readText(value)
    if (typeof value === 'number') return Number.isInteger(value) ? { kind: 'int', n: value } : { kind: 'bad' }
    return { kind: 'bad' }
  }
  if (slot === null) return { kind: 'absent' } // written `page=`
  if (Array.isArray(slot) || (typeof slot === 'object' && !(slot instanceof Raw))) return { kind: 'bad' }
  return readText(slot instanceof Raw ? slot.text : String(slot))
}

interface Case {
  variant: number
  page: Slot
  perPage: Slot
  pageWhere: Where
  perPageWhere: Where
  body: 'json' | 'form'
}

function build(variant: Variant, c: Case): { req: FuzzRequest; page: Reading; perPage: Reading } {
  const query = queryOf(variant.query)
  const bodyParams: Record<string, Value> = {}
  const place = (name: string, slot: Slot, at: Where) => {
    if (slot === OMIT) return
    if (at === 'body') bodyParams[name] = slot
    else query.push(...formPairs(name, slot))
  }
  place('page', c.page, c.pageWhere)
  place('per_page', c.perPage, c.perPageWhere)
  const headers: Record<string, string> = { ...auth }
  let payload: string | undefined
  if (Object.keys(bodyParams).length > 0) {
    if (c.body === 'json') {
      payload = toJson(bodyParams)
      headers['content-type'] = 'application/json'
    } else {
      payload = Object.entries(bodyParams).flatMap(([k, v]) => formPairs(k, v)).join('&')
      headers['content-type'] = 'application/x-www-form-urlencoded'
    }
  }
  const url = query.length > 0 ? `${variant.path}?${query.join('&')}` : variant.path
  const req: FuzzRequest = { operation: variant.path, resource: '', method: 'GET', url, headers }
  if (payload !== undefined) req.payload = payload
  return {
    req,
    page: read(c.page, c.pageWhere === 'body' ? c.body : 'query'),
    perPage: read(c.perPage, c.perPageWhere === 'body' ? c.body : 'query'),
  }
}

/** Rails-style pairs of one parameter (arrays `x[]=`, objects `x[k]=`), values written as sent. */
function formPairs(name: string, value: Value): string[] {
  if (value instanceof Raw) return [`${name}=${encode(value.text)}`]
  if (Array.isArray(value)) return value.length === 0 ? [`${name}[]=`] : value.flatMap((v) => formPairs(`${name}[]`, v))
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value)
    return entries.length === 0 ? [`${name}[]=`] : entries.flatMap(([k, v]) => formPairs(`${name}[${k}]`, v))
  }
  return [`${name}=${encode(value === null ? '' : String(value))}`]
}

/** The page numbers of a Link header, by rel. */
function linkPages(link: unknown): Record<string, number> {
  assert.equal(typeof link, 'string', 'a Link header')
  const pages: Record<string, number> = {}
  for (const part of String(link).split(', ')) {
    const match = /^<([^>]*)>; rel="(first|prev|next|last)"$/.exec(part)
    assert.ok(match, `a Link part: ${part}`)
    const [, url = '', rel = ''] = match
    const n = /[?&]page=(\d+)(&|$)/.exec(url)
    assert.ok(n, `a page in ${url}`)
    pages[rel] = Number(n[1])
  }
  return pages
}

// ---- the property -------------------------------------------------------------------------

let sent = 0
let over500 = 0

describe('every list under every page and per_page: a page or a 422, never a 5xx', () => {
  test('every list operation has its variants here', () => {
    assert.deepEqual(lists.map((op) => op.name).sort(), Object.keys(VARIANTS).sort())
  })

  for (const op of lists) {
    const variants = VARIANTS[op.name] ?? []
    for (const [index, variant] of variants.entries()) {
      test(`${op.name} ${JSON.stringify(variant.query)}`, async () => {
        const whole = await wholeList(variant)
        const total = whole.length
        const arbitrary = fc.record<Case>({
          variant: fc.constant(index),
          page: anyValue(page),
          perPage: anyValue(perPage),
          pageWhere: where,
          perPageWhere: where,
          body: fc.constantFrom('json' as const, 'form' as const),
        })
        await fc.assert(
          fc.asyncProperty(arbitrary, async (c) => {
            const { req, page: p, perPage: pp } = build(variant, c)
            const res = await fuzz.t.app.inject({ method: 'GET', url: req.url, headers: req.headers, ...(req.payload ? { payload: req.payload } : {}) })
            sent++
            if (res.statusCode >= 500) over500++
            const shown = `${req.url}${req.payload === undefined ? '' : ` body ${req.payload.toString()}`}`
            const response = { statusCode: res.statusCode, headers: res.headers, body: res.body }
            assert.deepEqual(violations(req, response), [], `${shown}: ${res.body}`)

            const bad: string[] = []
            if (p.kind !== 'int' || p.n < 1 || p.n > MAX_ID) bad.push('page')
            if (pp.kind === 'bad' || (pp.kind === 'int' && (pp.n < 1 || pp.n > 100))) bad.push('per_page')
            if (bad.length > 0) {
              assert.equal(res.statusCode, 422, `${shown}: ${res.body}`)
              const error = res.json<{ error: { code: string; details: Record<string, string[]> } }>().error
              assert.equal(error.code, 'validation_failed')
              // Each parameter named is a bad one; a page not given may wait until per_page is right.
              const named = Object.keys(error.details).sort()
              assert.ok(named.length > 0 && named.every((name) => bad.includes(name)), `${shown}: ${res.body}`)
              if (bad.length === 1 || p.kind !== 'absent') assert.deepEqual(named, bad, `${shown}: ${res.body}`)
              return
            }
            assert.equal(res.statusCode, 200, `${shown}: ${res.body}`)
            const pageNumber = p.kind === 'int' ? p.n : 0
            const size = pp.kind === 'int' ? pp.n : 25
            const totalPages = Math.ceil(total / size)
            const body = res.json<{ data: unknown[]; meta: Record<string, number> }>()
            assert.deepEqual(Object.keys(body), ['data', 'meta'])
            assert.deepEqual(body.meta, { page: pageNumber, per_page: size, total_count: total, total_pages: totalPages }, shown)
            // A page past the end is the same empty page whatever its number.
            const offset = (pageNumber - 1) * size
            assert.deepEqual(body.data, offset >= total ? [] : whole.slice(offset, offset + size), `${shown}: the records of the page`)
            const last = Math.max(totalPages, 1)
            const expectedLinks: Record<string, number> = { first: 1, last }
            if (pageNumber > 1) expectedLinks.prev = Math.min(pageNumber - 1, last)
            if (pageNumber < last) expectedLinks.next = pageNumber + 1
            assert.deepEqual(linkPages(res.headers.link), expectedLinks, shown)
          }),
          { seed: SEED + index + op.name.length * 101, numRuns: RUNS },
        )
      })
    }
  }

  test('no response >= 500 over every list', (t) => {
    t.diagnostic(`${String(sent)} requests, ${String(over500)} answered >= 500`)
    assert.ok(sent >= lists.length * RUNS)
    assert.equal(over500, 0)
  })
})
