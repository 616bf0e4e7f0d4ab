// The restore drill (docs/operating.md): the service under writes, a backup taken, more
// writes, the backup restored into a fresh empty database; the service on it shows exactly
// the records of the backup's moment (per table rows and SHA-256 equal to the manifest),
// its tokens work and its webhooks deliver again. A truncated or altered file is refused
// before anything is touched.
import assert from 'node:assert/strict'
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { gunzipSync, gzipSync } from 'node:zlib'
import { after, before, describe, test } from 'node:test'
import pg from 'pg'
import { Webhook } from 'standardwebhooks'
import { buildApp } from '../../src/app.js'
import { verifyBackup } from '../../src/backup/format.js'
import { runCli } from '../../src/cli/run.js'
import { openDatabase } from '../../src/db/client.js'
import { schemaVersion } from '../../src/db/migrate.js'
import { backends, startApp, testConfig, TEST_SECRET_KEY, type TestApp } from '../helpers/app.js'
import { tenant, type Tenant } from '../helpers/factories.js'
import { startReceiver, type Receiver } from '../webhooks/delivery-helpers.js'

const [backend] = backends()
if (!backend) throw new Error('no backend')

async function admin(args: string[], env: Record<string, string>, database?: TestApp['db']) {
  let stdout = ''
  let stderr = ''
  const code = await runCli([...args, '--json'], {
    stdout: (text) => (stdout += text),
    stderr: (text) => (stderr += text),
    env: { WEBHOOK_SECRET_KEY: TEST_SECRET_KEY, LOG_LEVEL: 'silent', ...env },
    ...(database ? { database } : {}),
  })
  return { code, stdout, stderr, json: () => JSON.parse(stdout) as Record<string, unknown> }
}

async function tableCount(url: string): Promise<number> {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    const { rows } = await client.query<{ n: number }>(
      "select count(*)::int as n from pg_class c join pg_namespace n on n.oid = c.relnamespace where c.relkind = 'r' and n.nspname in ('public', 'migrations')",
    )
    return rows[0]?.n ?? -1
  } finally {
    await client.end()
  }
}

describe('backup and restore', () => {
  let source: TestApp
  let company: Tenant
  let receiver: Receiver
  let folder: string
  const empties: { url: string; drop: () => Promise<void> }[] = []
  const empty = async () => {
    const made = await backend.openEmpty()
    empties.push(made)
    return made.url
  }

  before(async () => {
    folder = mkdtempSync(join(tmpdir(), 'engage-backup-test-'))
    receiver = await startReceiver()
    source = await startApp(backend, { config: { webhookAllowPrivate: true } })
    company = await tenant(source.db, { name: 'Backed up' })
  })
  after(async () => {
    await source.close()
    await receiver.close()
    for (const made of empties) await made.drop()
    rmSync(folder, { recursive: true, force: true })
  })

  const post = (url: string, payload: object, auth = company.auth) =>
    source.app.inject({ method: 'POST', url, headers: auth, payload })

  test('a backup taken under writes restores to exactly its moment, with tokens and webhooks working', async () => {
    const hook = await post('/api/v1/webhooks', { url: receiver.url, events: ['contact.created'] })
    assert.equal(hook.statusCode, 201, hook.body)
    const secret = (hook.json<{ secret: string }>()).secret
    const tag = await post('/api/v1/tags', { name: 'VIP', color: '#ff0000' })
    assert.equal(tag.statusCode, 201, tag.body)
    for (let i = 0; i < 20; i++) {
      const res = await post('/api/v1/contacts', { first_name: `Before ${String(i)}`, email: `before${String(i)}@example.com`, tags: [tag.json<{ id: number }>().id] })
      assert.equal(res.statusCode, 201, res.body)
    }

    // Writes go on while the backup runs; they land before or after its snapshot, never half.
    const state = { writing: true }
    let written = 0
    const writer = (async () => {
      while (state.writing) {
        const res = await post('/api/v1/contacts', { first_name: 'During', email: `during${String(written)}@example.com` })
        assert.equal(res.statusCode, 201, res.body)
        written++
      }
    })()
    const file = join(folder, 'drill.backup')
    const backup = await admin(['backup', '--out', file, '--with-secret-key'], {}, source.db)
    state.writing = false
    await writer
    assert.equal(backup.code, 0, backup.stderr)
    assert.ok(written > 0, 'writes ran during the backup')
    const shown = backup.json()
    assert.equal(shown.schema_version, schemaVersion())
    assert.equal(shown.secret_key_included, true)

    for (let i = 0; i < 5; i++) await post('/api/v1/contacts', { first_name: 'After', email: `after${String(i)}@example.com` })

    const manifest = await verifyBackup(file)
    const contacts = manifest.tables.find((t) => t.name === 'public.contacts')
    assert.ok(contacts && contacts.rows >= 20 && contacts.rows < 20 + written + 5, `contacts in the backup: ${String(contacts?.rows)}`)
    assert.equal(manifest.secret_key, TEST_SECRET_KEY)

    const target = await empty()
    const restored = await admin(['restore', '--from', file], { DATABASE_URL: target })
    assert.equal(restored.code, 0, restored.stderr)
    assert.equal(restored.json().migrated_to, schemaVersion())

    // A backup of the restored database has the very rows of the first one, table by table.
    const database = await openDatabase({ databaseUrl: target, migrate: false })
    const app = await buildApp(testConfig({ webhookAllowPrivate: true }), { database, webhookWorker: { pollIntervalMs: 50 } })
    try {
      const again = join(folder, 'again.backup')
      assert.equal((await admin(['backup', '--out', again], {}, database.db)).code, 0)
      const second = await verifyBackup(again)
      assert.deepEqual(
        second.tables.map((t) => [t.name, t.rows, t.sha256]),
        manifest.tables.map((t) => [t.name, t.rows, t.sha256]),
      )

      const me = await app.inject({ method: 'GET', url: '/api/v1/users/authorize_api', headers: company.auth })
      assert.equal(me.statusCode, 200, 'the api token works on the restored database')
      const list = await app.inject({ method: 'GET', url: '/api/v1/contacts?page=1&per_page=1', headers: company.auth })
      assert.equal(list.json<{ meta: { total_count: number } }>().meta.total_count, contacts.rows)

      // Identities go on after the restored ids, and the webhook delivers again, signed with its secret.
      const made = await app.inject({ method: 'POST', url: '/api/v1/contacts', headers: company.auth, payload: { first_name: 'Restored', email: 'restored@example.com' } })
      assert.equal(made.statusCode, 201, made.body)
      const deadline = Date.now() + 10_000
      while (!receiver.received.some((r) => r.body.includes('restored@example.com')) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50))
      const delivery = receiver.received.find((r) => r.body.includes('restored@example.com'))
      assert.ok(delivery, 'the restored subscription delivered the new event')
      new Webhook(secret).verify(delivery.body, delivery.headers as Record<string, string>)
    } finally {
      await app.close()
      await database.close()
    }

    const refused = await admin(['restore', '--from', file], { DATABASE_URL: target })
    assert.equal(refused.code, 1)
    assert.match(refused.stderr, /already holds engage data.*--force/)
    const forced = await admin(['restore', '--from', file, '--force'], { DATABASE_URL: target })
    assert.equal(forced.code, 0, forced.stderr)
  })

  test('a truncated or altered backup is refused before the target is touched', async () => {
    const file = join(folder, 'whole.backup')
    assert.equal((await admin(['backup', '--out', file], {}, source.db)).code, 0)
    const bytes = readFileSync(file)
    const target = await empty()

    const cut = join(folder, 'cut.backup')
    writeFileSync(cut, bytes.subarray(0, Math.floor(bytes.length * 0.6)))
    const altered = join(folder, 'altered.backup')
    copyFileSync(file, altered)
    const changed = Buffer.from(bytes)
    const middle = Math.floor(changed.length / 2)
    changed.writeUInt8((changed.readUInt8(middle) ^ 0xff) & 0xff, middle)
    writeFileSync(altered, changed)
    const notOne = join(folder, 'not-one.backup')
    writeFileSync(notOne, 'hello\n')

    for (const [bad, message] of [
      [cut, /is not a complete engage backup/],
      [altered, /is (damaged|not a complete engage backup)/],
      [notOne, /is not a complete engage backup/],
      [join(folder, 'missing.backup'), /does not exist/],
    ] as const) {
      const result = await admin(['restore', '--from', bad], { DATABASE_URL: target })
      assert.equal(result.code, 1, bad)
      assert.match(result.stderr, message)
      assert.equal(result.stdout, '')
      assert.equal(await tableCount(target), 0, 'nothing was written to the target')
    }
  })

  test('backup refuses to overwrite a file, and restore a backup of a schema this build does not know', async () => {
    const file = join(folder, 'exists.backup')
    writeFileSync(file, 'keep me')
    const result = await admin(['backup', '--out', file], {}, source.db)
    assert.equal(result.code, 1)
    assert.match(result.stderr, /exists/)
    assert.equal(readFileSync(file, 'utf8'), 'keep me')

    // A newer engage's backup: its manifest names a migration this build does not carry.
    const real = join(folder, 'real.backup')
    assert.equal((await admin(['backup', '--out', real], {}, source.db)).code, 0)
    const lines = gunzipSync(readFileSync(real)).toString('utf8').split('\n')
    const last = lines.length - 2 // the text ends with a line break
    const manifest = JSON.parse((lines[last] ?? '').slice(2)) as { migrations: string[]; schema_version: string }
    manifest.migrations.push('9999_from_the_future')
    manifest.schema_version = '9999_from_the_future'
    lines[last] = `M ${JSON.stringify(manifest)}`
    const future = join(folder, 'future.backup')
    writeFileSync(future, gzipSync(lines.join('\n')))
    const target = await empty()
    const refused = await admin(['restore', '--from', future], { DATABASE_URL: target })
    assert.equal(refused.code, 1)
    assert.match(refused.stderr, /9999_from_the_future.*is not one this engage knows/)
    assert.equal(await tableCount(target), 0)
  })
})
