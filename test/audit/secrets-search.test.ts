// The suite-wide secrets search (test/helpers/secrets.ts) can fail: a record holding a secret
// the test made, its hash, or a whole token of any origin fails the drop of its database,
// which is dropped all the same.
import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import { Writable } from 'node:stream'
import { describe, test } from 'node:test'
import pg from 'pg'
import { transaction } from '../../src/db/db.js'
import { SYSTEM_CONTEXT, systemActing } from '../../src/acting.js'
import { recordAudit } from '../../src/modules/audit/audit.service.js'
import { inviteUser } from '../../src/modules/auth/accounts.service.js'
import { createToken, hashToken } from '../../src/modules/auth/tokens.service.js'
import { backends, startApp } from '../helpers/app.js'
import { addUser, tenant } from '../helpers/factories.js'
import { rememberSecret } from '../helpers/secrets.js'
import { rawRows, sql } from '../helpers/sql.js'
import { Browser, PASSWORD } from '../web/helpers.js'

const [backend] = backends()
if (!backend) throw new Error('no backend')

async function exists(url: string): Promise<boolean> {
  const name = new URL(url).pathname.slice(1)
  const admin = new URL(url)
  admin.pathname = '/postgres'
  const client = new pg.Client({ connectionString: admin.toString() })
  await client.connect()
  try {
    return (await client.query('select 1 from pg_database where datname = $1', [name])).rowCount === 1
  } finally {
    await client.end()
  }
}

describe('the search for secrets in the audit log', () => {
  test('a clean log passes; a remembered secret, its hash or a whole token in a record fails the drop, loudly', async () => {
    const clean = await backend.open()
    await tenant(clean.database.db) // records, none with a secret
    await clean.drop()

    for (const leak of ['remembered', 'hash', 'shape'] as const) {
      const opened = await backend.open()
      const acme = await tenant(opened.database.db)
      const password = `a passphrase for ${leak} only`
      rememberSecret(password)
      const made = await createToken(opened.database.db, systemActing(), acme.userId)
      const value = leak === 'remembered' ? `note: ${password}` : leak === 'hash' ? hashToken(acme.token) : `found ${made.token} in a note`
      // A field named so that recordAudit's own guard lets it through: the search is the last line.
      await transaction(opened.database.db, (tx) =>
        recordAudit(tx, acme.companyId, SYSTEM_CONTEXT, { action: 'company.created', target: { id: acme.companyId, label: null }, changes: { note: [null, value] } }))
      await assert.rejects(opened.drop(), (err: Error) => {
        assert.match(err.message, leak === 'shape' ? /shaped like a secret: eng_/ : /holds a secret the tests made/)
        assert.match(err.message, /audit record \d+ \(company\.created\)/)
        return true
      })
      assert.equal(await exists(opened.url), false, 'dropped all the same')
    }
  })

  test('an invite link (GET, a refused POST, the accepting POST): its token in no log line and no audit record', async () => {
    let logs = ''
    const stream = new Writable({
      write(chunk: Buffer, _encoding, done) {
        logs += chunk.toString()
        done()
      },
    })
    const t = await startApp(backend, { deps: { logger: { level: 'debug', stream } } })
    try {
      const acme = await tenant(t.db)
      const user = await addUser(t.db, acme.companyId, { email: 'invited@acme.example' })
      const invite = await inviteUser(t.db, systemActing(), user.id, 'http://localhost')
      const path = new URL(invite.url).pathname
      const token = path.split('/').at(-1) ?? ''
      rememberSecret(token)
      const browser = new Browser(t.app)
      assert.equal((await browser.get(path)).status, 200)
      assert.equal((await browser.request('POST', path, { _csrf: 'wrong', password: PASSWORD, confirm: PASSWORD })).status, 403)
      const accepted = await browser.submit(path, path, { password: PASSWORD, confirm: PASSWORD })
      assert.equal(accepted.status, 303, accepted.body)

      const sha256 = createHash('sha256').update(token).digest('hex')
      assert.ok(logs.includes('"url":"/invite/[redacted]"'), 'the requests are logged, redacted')
      assert.ok(!logs.includes(token) && !logs.includes(sha256), 'the token nowhere in the logs')
      const records = JSON.stringify(await rawRows(t.db, sql`select * from audit_events order by id`))
      assert.ok(records.includes('user.invite_created') && records.includes('user.invite_used'), records)
      assert.ok(!records.includes(token) && !records.includes(sha256), 'the token in no audit record')
    } finally {
      await t.close()
    }
  })
})
