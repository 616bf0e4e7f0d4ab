// company, user and token commands, the help and the messages: in this process on the test's
// database; the exit code and the shape of stdout and stderr once each in a child process.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { buildApp } from '../../src/app.js'
import { commands } from '../../src/cli/commands.js'
import { backends, testConfig } from '../helpers/app.js'
import { adminDatabase, expectFailure, expectJson, expectList, runAdmin, spawnAdmin, type AdminDatabase } from '../helpers/cli.js'
import { rawRows, sql } from '../helpers/sql.js'

test('every option of every command has its help: a description, and the value it takes unless it is a switch', () => {
  for (const command of commands) {
    for (const [name, schema] of Object.entries(command.input.properties)) {
      const { description, placeholder, type } = schema as { description?: string; placeholder?: string; type?: unknown }
      assert.ok(description, `${command.name} --${name}: no description`)
      assert.ok(type === 'boolean' || placeholder, `${command.name} --${name}: no placeholder`)
    }
  }
})

for (const backend of backends()) {
  describe(`admin command line (${backend.name})`, () => {
    let admin: AdminDatabase

    before(async () => {
      admin = await adminDatabase(backend)
    })
    after(() => admin.drop())

    const authorize = async (token: string) => {
      const app = await buildApp(testConfig(), { database: admin.handle })
      try {
        return await app.inject({ url: '/api/v1/users/authorize_api', headers: { authorization: `Bearer ${token}` } })
      } finally {
        await app.close()
      }
    }

    test('help: every command, a resource alone lists its actions, every command has --help', async () => {
      const general = await admin.run(['--help'])
      assert.equal(general.code, 0)
      for (const name of ['company create', 'company set-timezone', 'company list', 'user create', 'user set-role', 'user list', 'token create', 'token revoke', 'flow create', 'task create', 'whatsapp import']) {
        assert.ok(general.stdout.includes(name), name)
      }
      // The summaries start in one column, whatever the length of a command's name.
      const columns = general.stdout.split('\n').filter((line) => /^ {2}\S+ \S+ {2}/.test(line)).map((line) => /^ {2}\S+ \S+ +/.exec(line)?.[0].length)
      assert.ok(columns.length > 10, general.stdout)
      assert.deepEqual(new Set(columns).size, 1, general.stdout)
      assert.match(general.stdout, /^ {2}company set-timezone {2}Change the time zone/m)
      const none = await admin.run([])
      assert.equal(none.code, 1, 'no command ran')
      assert.equal(none.stdout, general.stdout)

      const group = await admin.run(['company'])
      assert.equal(group.code, 1)
      assert.equal(group.stderr, '')
      assert.match(group.stdout, /^Usage: npx engage-admin company <action>/)
      assert.match(group.stdout, /^ {2}company create +Create a company/m)
      assert.match(group.stdout, /^ {2}company list +List the companies/m)
      assert.doesNotMatch(group.stdout, /user create/)
      const groupHelp = await admin.run(['user', '--help'])
      assert.equal(groupHelp.code, 0)
      assert.match(groupHelp.stdout, /user list/)

      const help = await admin.run(['user', 'create', '--help'])
      assert.equal(help.code, 0)
      assert.match(help.stdout, /^Usage: npx engage-admin user create --company ID --name N --email E \[--role admin\|member\] \[--json\]$/m)
      assert.match(help.stdout, /--json +print exactly one JSON object on stdout$/m)
      const list = await admin.run(['user', 'list', '--help'])
      assert.match(list.stdout, /--json +print exactly one JSON object on stdout \(\{"data": \[\.\.\.\]\}\)$/m)
      const flow = await admin.run(['flow', 'create', '--help'])
      assert.match(flow.stdout, /--steps FILE\|JSON/)
      assert.match(flow.stdout, /a file holding a JSON array .*, or that array itself/)
    })

    test('company, user and token: created, listed, usable, revoked', async () => {
      const company = expectJson(await admin.run(['company', 'create', '--name', 'Acme', '--timezone', 'Europe/Lisbon', '--json']))
      assert.equal(company.name, 'Acme')
      assert.equal(company.timezone, 'Europe/Lisbon')
      assert.equal(typeof company.id, 'number')
      const empty = expectJson(await admin.run(['company', 'create', '--name', 'Empty Co', '--json']))
      assert.equal(empty.timezone, 'UTC')

      const user = expectJson(
        await admin.run(['user', 'create', '--company', String(company.id), '--name', 'Ana', '--email', 'ana@acme.example', '--role', 'admin', '--json']),
      )
      assert.deepEqual(
        { name: user.name, email: user.email, role: user.role, active: user.active },
        { name: 'Ana', email: 'ana@acme.example', role: 'admin', active: true },
      )
      const bruno = expectJson(await admin.run(['user', 'create', '--company', String(company.id), '--name', 'Bruno', '--email', 'bruno@acme.example', '--json']))
      assert.equal(bruno.role, 'member')

      // Lists: one JSON object {"data": [...]} with --json, a table otherwise.
      const listed = expectList(await admin.run(['company', 'list', '--json']))
      assert.deepEqual(
        listed.map((c) => [c.id, c.name, c.timezone, c.users_count]),
        [
          [company.id, 'Acme', 'Europe/Lisbon', 2],
          [empty.id, 'Empty Co', 'UTC', 0],
        ],
      )
      assert.match(String(listed[0]?.created_at), /^\d{4}-\d\d-\d\dT/)
      const table = await admin.run(['company', 'list'])
      assert.equal(table.code, 0)
      const [header, ...rows] = table.stdout.trimEnd().split('\n')
      assert.match(header ?? '', /^id +name +timezone +users_count +created_at +updated_at$/)
      assert.equal(rows.length, 2)
      assert.match(rows[0] ?? '', new RegExp(`^${String(company.id)} +Acme +Europe/Lisbon +2 +\\d{4}-`))

      const people = expectList(await admin.run(['user', 'list', '--company', String(company.id), '--json']))
      assert.deepEqual(
        people.map((u) => [u.id, u.name, u.email, u.role, u.active]),
        [
          [user.id, 'Ana', 'ana@acme.example', 'admin', true],
          [bruno.id, 'Bruno', 'bruno@acme.example', 'member', true],
        ],
      )
      assert.deepEqual(expectList(await admin.run(['user', 'list', '--company', String(empty.id), '--json'])), [])
      const none = await admin.run(['user', 'list', '--company', String(empty.id)])
      assert.deepEqual([none.code, none.stdout], [0, '(none)\n'])

      const created = expectJson(await admin.run(['token', 'create', '--user', String(user.id), '--json']))
      const token = String(created.token)
      assert.match(token, /^eng_/)
      const readable = await admin.run(['token', 'create', '--user', String(user.id)])
      assert.equal(readable.code, 0)
      assert.match(readable.stdout, /^token: eng_/m)

      const res = await authorize(token)
      assert.equal(res.statusCode, 200)
      assert.equal(res.json().company.name, 'Acme')
      const stored = await rawRows<{ token_hash: string; revoked_at: Date | null }>(
        admin.db,
        sql`select token_hash, revoked_at from api_tokens where user_id = ${Number(user.id)}`,
      )
      assert.equal(stored.length, 2)
      assert.ok(stored.every((row) => row.token_hash !== token && row.revoked_at === null))

      const revoked = expectJson(await admin.run(['token', 'revoke', '--token', token, '--json']))
      assert.equal(typeof revoked.revoked_at, 'string')
      expectFailure(await admin.run(['token', 'revoke', '--token', token]), /not found or already revoked/)
      assert.equal((await authorize(token)).statusCode, 401)
    })

    test('bad input: exit 1, one clear line on stderr, nothing written', async () => {
      const before = await rawRows<{ id: number }>(admin.db, sql`select id from companies order by id`)
      const usersBefore = await rawRows<{ id: number }>(admin.db, sql`select id from users`)
      const [company] = before
      assert.ok(company, 'a company from the previous test')
      const id = String(company.id)
      const fails = async (args: string[], line: string | RegExp) => {
        const result = await admin.run(args)
        expectFailure(result, typeof line === 'string' ? /[^]/ : line)
        if (typeof line === 'string') assert.equal(result.stderr, `admin: ${line}\n`)
      }

      await fails(['company', 'create', '--name', 'X', '--timezone', 'Mars/Base'], '--timezone is not a known IANA time zone (Area/City)')
      await fails(['company', 'create', '--name', '   '], "--name can't be blank")
      await fails(['company', 'create'], '--name N is required; see npx engage-admin company create --help')
      await fails(['user', 'create', '--company', id], '--name N, --email E are required; see npx engage-admin user create --help')
      await fails(['company', 'create', '--name', 'X', '--bogus', '1'], 'company create has no option --bogus; see npx engage-admin company create --help')
      await fails(['company', 'create', '--name'], '--name needs a value; see npx engage-admin company create --help')
      await fails(['company', 'create', '--name', '-x'], '--name needs a value; a value starting with "-" is written --name=-x')
      await fails(['company', 'create', 'Acme'], 'unexpected "Acme": every value follows its --option; see npx engage-admin company create --help')
      await fails(['company', 'list', '--json=yes'], '--json takes no value')
      await fails(['company', 'explode'], 'unknown command "company explode"; company can create, set-timezone or list')
      await fails(['companies'], /^admin: unknown command "companies"; the commands are company, user, token, flow, task, whatsapp, contacts, audit, backup or restore; see npx engage-admin --help\n$/)
      await fails(['--json'], 'a command comes first (npx engage-admin <resource> <action>); see npx engage-admin --help')
      await fails(['user', 'create', '--company', id, '--name', 'Dup', '--email', 'ANA@acme.example'], '--email has already been taken')
      await fails(['user', 'create', '--company', id, '--name', 'B', '--email', 'nope'], '--email is invalid')
      await fails(['user', 'create', '--company', id, '--name', 'B', '--email', 'b@x.io', '--role', 'owner'], '--role must be admin or member')
      await fails(['user', 'create', '--company', id, '--name', ' ', '--email', 'b@x.io', '--role', 'boss'], "--name can't be blank; --role must be admin or member")
      await fails(['user', 'create', '--company', '999999', '--name', 'B', '--email', 'b@x.io'], 'company 999999 not found')
      await fails(['user', 'create', '--company', 'abc', '--name', 'B', '--email', 'b@x.io'], '--company must be an integer')
      await fails(['user', 'create', '--company', '0', '--name', 'B', '--email', 'b@x.io'], '--company must be greater than or equal to 1')
      await fails(['user', 'list', '--company', '999999'], 'company 999999 not found')
      await fails(['token', 'create', '--user', '999999'], 'user 999999 not found')
      await fails(['task', 'create', '--contact', '1', '--kind', 'fax', '--due', '2026-02-30'], '--kind must be phonecall, email, linkedin, social or meeting; --due must be a date (yyyy-mm-dd)')

      assert.equal((await rawRows<{ id: number }>(admin.db, sql`select id from companies`)).length, before.length)
      assert.equal((await rawRows<{ id: number }>(admin.db, sql`select id from users`)).length, usersBefore.length)
    })

    test('a bad setting: one line naming it', async () => {
      const result = await runAdmin(['company', 'list'], { env: { DATABASE_URL: 'mysql://db/engage' } })
      expectFailure(result, /^admin: DATABASE_URL must start with postgres:\/\/ or postgresql:\/\/\n$/)
    })

    test('as a process: success is exit 0 and one JSON object on stdout; failure is exit 1 and one line on stderr', async () => {
      const created = expectJson(await spawnAdmin(['company', 'create', '--name', 'Spawned', '--json'], admin.env))
      const [row] = await rawRows<{ name: string }>(admin.db, sql`select name from companies where id = ${Number(created.id)}`)
      assert.equal(row?.name, 'Spawned')

      const failed = await spawnAdmin(['user', 'create', '--company', String(created.id), '--name', 'B', '--email', 'b@x.io', '--role', 'owner'], admin.env)
      expectFailure(failed, /^admin: --role must be admin or member\n$/)
    })
  })
}
