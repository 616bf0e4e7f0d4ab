import assert from 'node:assert/strict'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import { eq } from 'drizzle-orm'
import { buildApp } from '../../src/app.js'
import { openDatabase, type DatabaseHandle } from '../../src/db/client.js'
import { apiTokens, companies, users } from '../../src/db/schema.js'
import { backends, testConfig } from '../helpers/app.js'
import { adminEnv, runAdmin, type CliResult } from '../helpers/cli.js'

/** A command that succeeded with --json: exactly one JSON object on stdout, nothing on stderr. */
function json(result: CliResult): Record<string, unknown> {
  assert.equal(result.code, 0, result.stderr)
  assert.equal(result.stderr, '')
  assert.equal(result.stdout.trim().split('\n').length, 1, result.stdout)
  const value: unknown = JSON.parse(result.stdout)
  assert.ok(typeof value === 'object' && value !== null && !Array.isArray(value))
  return value as Record<string, unknown>
}

/** A command that failed: exit 1, one line on stderr, nothing on stdout. */
function failure(result: CliResult, pattern: RegExp) {
  assert.equal(result.code, 1, result.stdout)
  assert.equal(result.stdout, '')
  assert.equal(result.stderr.trim().split('\n').length, 1, result.stderr)
  assert.match(result.stderr, pattern)
}

for (const backend of backends()) {
  describe(`admin command line (${backend.name})`, () => {
    let env: Record<string, string>
    let cleanup: () => Promise<void>
    /** Opens the database the commands work on, for looking at what they left. */
    let inspect: () => Promise<DatabaseHandle>

    before(async () => {
      if (backend.name === 'postgres') {
        const opened = await backend.open()
        await opened.database.close()
        env = adminEnv({ url: opened.url })
        cleanup = opened.drop
        inspect = () => openDatabase({ databaseUrl: opened.url })
      } else {
        const dataDir = mkdtempSync(join(tmpdir(), 'engage-cli-'))
        env = adminEnv({ dataDir })
        cleanup = async () => {
          rmSync(dataDir, { recursive: true, force: true })
        }
        inspect = () => openDatabase({ dataDir })
      }
    })
    after(() => cleanup())

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
      const company = json(await runAdmin(['company', 'create', '--name', 'Acme', '--timezone', 'Europe/Lisbon', '--json'], env))
      assert.equal(company.name, 'Acme')
      assert.equal(company.timezone, 'Europe/Lisbon')
      assert.equal(typeof company.id, 'number')

      const user = json(
        await runAdmin(['user', 'create', '--company', String(company.id), '--name', 'Ana', '--email', 'ana@acme.example', '--role', 'admin', '--json'], env),
      )
      assert.deepEqual(
        { name: user.name, email: user.email, role: user.role, active: user.active },
        { name: 'Ana', email: 'ana@acme.example', role: 'admin', active: true },
      )

      const created = json(await runAdmin(['token', 'create', '--user', String(user.id), '--json'], env))
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

      const revoked = json(await runAdmin(['token', 'revoke', '--token', token, '--json'], env))
      assert.equal(typeof revoked.revoked_at, 'string')
      failure(await runAdmin(['token', 'revoke', '--token', token], env), /not found or already revoked/)

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

      failure(await runAdmin(['company', 'create', '--name', 'X', '--timezone', 'Mars/Base'], env), /timezone is not a known IANA time zone/)
      failure(await runAdmin(['company', 'create', '--name', '   '], env), /name can't be blank/)
      failure(await runAdmin(['company', 'create'], env), /--name is required/)
      failure(await runAdmin(['company', 'create', '--name', 'X', '--bogus', '1'], env), /bogus/)
      failure(await runAdmin(['company', 'explode'], env), /unknown command/)
      failure(
        await runAdmin(['user', 'create', '--company', String(company.id), '--name', 'Dup', '--email', 'ANA@acme.example'], env),
        /email has already been taken/,
      )
      failure(await runAdmin(['user', 'create', '--company', String(company.id), '--name', 'B', '--email', 'nope'], env), /email is invalid/)
      failure(await runAdmin(['user', 'create', '--company', String(company.id), '--name', 'B', '--email', 'b@x.io', '--role', 'boss'], env), /role/)
      failure(await runAdmin(['user', 'create', '--company', '999999', '--name', 'B', '--email', 'b@x.io'], env), /company 999999 not found/)
      failure(await runAdmin(['user', 'create', '--company', 'abc', '--name', 'B', '--email', 'b@x.io'], env), /company must be an integer/)
      failure(await runAdmin(['token', 'create', '--user', '999999'], env), /user 999999 not found/)

      const after = await inspect()
      try {
        assert.equal((await after.db.select().from(companies)).length, before.length)
        assert.equal((await after.db.select().from(users)).length, usersBefore.length)
      } finally {
        await after.close()
      }
    })

    if (backend.name === 'pglite') {
      test('the embedded database is not opened twice', async () => {
        const held = await inspect()
        try {
          failure(await runAdmin(['company', 'create', '--name', 'Y'], env), /in use by process/)
        } finally {
          await held.close()
        }
      })
    }
  })
}
