// Scopes, generated from the one route table (app.accessTable, filled from each route's
// config.scope as the app starts): for every operation, a token with exactly its scope gets
// past the check, and a token with every other scope gets 403 insufficient_scope naming it,
// with nothing of the request run. A new route without a scope stops the app at start, and a
// new route with one is covered here without writing anything.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { sql, rawRows } from '../helpers/sql.js'
import { seedDemoIfEmpty } from '../../src/demo/index.js'
import { acceptedScopes, NO_SCOPE, SCOPES, type Scope } from '../../src/scopes.js'
import { systemActing } from '../../src/acting.js'
import { createToken } from '../../src/modules/auth/tokens.service.js'
import { accessRuleOf, type AccessRule } from '../../src/plugins/access.plugin.js'
import { asCompanyId } from '../../src/tenancy.js'
import { backends, startApp, type TestApp } from '../helpers/app.js'
import { addSubscription } from '../helpers/factories.js'
import { tableSnapshot } from '../helpers/snapshot.js'

/** The request of an operation: its path with real ids of the demo company, an empty body. */
function requestOf(rule: AccessRule, ids: { webhook: number }) {
  const url = rule.url.replace(':delivery_id', '1').replace(/^\/api\/v1\/webhooks\/:id/, `/api/v1/webhooks/${String(ids.webhook)}`).replace(':id', '1')
  const method = rule.method as 'GET' | 'POST' | 'PUT' | 'DELETE'
  const withBody = method === 'POST' || method === 'PUT'
  return { method, url, ...(withBody ? { payload: {} } : {}) }
}

const allTables = async (t: TestApp) =>
  (await rawRows<{ name: string }>(t.db, sql`select tablename as name from pg_tables where schemaname = 'public' order by 1`)).map((r) => r.name)

for (const backend of backends()) {
  describe(`scopes (${backend.name})`, () => {
    let t: TestApp
    let userId: number
    let webhook: number
    let tables: string[]
    const tokens = new Map<string, string>()

    /** A token of the demo admin with exactly these scopes (made once per set). */
    async function tokenWith(scopes: readonly Scope[]): Promise<string> {
      const key = scopes.join(',')
      let token = tokens.get(key)
      if (!token) {
        token = (await createToken(t.db, systemActing(), userId, { scopes })).token
        tokens.set(key, token)
      }
      return token
    }

    before(async () => {
      t = await startApp(backend)
      const demo = await seedDemoIfEmpty(t.db)
      if (!demo) throw new Error('no demo company')
      userId = demo.userId
      const [company] = await rawRows<{ company_id: number }>(t.db, sql`select company_id from users where id = ${userId}`)
      webhook = await addSubscription(t.db, asCompanyId(company?.company_id ?? 0))
      // api_tokens.last_used_at is written by a timer: not part of "nothing changed".
      tables = (await allTables(t)).filter((name) => name !== 'api_tokens')
    })
    after(() => t.close())

    test('every /api operation declares a scope of the catalogue; the table has every operation once', () => {
      const rules = t.app.accessTable
      assert.ok(rules.length >= 46, `${String(rules.length)} operations`)
      const ids = rules.map((r) => r.operationId)
      assert.equal(new Set(ids).size, ids.length)
      for (const rule of rules) {
        assert.ok(rule.scope === NO_SCOPE || (SCOPES as readonly string[]).includes(rule.scope), rule.operationId)
        assert.ok(rule.operationId !== '', `${rule.method} ${rule.url} has an operationId`)
      }
      // Only authorize_api needs no scope.
      assert.deepEqual(rules.filter((r) => r.scope === NO_SCOPE).map((r) => r.operationId), ['authorizeApi'])
      // The write operations of the reference take a write scope, the reads a read scope.
      for (const rule of rules) {
        if (rule.scope === NO_SCOPE) continue
        assert.equal(rule.scope.endsWith(':write'), rule.method !== 'GET', rule.operationId)
      }
    })

    test('a route without a scope, or with one not in the catalogue, stops the app at start (the route hook throws)', () => {
      const route = (config: object) => ({ method: 'GET', url: '/v1/new', config, schema: { operationId: 'newThing' }, handler: () => ({}) })
      assert.throws(() => accessRuleOf(route({})), /GET \/v1\/new: every \/api route declares its scope/)
      assert.throws(() => accessRuleOf(route({ scope: 'contacts:delete' })), /got "contacts:delete"/)
      assert.throws(() => accessRuleOf(route({ scope: 'contacts:read', role: 'owner' })), /config.role/)
      assert.deepEqual(accessRuleOf(route({ scope: 'tags:read' })), { method: 'GET', url: '/v1/new', operationId: 'newThing', scope: 'tags:read', role: undefined })
    })

    test('the OpenAPI document carries each operation\'s scope as its security requirement', async () => {
      const doc = (await t.app.inject({ url: '/docs/v1/openapi.json' })).json()
      // The route hook saw every operation of the API (the one that refuses a route without a scope).
      const documented = Object.entries(doc.paths as Record<string, Record<string, unknown>>)
        .filter(([path]) => path.startsWith('/api/'))
        .flatMap(([path, ops]) => Object.keys(ops).map((method) => `${method.toUpperCase()} ${path}`))
      const tabled = t.app.accessTable.map((r) => `${r.method} ${r.url.replace(/:([a-z_]+)/g, '{$1}')}`)
      assert.deepEqual([...tabled].sort(), documented.sort())
      for (const rule of t.app.accessTable) {
        const path = rule.url.replace(/:([a-z_]+)/g, '{$1}')
        const op = doc.paths[path][rule.method.toLowerCase()]
        const needs = rule.scope === NO_SCOPE ? [] : [rule.scope]
        assert.deepEqual(op.security, [{ bearerToken: needs }, { queryToken: needs }], rule.operationId)
        if (rule.scope !== NO_SCOPE) {
          assert.ok(op.responses['403'], `${rule.operationId} documents its 403`)
          assert.match(op.description, new RegExp(`Scope: \`${rule.scope}\``), rule.operationId)
        }
      }
    })

    test('a token with exactly the operation\'s scope gets past the check (every operation)', async () => {
      for (const rule of t.app.accessTable) {
        const token = await tokenWith(rule.scope === NO_SCOPE ? ['contacts:read'] : [rule.scope])
        const res = await t.app.inject({ ...requestOf(rule, { webhook }), headers: { authorization: `Bearer ${token}` } })
        assert.ok(res.statusCode !== 401 && res.statusCode !== 403 && res.statusCode < 500, `${rule.operationId}: ${String(res.statusCode)} ${res.body}`)
        assert.equal(res.headers['x-accepted-scopes'], acceptedScopes(rule.scope).join(', '), rule.operationId)
      }
    })

    test('write implies read: a token with only the write scope may call every read operation of its resource', async () => {
      for (const rule of t.app.accessTable) {
        if (rule.scope === NO_SCOPE || !rule.scope.endsWith(':read')) continue
        const write = rule.scope.replace(/:read$/, ':write') as Scope
        if (!(SCOPES as readonly string[]).includes(write)) continue
        const res = await t.app.inject({ ...requestOf(rule, { webhook }), headers: { authorization: `Bearer ${await tokenWith([write])}` } })
        assert.ok(res.statusCode !== 403 && res.statusCode < 500, `${rule.operationId} with ${write}: ${String(res.statusCode)}`)
      }
    })

    test('a token with every other scope: 403 insufficient_scope naming the scope, nothing run, one request of the rate limit (every operation)', async () => {
      for (const rule of t.app.accessTable) {
        if (rule.scope === NO_SCOPE) continue
        const accepted = new Set<string>(acceptedScopes(rule.scope))
        const token = await tokenWith(SCOPES.filter((scope) => !accepted.has(scope)))
        const before = await tableSnapshot(t.db, tables)
        const headers = { authorization: `Bearer ${token}`, 'idempotency-key': `scope-${rule.operationId}` }
        const first = await t.app.inject({ ...requestOf(rule, { webhook }), headers })
        assert.equal(first.statusCode, 403, `${rule.operationId}: ${first.body}`)
        const body = first.json()
        assert.deepEqual(body, {
          error: {
            status: 403,
            message: `This api_token lacks the scope ${rule.scope}`,
            code: 'insufficient_scope',
            details: { scope: [rule.scope] },
            detail_codes: { scope: ['missing_scope'] },
            request_id: first.headers['x-request-id'],
          },
        }, rule.operationId)
        assert.equal(first.headers['x-accepted-scopes'], acceptedScopes(rule.scope).join(', '))
        // The usual count, nothing more: the next request has exactly one fewer left.
        const second = await t.app.inject({ ...requestOf(rule, { webhook }), headers })
        assert.equal(second.statusCode, 403, 'the key was not claimed: no replay, no 409')
        assert.equal(Number(second.headers['x-ratelimit-remaining']), Number(first.headers['x-ratelimit-remaining']) - 1, rule.operationId)
        assert.deepEqual(await tableSnapshot(t.db, tables), before, `${rule.operationId} changed nothing`)
      }
    })

    test('authorize_api answers any token, with its scopes (the chosen set, as stored)', async () => {
      const token = await tokenWith(['tasks:write', 'contacts:read'])
      const res = await t.app.inject({ url: '/api/v1/users/authorize_api', headers: { authorization: `Bearer ${token}` } })
      assert.equal(res.statusCode, 200)
      assert.deepEqual(res.json().token, { scopes: ['contacts:read', 'tasks:write'], kind: 'personal', expires_at: null, app: null })
      assert.equal(res.headers['x-accepted-scopes'], '')
    })
  })
}
