// The suite-wide secrets search (test/helpers/secrets.ts) can fail: a record holding a secret
// the test made, its hash, or a whole token of any origin fails the drop of its database,
// which is dropped all the same.
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import pg from 'pg'
import { transaction } from '../../src/db/db.js'
import { SYSTEM_CONTEXT, systemActing } from '../../src/modules/audit/audit.context.js'
import { recordAudit } from '../../src/modules/audit/audit.service.js'
import { createToken, hashToken } from '../../src/modules/auth/tokens.service.js'
import { backends } from '../helpers/app.js'
import { tenant } from '../helpers/factories.js'
import { rememberSecret } from '../helpers/secrets.js'

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
})
