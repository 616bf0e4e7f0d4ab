// `user set-role` and `company set-timezone`: the admin commands that change a user's role and
// a company's settings, each recorded in the audit log (user.changed, company.settings_changed).
// A role applies to the API at once, even to a token the server has cached.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { buildApp, type App } from '../../src/app.js'
import { systemActing } from '../../src/acting.js'
import { createToken } from '../../src/modules/auth/tokens.service.js'
import { asCompanyId } from '../../src/tenancy.js'
import { recordsOf } from '../audit/helpers.js'
import { backends, testConfig } from '../helpers/app.js'
import { adminDatabase, expectFailure, expectJson, type AdminDatabase } from '../helpers/cli.js'
import { addUser } from '../helpers/factories.js'

for (const backend of backends()) {
  describe(`admin settings commands (${backend.name})`, () => {
    let admin: AdminDatabase
    let app: App
    before(async () => {
      admin = await adminDatabase(backend)
      app = await buildApp(testConfig({ webhookAllowPrivate: true }), { database: admin.handle })
    })
    after(async () => {
      await app.close()
      await admin.drop()
    })

    test('user set-role: the user as the API shows it, one user.changed record; the same role again, none; applies at once', async () => {
      const company = expectJson(await admin.run(['company', 'create', '--name', 'Initech', '--json']))
      const companyId = asCompanyId(company.id as number)
      const user = await addUser(admin.db, companyId, { name: 'Milton', role: 'member' })
      const { token } = await createToken(admin.db, systemActing(), user.id)
      const auth = { authorization: `Bearer ${token}` }
      const subscribe = () => app.inject({ method: 'POST', url: '/api/v1/webhooks', headers: auth, payload: { url: 'http://127.0.0.1:9/in', events: ['tag.created'] } })
      assert.equal((await subscribe()).statusCode, 403, 'a member: the token is now cached with that role')

      let shown: Record<string, unknown> = {}
      const rows = await recordsOf(admin.db, async () => {
        shown = expectJson(await admin.run(['user', 'set-role', '--user', String(user.id), '--role', 'admin', '--json']))
      })
      assert.deepEqual({ id: shown.id, role: shown.role, name: shown.name }, { id: user.id, role: 'admin', name: 'Milton' })
      assert.deepEqual(rows.map((row) => ({ action: row.action, actor: row.actor_type, target: [row.target_type, row.target_id, row.target_label], changes: row.changes, company: row.company_id })), [
        { action: 'user.changed', actor: 'cli', target: ['user', user.id, 'Milton'], changes: { role: ['member', 'admin'] }, company: companyId },
      ])
      // The announcement reaches this server's cache at once (NOTIFY); allow it a moment.
      let res = await subscribe()
      for (let i = 0; i < 50 && res.statusCode === 403; i++) {
        await new Promise((resolve) => setTimeout(resolve, 20))
        res = await subscribe()
      }
      assert.equal(res.statusCode, 201, res.body)

      assert.deepEqual(await recordsOf(admin.db, async () => {
        assert.equal(expectJson(await admin.run(['user', 'set-role', '--user', String(user.id), '--role', 'admin', '--json'])).role, 'admin')
      }), [], 'the same role: nothing changed, nothing recorded')
      expectFailure(await admin.run(['user', 'set-role', '--user', String(user.id), '--role', 'owner']), /^admin: --role must be admin or member\n$/)
      expectFailure(await admin.run(['user', 'set-role', '--user', '999999', '--role', 'admin']), /^admin: user 999999 not found\n$/)
    })

    test('company set-timezone: the company, one company.settings_changed record; a bad zone or company, exit 1 and nothing', async () => {
      const company = expectJson(await admin.run(['company', 'create', '--name', 'Globex', '--timezone', 'Europe/Lisbon', '--json']))
      const id = String(company.id)
      let shown: Record<string, unknown> = {}
      const rows = await recordsOf(admin.db, async () => {
        shown = expectJson(await admin.run(['company', 'set-timezone', '--company', id, '--timezone', 'America/Sao_Paulo', '--json']))
      })
      assert.deepEqual({ id: shown.id, name: shown.name, timezone: shown.timezone }, { id: company.id, name: 'Globex', timezone: 'America/Sao_Paulo' })
      assert.deepEqual(rows.map((row) => ({ action: row.action, actor: row.actor_type, target: [row.target_type, row.target_id, row.target_label], changes: row.changes })), [
        { action: 'company.settings_changed', actor: 'cli', target: ['company', company.id, 'Globex'], changes: { timezone: ['Europe/Lisbon', 'America/Sao_Paulo'] } },
      ])
      const none = await recordsOf(admin.db, async () => {
        expectJson(await admin.run(['company', 'set-timezone', '--company', id, '--timezone', 'America/Sao_Paulo', '--json']))
        expectFailure(await admin.run(['company', 'set-timezone', '--company', id, '--timezone', 'Mars/Base']), /^admin: --timezone is not a known IANA time zone \(Area\/City\)\n$/)
        expectFailure(await admin.run(['company', 'set-timezone', '--company', '999999', '--timezone', 'UTC']), /^admin: company 999999 not found\n$/)
      })
      assert.deepEqual(none, [])
      const listed = (await admin.run(['company', 'list', '--json'])).stdout
      assert.match(listed, /"timezone":"America\/Sao_Paulo"/)
    })
  })
}
