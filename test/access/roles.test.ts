// The role matrix of the API (docs/access-control.md), every cell, generated from the route
// table: {admin, member} × {full access, webhooks:write, webhooks:read} × every operation.
// Full-access tokens keep today's behaviour everywhere but the webhook writes, which only
// admins may call.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { sql, rawRows } from '../helpers/sql.js'
import { seedDemoIfEmpty } from '../../src/demo/index.js'
import type { Scope } from '../../src/scopes.js'
import { systemActing } from '../../src/acting.js'
import { createToken } from '../../src/modules/auth/tokens.service.js'
import type { AccessRule } from '../../src/plugins/access.plugin.js'
import { asCompanyId } from '../../src/tenancy.js'
import { backends, startApp, type TestApp } from '../helpers/app.js'
import { addSubscription, addUser } from '../helpers/factories.js'
import { tableSnapshot } from '../helpers/snapshot.js'

type Role = 'admin' | 'member'
type Grant = 'full' | 'webhooks:write' | 'webhooks:read'
type Outcome = 'allowed' | 'forbidden_role' | 'insufficient_scope'

/** The matrix as docs/access-control.md states it. */
function expected(rule: AccessRule, role: Role, grant: Grant): Outcome {
  if (grant !== 'full') {
    const granted = grant === 'webhooks:write' ? ['webhooks:write', 'webhooks:read'] : ['webhooks:read']
    if (rule.scope !== 'none' && !granted.includes(rule.scope)) return 'insufficient_scope'
  }
  if (rule.role === 'admin' && role === 'member') return 'forbidden_role'
  return 'allowed'
}

for (const backend of backends()) {
  describe(`roles (${backend.name})`, () => {
    let t: TestApp
    let webhook: number
    let companyId: number
    let tables: string[]
    const tokens = {} as Record<Role, Record<Grant, string>>

    before(async () => {
      t = await startApp(backend)
      const demo = await seedDemoIfEmpty(t.db)
      if (!demo) throw new Error('no demo company')
      const [row] = await rawRows<{ company_id: number }>(t.db, sql`select company_id from users where id = ${demo.userId}`)
      companyId = row?.company_id ?? 0
      webhook = await addSubscription(t.db, asCompanyId(companyId))
      const member = await addUser(t.db, asCompanyId(companyId), { role: 'member' })
      for (const [role, userId] of [['admin', demo.userId], ['member', member.id]] as const) {
        const make = async (scopes?: Scope[]) => (await createToken(t.db, systemActing(), userId, { scopes })).token
        tokens[role] = { full: await make(), 'webhooks:write': await make(['webhooks:write']), 'webhooks:read': await make(['webhooks:read']) }
      }
      tables = (await rawRows<{ name: string }>(t.db, sql`select tablename as name from pg_tables where schemaname = 'public' order by 1`))
        .map((r) => r.name)
        .filter((name) => name !== 'api_tokens')
    })
    after(() => t.close())

    const requestOf = (rule: AccessRule) => {
      const url = rule.url.replace(':delivery_id', '1').replace(/^\/api\/v1\/webhooks\/:id/, `/api/v1/webhooks/${String(webhook)}`).replace(':id', '1')
      const method = rule.method as 'GET' | 'POST' | 'PUT' | 'DELETE'
      return { method, url, ...(method === 'POST' || method === 'PUT' ? { payload: {} } : {}) }
    }

    test('the admin-only operations are exactly the webhook writes (and the audit log)', () => {
      const webhooks = t.app.accessTable.filter((r) => r.role === 'admin' && r.scope === 'webhooks:write').map((r) => r.operationId).sort()
      assert.deepEqual(webhooks, ['createWebhook', 'deleteWebhook', 'retryWebhookDelivery', 'rotateWebhookSecret', 'testWebhook', 'updateWebhook'])
      for (const rule of t.app.accessTable) {
        assert.equal(rule.role === 'admin', rule.scope === 'webhooks:write' || rule.scope === 'audit:read', rule.operationId)
      }
    })

    // Refusals first (they must change nothing), then what is allowed (which may change things).
    for (const phase of ['refused', 'allowed'] as const) {
      test(`every cell: role × token × operation (${phase})`, async () => {
        let cells = 0
        for (const rule of t.app.accessTable) {
          for (const role of ['admin', 'member'] as const) {
            for (const grant of ['full', 'webhooks:write', 'webhooks:read'] as const) {
              const outcome = expected(rule, role, grant)
              if ((outcome === 'allowed') !== (phase === 'allowed')) continue
              cells++
              const cell = `${rule.operationId} as ${role} with ${grant}`
              const before = phase === 'refused' ? await tableSnapshot(t.db, tables) : undefined
              const res = await t.app.inject({ ...requestOf(rule), headers: { authorization: `Bearer ${tokens[role][grant]}` } })
              if (outcome === 'allowed') {
                assert.ok(res.statusCode !== 401 && res.statusCode !== 403 && res.statusCode < 500, `${cell}: ${String(res.statusCode)} ${res.body}`)
                continue
              }
              assert.equal(res.statusCode, 403, `${cell}: ${res.body}`)
              assert.equal(res.json().error.code, outcome, cell)
              if (outcome === 'forbidden_role') {
                assert.deepEqual(res.json().error, { status: 403, message: 'Only an admin of the company may do this', code: 'forbidden_role', request_id: res.headers['x-request-id'] })
              }
              assert.deepEqual(await tableSnapshot(t.db, tables), before, `${cell} changed nothing`)
            }
          }
        }
        assert.ok(cells > 20, `${String(cells)} cells`)
      })
    }

    test('a member\'s full-access token: creating a webhook is refused and makes nothing; creating a contact works as before', async () => {
      const [count] = await rawRows<{ n: number }>(t.db, sql`select count(*)::int as n from webhook_subscriptions where company_id = ${companyId}`)
      const res = await t.app.inject({ method: 'POST', url: '/api/v1/webhooks', headers: { authorization: `Bearer ${tokens.member.full}` }, payload: { url: 'https://hooks.example.com/x', events: ['*'] } })
      assert.equal(res.statusCode, 403)
      assert.equal(res.json().error.code, 'forbidden_role')
      const [after] = await rawRows<{ n: number }>(t.db, sql`select count(*)::int as n from webhook_subscriptions where company_id = ${companyId}`)
      assert.deepEqual(after, count, 'no subscription made')
      const contact = await t.app.inject({ method: 'POST', url: '/api/v1/contacts', headers: { authorization: `Bearer ${tokens.member.full}` }, payload: { first_name: 'Mia', email: 'mia@roles.example' } })
      assert.equal(contact.statusCode, 201)
    })
  })
}
