// Every field of every OAuth operation under hostile input (issue 38): /oauth/token,
// /oauth/revoke, /oauth/introspect (form bodies, and the Basic credentials) and GET and POST
// /oauth/authorize (query string, consent form). First each field with NUL, a lone surrogate,
// a huge value and a second copy of itself (RFC 6749 §3.1, §3.2), one at a time; then random
// mixes of the fuzz values (test/fuzz/values.ts). For every answer: no 5xx; the JSON
// endpoints answer RFC 6749 §5.2 JSON with no-store, the pages HTML; a refused request
// redirects nowhere and changes no row.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import fc from 'fast-check'
import { systemActing } from '../../src/acting.js'
import { challengeOf } from '../../src/modules/oauth/oauth.protocol.js'
import { registerApp } from '../../src/modules/oauth-server/oauth-server.service.js'
import { backends, startApp, type TestApp } from '../helpers/app.js'
import { tenant } from '../helpers/factories.js'
import { rawRows, sql } from '../helpers/sql.js'
import { Browser, csrfOf, member } from '../web/helpers.js'
import { hostileStrings } from './values.js'

const backend = backends().at(-1)
if (!backend) throw new Error('no backend')

const SEED = Number(process.env.FUZZ_SEED ?? 20261128)
const RUNS = Number(process.env.FUZZ_PER_OPERATION ?? 25)
const REDIRECT = 'https://app.example.com/callback'
const CHALLENGE = challengeOf('f'.repeat(43))
const OAUTH_ERRORS = new Set(['invalid_request', 'invalid_client', 'invalid_grant', 'unauthorized_client', 'unsupported_grant_type', 'invalid_scope', 'unsupported_token_type', 'rate_limited'])

type Pairs = [string, string][]

/** Form encoding that writes a lone surrogate as its (invalid) UTF-8 bytes, as a broken client sends it. */
function encode(text: string): string {
  let out = ''
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i)
    const pair = unit >= 0xd800 && unit <= 0xdbff && i + 1 < text.length && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00
    if (pair) {
      out += encodeURIComponent(text.slice(i, i + 2))
      i++
    } else if (unit >= 0xd800 && unit <= 0xdfff) {
      out += [0xe0 | (unit >> 12), 0x80 | ((unit >> 6) & 0x3f), 0x80 | (unit & 0x3f)].map((byte) => `%${byte.toString(16).toUpperCase()}`).join('')
    } else out += encodeURIComponent(text[i] ?? '')
  }
  return out
}
const formOf = (pairs: Pairs) => pairs.map(([name, value]) => `${encode(name)}=${encode(value)}`).join('&')

/** One field changed: its value replaced, or the field given a second time (before the good one). */
type Change = { field: string; value: string; repeat: boolean }
function applied(base: Pairs, change: Change): Pairs {
  if (change.repeat) return [[change.field, change.value], ...base]
  return base.some(([name]) => name === change.field) ? base.map(([name, value]) => [name, name === change.field ? change.value : value]) : [...base, [change.field, change.value]]
}

const POST_HUGE = 'z'.repeat(100 * 1024) // past the 64 KiB form limit
const FIELD_HUGE = 'z'.repeat(5000) // within it (and within a URL), past every field's bound but redirect_uri's
const CLASSES: { name: string; value: string; repeat: boolean }[] = [
  { name: 'NUL', value: 'a\u0000b', repeat: false },
  { name: 'lone surrogate', value: 'x\ud800y', repeat: false },
  { name: 'huge', value: FIELD_HUGE, repeat: false },
  { name: 'repeated', value: 'other', repeat: true },
]

describe('OAuth fields under hostile input', () => {
  let t: TestApp
  let browser: Browser
  let clientId: string
  let secret: string
  const seen = { requests: 0, over499: 0 }

  before(async () => {
    t = await startApp(backend)
    const maker = await tenant(t.db)
    const made = await registerApp(t.db, { companyId: maker.companyId, ...systemActing() }, { name: 'Fuzzed', redirectUris: [REDIRECT], scopes: ['contacts:read'] })
    clientId = made.app.client_id
    secret = made.clientSecret ?? ''
    const user = await member(t.db, maker.companyId, { email: 'fuzz@maker.test' })
    browser = new Browser(t.app)
    assert.equal((await browser.signIn(user.email)).status, 303)
  })
  after(() => t.close())

  const rows = async () =>
    (await rawRows<{ n: string }>(t.db, sql`select (select count(*) from oauth_grants) || '/' || (select count(*) from oauth_codes) || '/' || (select count(*) from oauth_refresh_tokens) || '/' || (select count(*) from api_tokens) as n`))[0]?.n

  const authorizeBase = (): Pairs => [
    ['response_type', 'code'],
    ['client_id', clientId],
    ['redirect_uri', REDIRECT],
    ['scope', 'contacts:read'],
    ['state', 'st'],
    ['code_challenge', CHALLENGE],
    ['code_challenge_method', 'S256'],
  ]
  const endpoints: { path: string; base: () => Pairs }[] = [
    { path: '/oauth/token', base: () => [['grant_type', 'refresh_token'], ['refresh_token', 'eng_ort_unknown'], ['scope', 'contacts:read'], ['client_id', clientId], ['client_secret', secret]] },
    { path: '/oauth/token', base: () => [['grant_type', 'authorization_code'], ['code', 'eng_oac_unknown'], ['redirect_uri', REDIRECT], ['code_verifier', 'v'.repeat(43)], ['client_id', clientId], ['client_secret', secret]] },
    { path: '/oauth/revoke', base: () => [['token', 'eng_oat_unknown'], ['token_type_hint', 'access_token'], ['client_id', clientId], ['client_secret', secret]] },
    { path: '/oauth/introspect', base: () => [['token', 'eng_oat_unknown'], ['token_type_hint', 'access_token'], ['client_id', clientId], ['client_secret', secret]] },
  ]

  /** Sends a form to a JSON endpoint and checks the answer; whether it was refused. */
  async function postJson(path: string, body: string, headers: Record<string, string> = {}, what = body.slice(0, 200)) {
    const before = await rows()
    const res = await t.app.inject({ method: 'POST', url: path, headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers }, payload: body })
    seen.requests++
    if (res.statusCode >= 500) seen.over499++
    assert.ok(res.statusCode < 500, `${path} ${what}: ${String(res.statusCode)} ${res.body.slice(0, 200)}`)
    assert.equal(res.headers['cache-control'], 'no-store', what)
    const json = res.json<{ error?: string; error_description?: string; active?: boolean }>()
    if (res.statusCode >= 400) {
      assert.ok(OAUTH_ERRORS.has(json.error ?? ''), `${path} ${what}: ${res.body.slice(0, 200)}`)
      assert.equal(typeof json.error_description, 'string')
      assert.equal(await rows(), before, `${path} ${what}: a refusal changed rows`)
    }
    return res
  }

  /** GET or POST /oauth/authorize as the signed-in user; the answer, checked. */
  async function authorize(method: 'GET' | 'POST', pairs: Pairs, what: string) {
    const before = await rows()
    const res = method === 'GET' ? await browser.get(`/oauth/authorize?${formOf(pairs)}`) : await browser.request('POST', '/oauth/authorize', formOf(pairs))
    seen.requests++
    if (res.status >= 500) seen.over499++
    assert.ok(res.status < 500, `${method} ${what}: ${String(res.status)} ${res.body.slice(0, 300)}`)
    if (res.status !== 303) assert.match(String(res.headers['content-type']), /^text\/html/, what)
    if (res.status >= 400) {
      assert.equal(res.location, undefined, what)
      assert.equal(await rows(), before, `${method} ${what}: a refusal changed rows`)
    }
    return res
  }

  test('/oauth/token, /oauth/revoke, /oauth/introspect: each field with NUL, a lone surrogate, a huge value, twice; each refused with invalid_request', async () => {
    for (const { path, base } of endpoints) {
      for (const [field] of base()) {
        for (const kind of CLASSES) {
          const res = await postJson(path, formOf(applied(base(), { field, ...kind })), {}, `${field} ${kind.name}`)
          assert.equal(res.statusCode, 400, `${path} ${field} ${kind.name}: ${res.body.slice(0, 200)}`)
          assert.equal(res.json<{ error: string }>().error, 'invalid_request', `${path} ${field} ${kind.name}`)
          if (kind.repeat) assert.match(res.json<{ error_description: string }>().error_description, /given more than once/)
        }
      }
      const huge = await postJson(path, formOf([...base(), ['pad', POST_HUGE]]), {}, 'a 100 KiB body')
      assert.equal(huge.statusCode, 413)
    }
  })

  test('the Basic credentials: NUL, a lone surrogate or a huge value in the client id or secret is invalid_client, never a 500', async () => {
    for (const kind of CLASSES.filter((c) => !c.repeat)) {
      for (const [user, pass] of [[kind.value, secret], [clientId, kind.value]]) {
        const header = `Basic ${Buffer.from(`${encode(user ?? '')}:${encode(pass ?? '')}`).toString('base64')}`
        for (const path of ['/oauth/token', '/oauth/revoke', '/oauth/introspect']) {
          const res = await postJson(path, 'grant_type=refresh_token&refresh_token=r&token=t', { authorization: header }, `Basic ${kind.name}`)
          assert.equal(res.statusCode, 401, `${path} Basic ${kind.name}: ${res.body}`)
          assert.equal(res.json<{ error: string }>().error, 'invalid_client')
        }
      }
    }
  })

  test('GET /oauth/authorize: each parameter with NUL, a lone surrogate, a huge value or twice is the error page, never the consent page or a redirect', async () => {
    for (const [field] of authorizeBase()) {
      for (const kind of CLASSES) {
        const res = await authorize('GET', applied(authorizeBase(), { field, ...kind }), `${field} ${kind.name}`)
        assert.equal(res.status, 400, `${field} ${kind.name}`)
        assert.match(res.body, /This authorization link cannot be used/)
      }
    }
  })

  test('POST /oauth/authorize (the consent form): each field with NUL, a lone surrogate, a huge value or twice is refused and makes no grant', async () => {
    const page = await browser.get(`/oauth/authorize?${formOf(authorizeBase())}`)
    assert.equal(page.status, 200)
    const base = (): Pairs => [['_csrf', csrfOf(page.body, '/oauth/authorize')], ...authorizeBase(), ['decision', 'allow']]
    for (const [field] of base()) {
      for (const kind of CLASSES) {
        const res = await authorize('POST', applied(base(), { field, ...kind }), `${field} ${kind.name}`)
        assert.ok(res.status >= 400, `${field} ${kind.name}: ${String(res.status)}`)
      }
    }
    const huge = await authorize('POST', [...base(), ['pad', POST_HUGE]], 'a 100 KiB body')
    assert.equal(huge.status, 413)
  })

  test('random mixes of the fuzz values over every field: no 5xx, the right body, no change on a refusal', async () => {
    const value = fc.oneof(fc.constantFrom(...hostileStrings.filter((s) => s.length <= 5000)), fc.string({ maxLength: 40 }), fc.string({ unit: 'binary', maxLength: 20 }))
    const changes = (fields: string[]) => fc.array(fc.record({ field: fc.constantFrom(...fields), value, repeat: fc.boolean() }), { minLength: 1, maxLength: 4 })
    for (const { path, base } of endpoints) {
      await fc.assert(
        fc.asyncProperty(changes(base().map(([name]) => name)), async (list) => {
          const pairs = list.reduce(applied, base())
          await postJson(path, formOf(pairs), {}, JSON.stringify(list).slice(0, 300))
        }),
        { seed: SEED, numRuns: RUNS },
      )
    }
    await fc.assert(
      fc.asyncProperty(changes(authorizeBase().map(([name]) => name)), async (list) => {
        const pairs = list.reduce(applied, authorizeBase())
        const res = await authorize('GET', pairs, JSON.stringify(list).slice(0, 300))
        if (list.some((change) => change.repeat)) assert.equal(res.status, 400, 'a repeated parameter is always refused')
      }),
      { seed: SEED, numRuns: RUNS },
    )
    assert.equal(seen.over499, 0, `${String(seen.over499)} of ${String(seen.requests)} answers were 5xx`)
  })
})
