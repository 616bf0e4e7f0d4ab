import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { eq } from 'drizzle-orm'
import { buildApp } from '../../src/app.js'
import { apiTokens, companies, users } from '../../src/db/schema.js'
import { backends, testConfig } from '../helpers/app.js'
import { adminDatabase, expectFailure, expectJson, runAdmin, type AdminDatabase } from '../helpers/cli.js'

for (const backend of backends()) {
  describe(`admin command line (${backend.name})`, () => {
    let admin: AdminDatabase
    let env: Record<string, string>
    /** Opens the database the commands work on, for looking at what they left. */
    const inspect = () => admin.open()

    before(async () => {
      admin = await adminDatabase(backend)
      env = admin.env
    })
    after(() => admin.drop())

    test('help lists the commands; every command has --help', async () => {
      const general = await runAdmin(['--help'], env)
      assert.equal(general.code, 0)
      for (const name of ['company create', 'user create', 'token create', 'token revoke']) {
        assert.ok(general.stdout.includes(name), name)
      }
      const help = await runAdmin(['user', 'create', '--help'], env)
      assert.equal(help.code, 0)
      assert.match(help.stdout, /--company ID/)
      assert.match(help.stdout, /--json/)
    })

    test('company, user and token: created, usable, revoked', async () => {
      const company = expectJson(await runAdmin(['company', 'create', '--name', 'Acme', '--timezone', 'Europe/Lisbon', '--json'], env))
      assert.equal(company.name, 'Acme')
      assert.equal(company.timezone, 'Europe/Lisbon')
      assert.equal(typeof company.id, 'number')

      const user = expectJson(
        await runAdmin(['user', 'create', '--company', String(company.id), '--name', 'Ana', '--email', 'ana@acme.example', '--role', 'admin', '--json'], env),
      )
      assert.deepEqual(
        { name: user.name, email: user.email, role: user.role, active: user.active },
        { name: 'Ana', email: 'ana@acme.example', role: 'admin', active: true },
      )

      const created = expectJson(await runAdmin(['token', 'create', '--user', String(user.id), '--json'], env))
      const token = String(created.token)
      assert.match(token, /^eng_/)

      const readable = await runAdmin(['token', 'create', '--user', String(user.id)], env)
      assert.equal(readable.code, 0)
      assert.match(readable.stdout, /^token: eng_/m)

      let database = await inspect()
      try {
        const app = await buildApp(testConfig(), { database })
        const res = await app.inject({ url: '/api/v1/users/authorize_api', headers: { authorization: `Bearer ${token}` } })
        assert.equal(res.statusCode, 200)
        assert.equal(res.json().company.name, 'Acme')
        await app.close()
        const stored = await database.db.select().from(apiTokens).where(eq(apiTokens.userId, Number(user.id)))
        assert.equal(stored.length, 2)
        assert.ok(stored.every((row) => row.tokenHash !== token && row.revokedAt === null))
      } finally {
        await database.close()
      }

      const revoked = expectJson(await runAdmin(['token', 'revoke', '--token', token, '--json'], env))
      assert.equal(typeof revoked.revoked_at, 'string')
      expectFailure(await runAdmin(['token', 'revoke', '--token', token], env), /not found or already revoked/)

      database = await inspect()
      try {
        const app = await buildApp(testConfig(), { database })
        const res = await app.inject({ url: '/api/v1/users/authorize_api', headers: { authorization: `Bearer ${token}` } })
        assert.equal(res.statusCode, 401)
        await app.close()
      } finally {
        await database.close()
      }
    })

    test('bad input: exit 1, one line on stderr, nothing written', async () => {
      const database = await inspect()
      const before = await database.db.select().from(companies)
      const usersBefore = await database.db.select().from(users)
      await database.close()
      const [company] = before
      assert.ok(company, 'a company from the previous test')

      expectFailure(await runAdmin(['company', 'create', '--name', 'X', '--timezone', 'Mars/Base'], env), /timezone is not a known IANA time zone/)
      expectFailure(await runAdmin(['company', 'create', '--name', '   '], env), /name can't be blank/)
      expectFailure(await runAdmin(['company', 'create'], env), /--name is required/)
      expectFailure(await runAdmin(['company', 'create', '--name', 'X', '--bogus', '1'], env), /bogus/)
      expectFailure(await runAdmin(['company', 'explode'], env), /unknown command/)
      expectFailure(
        await runAdmin(['user', 'create', '--company', String(company.id), '--name', 'Dup', '--email', 'ANA@acme.example'], env),
        /email has already been taken/,
      )
      expectFailure(await runAdmin(['user', 'create', '--company', String(company.id), '--name', 'B', '--email', 'nope'], env), /email is invalid/)
      expectFailure(await runAdmin(['user', 'create', '--company', String(company.id), '--name', 'B', '--email', 'b@x.io', '--role', 'boss'], env), /role/)
      expectFailure(await runAdmin(['user', 'create', '--company', '999999', '--name', 'B', '--email', 'b@x.io'], env), /company 999999 not found/)
      expectFailure(await runAdmin(['user', 'create', '--company', 'abc', '--name', 'B', '--email', 'b@x.io'], env), /company must be an integer/)
      expectFailure(await runAdmin(['token', 'create', '--user', '999999'], env), /user 999999 not found/)

      const after = await inspect()
      try {
        assert.equal((await after.db.select().from(companies)).length, before.length)
        assert.equal((await after.db.select().from(users)).length, usersBefore.length)
      } finally {
        await after.close()
      }
    })
  })
}
