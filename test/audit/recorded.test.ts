// What the audit log records (issue 28): each action exactly once, with its actor, target,
// outcome, address, user agent and request id; in the transaction of the change (a change
// that fails after the record leaves neither); never a secret.
import assert from 'node:assert/strict'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir, userInfo } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import { transaction } from '../../src/db/db.js'
import { execute, rawRows, sql } from '../helpers/sql.js'
import { hashToken } from '../../src/modules/auth/tokens.service.js'
import { recordAudit } from '../../src/modules/audit/audit.service.js'
import { SYSTEM_CONTEXT } from '../../src/acting.js'
import { backends, startApp, type TestApp } from '../helpers/app.js'
import { runAdmin } from '../helpers/cli.js'
import { addUser, tenant, type Tenant } from '../helpers/factories.js'
import { addContact } from '../helpers/flows-factories.js'
import { Browser, csrfOf, member, PASSWORD } from '../web/helpers.js'
import { allAuditRows, onlyRecord, recordsOf } from './helpers.js'

const [backend] = backends()
if (!backend) throw new Error('no backend')

const IP = '203.0.113.7'
const AGENT = 'AuditTest/1.0'
const CLI_USER = userInfo().username
const secrets: string[] = []

describe('the audit log records', () => {
  let t: TestApp
  let acme: Tenant
  before(async () => {
    t = await startApp(backend, { config: { webhookAllowPrivate: true, signInLimit: { max: 3, windowMs: 60_000 } } })
    acme = await tenant(t.db)
    secrets.push(acme.token)
  })
  after(async () => {
    // Every secret this file made, searched for in every record it wrote.
    const rows = await allAuditRows(t.db)
    assert.ok(rows.length > 20)
    const text = JSON.stringify(rows)
    for (const secret of secrets) {
      assert.ok(secret.length >= 16)
      assert.ok(!text.includes(secret), 'a secret in an audit record')
      assert.ok(!text.includes(hashToken(secret)), 'a secret\'s hash in an audit record')
    }
    await t.close()
  })

  const api = (method: 'POST' | 'PUT' | 'DELETE', url: string, payload?: object, requestId = 'req-api-1') =>
    t.app.inject({
      method,
      url,
      remoteAddress: IP,
      headers: { ...acme.auth, 'user-agent': AGENT, 'x-request-id': requestId },
      ...(payload ? { payload } : {}),
    })

  test('webhook changes through the API: created, changed, paused, resumed, secret rotated, delivery replayed, deleted', async () => {
    const tokenActor = { actor_type: 'api_token', ip: IP, user_agent: AGENT, outcome: 'success' as const, reason: null }
    let id = 0
    const created = await onlyRecord(t.db, async () => {
      const res = await api('POST', '/api/v1/webhooks', { url: 'http://127.0.0.1:9/in', events: ['contact.created'] }, 'req-create')
      assert.equal(res.statusCode, 201, res.body)
      const body = res.json<{ id: number; secret: string }>()
      id = body.id
      secrets.push(body.secret)
    }, { action: 'webhook.created', target_type: 'webhook', target_label: 'http://127.0.0.1:9/in', request_id: 'req-create', ...tokenActor })
    assert.equal(created.target_id, id)
    assert.equal(created.company_id, acme.companyId)
    assert.match(created.actor_label ?? '', /^eng_.{8}… \(User \d+\)$/)
    assert.deepEqual(created.changes, { url: [null, 'http://127.0.0.1:9/in'], events: [null, ['contact.created']], description: [null, null] })

    const changed = await onlyRecord(t.db, async () => {
      assert.equal((await api('PUT', `/api/v1/webhooks/${id}`, { description: 'CRM', events: ['*'] })).statusCode, 200)
    }, { action: 'webhook.changed', target_id: id, ...tokenActor })
    assert.deepEqual(changed.changes, { events: [['contact.created'], ['*']], description: [null, 'CRM'] })

    await onlyRecord(t.db, async () => {
      assert.equal((await api('PUT', `/api/v1/webhooks/${id}`, { enabled: false })).statusCode, 200)
    }, { action: 'webhook.paused', target_id: id, changes: { enabled: [true, false] }, ...tokenActor })
    await onlyRecord(t.db, async () => {
      assert.equal((await api('PUT', `/api/v1/webhooks/${id}`, { enabled: true })).statusCode, 200)
    }, { action: 'webhook.resumed', target_id: id, changes: { enabled: [false, true] }, ...tokenActor })
    // Nothing changed: nothing recorded.
    assert.deepEqual(await recordsOf(t.db, () => api('PUT', `/api/v1/webhooks/${id}`, { enabled: true })), [])

    const rotated = await onlyRecord(t.db, async () => {
      const res = await api('POST', `/api/v1/webhooks/${id}/rotate_secret`, {})
      assert.equal(res.statusCode, 200)
      secrets.push(res.json<{ secret: string }>().secret)
    }, { action: 'webhook.secret_rotated', target_id: id, target_label: 'http://127.0.0.1:9/in', ...tokenActor })
    assert.deepEqual(Object.keys(rotated.changes ?? {}), ['previous_secret_expires_at'])

    const ping = await api('POST', `/api/v1/webhooks/${id}/test`, {})
    assert.equal(ping.statusCode, 202)
    const deliveryId = ping.json<{ id: number }>().id
    await onlyRecord(t.db, async () => {
      assert.equal((await api('POST', `/api/v1/webhooks/${id}/deliveries/${deliveryId}/retry`, {})).statusCode, 202)
    }, { action: 'webhook.delivery_replayed', target_id: id, target_label: 'http://127.0.0.1:9/in', changes: { delivery_id: [null, deliveryId], event_type: [null, 'ping'] }, ...tokenActor })

    await onlyRecord(t.db, async () => {
      assert.equal((await api('DELETE', `/api/v1/webhooks/${id}`)).statusCode, 204)
    }, { action: 'webhook.deleted', target_id: id, target_label: 'http://127.0.0.1:9/in', ...tokenActor })
    // A refused change (404) records nothing.
    assert.deepEqual(await recordsOf(t.db, () => api('DELETE', `/api/v1/webhooks/${id}`)), [])
  })

  test('web sign-in: succeeded, refused for a wrong password, a deactivated user, over the rate limit; sign-out', async () => {
    const ana = await member(t.db, acme.companyId, { email: 'ana@audit.example', name: 'Ana' })
    secrets.push(PASSWORD)
    const browser = new Browser(t.app, IP)
    const as = { actor_type: 'user', actor_id: ana.id, actor_label: 'Ana', target_type: 'user', target_id: ana.id, ip: IP }

    await onlyRecord(t.db, async () => {
      const res = await browser.signIn('ana@audit.example', 'not the password at all')
      assert.equal(res.status, 401)
    }, { action: 'user.sign_in_refused', outcome: 'failure', reason: 'wrong_password', ...as })
    const signedIn = await onlyRecord(t.db, async () => {
      const res = await browser.signIn('ana@audit.example')
      assert.equal(res.status, 303)
    }, { action: 'user.signed_in', outcome: 'success', reason: null, ...as })
    assert.equal(signedIn.user_agent, 'lightMyRequest')
    assert.match(signedIn.request_id ?? '', /\S/)

    await onlyRecord(t.db, async () => {
      const res = await browser.submit('/settings/integrations', '/logout')
      assert.equal(res.status, 303)
    }, { action: 'user.signed_out', ...as })

    // Over the limit (3 a minute per address here): refused before any password check.
    await onlyRecord(t.db, async () => {
      assert.equal((await browser.signIn('ana@audit.example', 'wrong once more')).status, 401)
    }, { action: 'user.sign_in_refused', reason: 'wrong_password', ...as })
    const limited = await onlyRecord(t.db, async () => {
      const page = await browser.get('/login')
      const res = await browser.request('POST', '/login', { email: 'ana@audit.example', password: PASSWORD, _csrf: csrfOf(page.body) })
      assert.equal(res.status, 429)
    }, { action: 'user.sign_in_refused', outcome: 'failure', reason: 'rate_limited', ...as })
    assert.equal(limited.changes, null)

    const bob = await member(t.db, acme.companyId, { email: 'bob@audit.example', name: 'Bob' })
    await runAdmin(['user', 'deactivate', '--user', String(bob.id)], { database: t.db })
    await onlyRecord(t.db, async () => {
      const res = await new Browser(t.app, '198.51.100.9').signIn('bob@audit.example')
      assert.equal(res.status, 401)
    }, { action: 'user.sign_in_refused', reason: 'deactivated', actor_id: bob.id, target_id: bob.id, ip: '198.51.100.9' })
    // An email no account has names no company: nothing to record.
    assert.deepEqual(await recordsOf(t.db, () => new Browser(t.app, '198.51.100.10').signIn('nobody@audit.example')), [])
  })

  test('web tokens: created and revoked by the signed-in user, from the address of the request', async () => {
    await member(t.db, acme.companyId, { email: 'cy@audit.example', name: 'Cy' })
    const browser = new Browser(t.app, '192.0.2.44')
    assert.equal((await browser.signIn('cy@audit.example')).status, 303)
    const created = await onlyRecord(t.db, async () => {
      const res = await browser.submit('/settings/integrations', '/settings/integrations/tokens', { label: 'CRM sync' })
      assert.equal(res.status, 303)
      const page = await browser.get('/settings/integrations')
      const token = /(eng_[A-Za-z0-9_-]{32})/.exec(page.body)?.[1]
      assert.ok(token)
      secrets.push(token)
    }, { action: 'api_token.created', actor_type: 'user', actor_label: 'Cy', target_label: 'CRM sync', ip: '192.0.2.44' })
    assert.deepEqual(created.changes, { user_id: [null, created.actor_id], label: [null, 'CRM sync'], scopes: [null, ['*']], expires_at: [null, null] })
    await onlyRecord(t.db, async () => {
      const url = `/settings/integrations/tokens/${String(created.target_id)}/revoke`
      const res = await browser.submit(url, url)
      assert.equal(res.status, 303)
    }, { action: 'api_token.revoked', actor_label: 'Cy', target_id: created.target_id, target_label: 'CRM sync', ip: '192.0.2.44' })
  })

  test('the admin command line: actor cli with the system user, for every command that changes accounts', async () => {
    const cli = { actor_type: 'cli', actor_id: null, actor_label: CLI_USER, ip: null, user_agent: null, request_id: null }
    const admin = async (...args: string[]) => {
      const result = await runAdmin([...args, '--json'], { database: t.db })
      assert.equal(result.code, 0, result.stderr)
      return JSON.parse(result.stdout) as Record<string, unknown>
    }
    let companyId = 0
    const company = await onlyRecord(t.db, async () => {
      companyId = (await admin('company', 'create', '--name', 'Globex', '--timezone', 'Europe/Lisbon')).id as number
    }, { action: 'company.created', target_label: 'Globex', ...cli })
    assert.equal(company.company_id, companyId)
    assert.deepEqual(company.changes, { name: [null, 'Globex'], timezone: [null, 'Europe/Lisbon'] })
    let userId = 0
    const user = await onlyRecord(t.db, async () => {
      userId = (await admin('user', 'create', '--company', String(companyId), '--name', 'Gil', '--email', 'gil@globex.example', '--role', 'admin')).id as number
    }, { action: 'user.created', target_label: 'Gil', ...cli })
    assert.deepEqual(user.changes, { name: [null, 'Gil'], email: [null, 'gil@globex.example'], role: [null, 'admin'] })
    let token = ''
    await onlyRecord(t.db, async () => {
      token = (await admin('token', 'create', '--user', String(userId))).token as string
      secrets.push(token)
    }, { action: 'api_token.created', company_id: companyId, ...cli })
    await onlyRecord(t.db, () => admin('token', 'revoke', '--token', token), { action: 'api_token.revoked', company_id: companyId, ...cli })
    await onlyRecord(t.db, async () => {
      secrets.push((await admin('user', 'set-password', '--user', String(userId), '--generate')).password as string)
    }, { action: 'user.password_set', target_id: userId, changes: null, ...cli })
    let link = ''
    const invited = await onlyRecord(t.db, async () => {
      link = (await admin('user', 'invite', '--user', String(userId))).url as string
      secrets.push(link.split('/').at(-1) ?? '')
    }, { action: 'user.invite_created', target_id: userId, ...cli })
    assert.deepEqual(Object.keys(invited.changes ?? {}), ['invite_expires_at'])
    // The invite used: its user acts, from the browser's address.
    await onlyRecord(t.db, async () => {
      const browser = new Browser(t.app, '192.0.2.80')
      const path = new URL(link).pathname
      const res = await browser.submit(path, path, { password: 'another long passphrase', confirm: 'another long passphrase' })
      assert.equal(res.status, 303)
      secrets.push('another long passphrase')
    }, { action: 'user.invite_used', actor_type: 'user', actor_id: userId, actor_label: 'Gil', target_id: userId, ip: '192.0.2.80' })
    await onlyRecord(t.db, () => admin('user', 'deactivate', '--user', String(userId)), { action: 'user.deactivated', changes: { active: [true, false] }, ...cli })
    await onlyRecord(t.db, () => admin('user', 'activate', '--user', String(userId)), { action: 'user.reactivated', changes: { active: [false, true] }, ...cli })
  })

  test('the admin commands that write business data: flow create, task create and complete, whatsapp import', async () => {
    const cli = { actor_type: 'cli', actor_label: CLI_USER, ip: null, company_id: acme.companyId }
    const folder = mkdtempSync(join(tmpdir(), 'engage-audit-'))
    try {
      const admin = async (...args: string[]) => {
        const result = await runAdmin([...args, '--json'], { database: t.db })
        assert.equal(result.code, 0, result.stderr)
        return JSON.parse(result.stdout) as Record<string, unknown>
      }
      const steps = join(folder, 'steps.json')
      writeFileSync(steps, JSON.stringify([{ day: 0, kind: 'email', title: 'Hello' }]))
      const flow = await onlyRecord(t.db, () => admin('flow', 'create', '--company', String(acme.companyId), '--user', String(acme.userId), '--name', 'Onboarding', '--steps', steps),
        { action: 'flow.created', target_label: 'Onboarding', ...cli })
      assert.deepEqual(flow.changes, { name: [null, 'Onboarding'], user_id: [null, acme.userId], status: [null, 'active'], steps: [null, 1] })
      const contact = await addContact(t.db, acme.companyId, { userId: acme.userId })
      let taskId = 0
      await onlyRecord(t.db, async () => {
        taskId = (await admin('task', 'create', '--contact', String(contact.id), '--kind', 'phonecall', '--due', '2026-12-01', '--title', 'Call back')).id as number
      }, { action: 'task.created', target_label: 'Call back', ...cli })
      await onlyRecord(t.db, () => admin('task', 'complete', '--id', String(taskId)), { action: 'task.completed', target_id: taskId, changes: { done: [false, true] }, ...cli })
      const file = join(folder, 'messages.jsonl')
      writeFileSync(file, `${JSON.stringify({ contact_id: contact.id, user_id: acme.userId, direction: 'inbound', body: 'Hi', status: 'received', sent_at: '2026-11-20T10:00:00Z' })}\n`)
      await onlyRecord(t.db, () => admin('whatsapp', 'import', '--company', String(acme.companyId), '--file', file),
        { action: 'whatsapp_messages.imported', changes: { imported: [null, 1] }, ...cli })
    } finally {
      rmSync(folder, { recursive: true, force: true })
    }
  })

  test('same transaction: a change that fails after its record leaves neither', async () => {
    const user = await addUser(t.db, acme.companyId)
    // The record fails (a trigger raises after the row is in): the revocation is undone too.
    await execute(t.db, sql.raw(`
      create function audit_refuse() returns trigger language plpgsql as $$ begin raise exception 'refused'; end $$;
      create trigger audit_refuse after insert on audit_events for each row when (new.action = 'api_token.revoked') execute function audit_refuse();`))
    try {
      const res = await runAdmin(['token', 'create', '--user', String(user.id), '--json'], { database: t.db })
      const { token, id } = JSON.parse(res.stdout) as { token: string; id: number }
      secrets.push(token)
      const revoke = await runAdmin(['token', 'revoke', '--token', token], { database: t.db })
      assert.equal(revoke.code, 1)
      const [row] = await rawRows<{ revoked_at: Date | null }>(t.db, sql`select revoked_at from api_tokens where token_hash = ${hashToken(token)}`)
      assert.equal(row?.revoked_at, null)
      const records = await rawRows(t.db, sql`select 1 from audit_events where action = 'api_token.revoked' and target_id = ${id}`)
      assert.equal(records.length, 0)
    } finally {
      await execute(t.db, sql.raw('drop trigger audit_refuse on audit_events; drop function audit_refuse()'))
    }
    // And the other way: a transaction that records, then fails, keeps no record.
    await assert.rejects(
      transaction(t.db, async (tx) => {
        await recordAudit(tx, acme.companyId, SYSTEM_CONTEXT, { action: 'user.deactivated', target: { id: user.id, label: 'x' } })
        throw new Error('the change failed')
      }),
    )
    const left = await rawRows(t.db, sql`select 1 from audit_events where action = 'user.deactivated' and target_id = ${user.id}`)
    assert.equal(left.length, 0)
  })
})
