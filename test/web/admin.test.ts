// The admin commands of the web application's accounts, in this process on the test's
// database (one child process, for what only a process shows: the password read from its
// standard input): user set-password, user invite, user deactivate / activate, token list.
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { createHash } from 'node:crypto'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { after, before, describe, test } from 'node:test'
import { runCli } from '../../src/cli/run.js'
import { signIn } from '../../src/modules/auth/accounts.service.js'
import { systemActing } from '../../src/acting.js'
import { createToken, revokeToken } from '../../src/modules/auth/tokens.service.js'
import { backends, startApp, type TestApp } from '../helpers/app.js'
import { adminDatabase, expectFailure, expectJson, expectList, type CliResult } from '../helpers/cli.js'
import { addUser, tenant, type Tenant } from '../helpers/factories.js'
import { rawRows, sql } from '../helpers/sql.js'
import { Browser, member, PASSWORD } from './helpers.js'

const [firstBackend] = backends()
if (!firstBackend) throw new Error('no backend')
const backend = firstBackend
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex')
const root = fileURLToPath(new URL('../../', import.meta.url))

describe('admin commands of the web application', () => {
  let t: TestApp
  let acme: Tenant
  let now = new Date()
  before(async () => {
    t = await startApp(backend, { deps: { clock: () => now }, config: { signInLimit: { max: 1000, windowMs: 60_000 } } })
    acme = await tenant(t.db, { name: 'Acme' })
  })
  after(() => t.close())

  async function admin(args: string[], options: { stdin?: string; env?: Record<string, string> } = {}): Promise<CliResult> {
    let stdout = ''
    let stderr = ''
    const code = await runCli(args, {
      stdout: (text) => (stdout += text),
      stderr: (text) => (stderr += text),
      database: t.db,
      env: options.env ?? {},
      stdin: () => Promise.resolve(options.stdin ?? ''),
    })
    return { code, stdout, stderr }
  }

  const authorize = (token: string) =>
    t.app.inject({ url: '/api/v1/users/authorize_api', headers: { authorization: `Bearer ${token}` } })

  const canSignIn = async (email: string, password: string) => (await signIn(t.db, email, password, new Date())).ok

  test('help lists the commands; --generate is a switch without a value', async () => {
    const help = await admin(['--help'])
    for (const name of ['user set-password', 'user invite', 'user deactivate', 'user activate', 'token list']) {
      assert.ok(help.stdout.includes(name), name)
    }
    const command = await admin(['user', 'set-password', '--help'])
    assert.equal(command.code, 0)
    assert.match(command.stdout, /Usage: npx engage-admin user set-password --user ID \[--generate\] \[--json\]/)
    expectFailure(await admin(['user', 'set-password', '--user', '1', '--generate=yes']), /--generate/)
  })

  test('set-password reads the password from standard input, stores an argon2id hash and ends the sessions', async () => {
    const user = await member(t.db, acme.companyId)
    const browser = new Browser(t.app)
    assert.equal((await browser.signIn(user.email)).status, 303)
    const result = expectJson(await admin(['user', 'set-password', '--user', String(user.id), '--json'], { stdin: 'a brand new password\n' }))
    assert.deepEqual(result, { user_id: user.id, email: user.email, password_set: true })
    const [row] = await rawRows<{ passwordHash: string | null }>(t.db, sql`select password_hash as "passwordHash" from users where id = ${user.id}`)
    assert.match(String(row?.passwordHash), /^\$argon2id\$v=19\$m=19456,t=2,p=1\$/)
    assert.ok(!String(row?.passwordHash).includes('brand new'))
    assert.equal((await rawRows<{ id: number }>(t.db, sql`select id from web_sessions where user_id = ${user.id}`)).length, 0)
    assert.equal((await browser.get('/settings/integrations')).location, '/login')
    assert.equal(await canSignIn(user.email, 'a brand new password'), true, 'one trailing line break is not part of it')
    assert.equal(await canSignIn(user.email, PASSWORD), false)
  })

  test('set-password refuses a short or missing password with a clear message, and changes nothing', async () => {
    const user = await member(t.db, acme.companyId)
    expectFailure(await admin(['user', 'set-password', '--user', String(user.id)], { stdin: 'short\n' }), /^admin: The password is too short: use at least 10 characters\.$/m)
    expectFailure(await admin(['user', 'set-password', '--user', String(user.id)], { stdin: '' }), /no password on standard input/)
    expectFailure(await admin(['user', 'set-password', '--user', '999999', '--json'], { stdin: 'long enough password' }), /user 999999 not found/)
    expectFailure(await admin(['user', 'set-password', '--user', 'abc']), /--user/)
    assert.equal(await canSignIn(user.email, PASSWORD), true)
  })

  test('set-password --generate prints a strong password once; it signs in', async () => {
    const user = await member(t.db, acme.companyId)
    const result = expectJson(await admin(['user', 'set-password', '--user', String(user.id), '--generate', '--json']))
    assert.deepEqual(Object.keys(result), ['user_id', 'email', 'password'])
    const password = String(result.password)
    assert.match(password, /^[A-Za-z0-9_-]{24}$/)
    assert.equal(await canSignIn(user.email, password), true)
    const readable = await admin(['user', 'set-password', '--user', String(user.id), '--generate'])
    assert.equal(readable.code, 0)
    assert.match(readable.stdout, /^password: [A-Za-z0-9_-]{24}$/m)
  })

  test('invite: a one-time link, valid 7 days, hashed at rest, where the user chooses a password and is signed in', async () => {
    const user = await member(t.db, acme.companyId)
    // Without PUBLIC_URL the link is this machine's, on PORT, and stderr says so (stdout stays one JSON object).
    const local = await admin(['user', 'invite', '--user', String(user.id), '--json'], { env: { PORT: '3217' } })
    assert.equal(local.code, 0, local.stderr)
    assert.equal(local.stderr, 'admin: the link assumes the server runs on this machine on port 3217 (PORT); set PUBLIC_URL to the address people open it at\n')
    const first = JSON.parse(local.stdout) as Record<string, unknown>
    const result = expectJson(await admin(['user', 'invite', '--user', String(user.id), '--json'], { env: { PUBLIC_URL: 'https://engage.example/' } }))
    const url = String(result.url)
    const match = /^https:\/\/engage\.example\/invite\/([A-Za-z0-9_-]{43})$/.exec(url)
    assert.ok(match?.[1], url)
    const token = match[1]
    assert.match(String(first.url), /^http:\/\/localhost:3217\/invite\//)
    assert.equal(new Date(String(result.expires_at)).getTime() - now.getTime() > 7 * 86_400_000 - 60_000, true)
    const rows = await rawRows<{ tokenHash: string }>(t.db, sql`select token_hash as "tokenHash" from user_invites where user_id = ${user.id}`)
    assert.deepEqual(rows.map((r) => r.tokenHash), [sha256(token)], 'the newer link replaces the older; only a hash is kept')

    const path = `/invite/${token}`
    const firstPath = new URL(String(first.url)).pathname
    assert.equal((await new Browser(t.app).get(firstPath)).status, 404, 'replaced')

    const browser = new Browser(t.app)
    const page = await browser.get(path)
    assert.equal(page.status, 200)
    assert.ok(page.body.includes(user.email))
    const short = await browser.submit(path, path, { password: 'short', confirm: 'short' })
    assert.equal(short.status, 422)
    assert.match(short.body, /too short: use at least 10 characters/)
    const differ = await browser.submit(path, path, { password: 'one long password', confirm: 'another long one' })
    assert.equal(differ.status, 422)
    assert.match(differ.body, /The two passwords differ/)
    const forged = await browser.request('POST', path, { _csrf: 'forged', password: 'chosen password 1', confirm: 'chosen password 1' })
    assert.equal(forged.status, 403)
    const done = await browser.submit(path, path, { password: 'chosen password 1', confirm: 'chosen password 1' })
    assert.equal(done.status, 303)
    assert.equal(done.location, '/tasks')
    assert.equal((await browser.get('/settings/integrations')).status, 200, 'signed in')
    assert.equal(await canSignIn(user.email, 'chosen password 1'), true)
    assert.equal((await new Browser(t.app).get(path)).status, 404, 'used once')
    const again = new Browser(t.app)
    assert.equal((await again.get(path)).status, 404)
  })

  test('an invite link expires after 7 days; bad links are a clear 404', async () => {
    const user = await member(t.db, acme.companyId)
    const result = expectJson(await admin(['user', 'invite', '--user', String(user.id), '--json'], { env: { PUBLIC_URL: 'http://localhost:3000' } }))
    const path = new URL(String(result.url)).pathname
    const saved = now
    try {
      now = new Date(saved.getTime() + 7 * 86_400_000 + 60_000)
      const res = await new Browser(t.app).get(path)
      assert.equal(res.status, 404)
      assert.match(res.body, /has expired/)
    } finally {
      now = saved
    }
    for (const bad of ['/invite/short', `/invite/${'a'.repeat(44)}`, `/invite/${'a'.repeat(43)}`, '/invite/%00']) {
      const res = await new Browser(t.app).get(bad)
      assert.equal(res.status, 404, bad)
    }
  })

  test('deactivate: no sign-in, sessions end and tokens answer 401 at once; activate brings the user back', async () => {
    const user = await member(t.db, acme.companyId)
    const { token } = await createToken(t.db, systemActing(), user.id)
    assert.equal((await authorize(token)).statusCode, 200) // cached
    const browser = new Browser(t.app)
    assert.equal((await browser.signIn(user.email)).status, 303)

    const off = expectJson(await admin(['user', 'deactivate', '--user', String(user.id), '--json']))
    assert.equal(off.active, false)
    assert.equal(off.id, user.id)
    assert.equal((await browser.get('/settings/integrations')).location, '/login')
    let status = 200
    for (let i = 0; i < 50 && status !== 401; i++) {
      status = (await authorize(token)).statusCode
      if (status !== 401) await new Promise((resolve) => setTimeout(resolve, 20))
    }
    assert.equal(status, 401)
    assert.equal((await new Browser(t.app).signIn(user.email)).status, 401)
    assert.equal((await authorize(acme.token)).statusCode, 200, 'other users are untouched')

    const on = expectJson(await admin(['user', 'activate', '--user', String(user.id), '--json']))
    assert.equal(on.active, true)
    assert.equal((await authorize(token)).statusCode, 200)
    assert.equal((await new Browser(t.app).signIn(user.email)).status, 303)
    expectFailure(await admin(['user', 'deactivate', '--user', '999999']), /user 999999 not found/)
    expectFailure(await admin(['user', 'invite', '--user', '999999']), /user 999999 not found/)
  })

  test('token list: label, first characters, created, last used; never the token; revoked ones left out', async () => {
    const user = await member(t.db, acme.companyId)
    const kept = await createToken(t.db, systemActing(), user.id)
    const revoked = await createToken(t.db, systemActing(), user.id)
    await revokeToken(t.db, systemActing(), revoked.token)
    const list = expectList(await admin(['token', 'list', '--user', String(user.id), '--json']))
    const [listed] = list
    assert.ok(listed && list.length === 1)
    assert.deepEqual(Object.keys(listed), ['id', 'label', 'prefix', 'scopes', 'expires_at', 'created_at', 'last_used_at'])
    assert.equal(listed.prefix, kept.token.slice(0, 12))
    assert.equal(listed.last_used_at, null)
    const table = await admin(['token', 'list', '--user', String(user.id)])
    assert.equal(table.code, 0)
    assert.ok(table.stdout.includes(kept.prefix))
    assert.ok(!table.stdout.includes(kept.token) && !table.stdout.includes(revoked.prefix))
    expectFailure(await admin(['token', 'list', '--user', '999999']), /user 999999 not found/)
  })

  test('as a process: set-password reads the password piped to its standard input', async () => {
    const other = await adminDatabase(backend)
    try {
      const company = await tenant(other.db)
      const user = await addUser(other.db, company.companyId)
      const result = await new Promise<CliResult>((resolve) => {
        const child = execFile(
          process.execPath,
          ['--import', 'tsx', join(root, 'src/cli/main.ts'), 'user', 'set-password', '--user', String(user.id), '--json'],
          { cwd: root, env: { PATH: process.env.PATH ?? '', ...other.env }, timeout: 60_000 },
          (error, stdout, stderr) => {
            resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr })
          },
        )
        child.stdin?.end('piped password 123\n')
      })
      assert.deepEqual(expectJson(result), { user_id: user.id, email: user.email, password_set: true })
      assert.equal((await signIn(other.db, user.email, 'piped password 123', new Date())).ok, true)
    } finally {
      await other.drop()
    }
  })
})
