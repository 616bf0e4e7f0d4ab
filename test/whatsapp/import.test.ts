// `whatsapp import` run in this process on the backend's database, as the command line runs
// it (its output and exit code; test/cli/admin.test.ts runs the command line as a process).
import assert from 'node:assert/strict'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import type { Db } from '../../src/db/db.js'
import { addUser, tenant, type Tenant } from '../helpers/factories.js'
import { addContact } from '../helpers/leads-factories.js'
import { backends } from '../helpers/app.js'
import { adminDatabase, type AdminDatabase } from '../helpers/cli.js'
import { rawRows, sql } from '../helpers/sql.js'

interface MessageRow {
  id: number
  company_id: number
  contact_id: number
  user_id: number
  direction: string
  status: string
  body: string
  sent_at: Date
}

for (const backend of backends()) {
  describe(`whatsapp import (${backend.name})`, () => {
    let admin: AdminDatabase
    const files = mkdtempSync(join(tmpdir(), 'engage-wa-files-'))
    let acme: Tenant
    let other: Tenant
    let bruno: number
    let contactId: number
    let deletedId: number
    let theirContactId: number

    const withDb = <T>(fn: (db: Db) => Promise<T>) => fn(admin.db)
    const runAdmin = (args: string[]) => admin.run(args)
    const file = (name: string, lines: (object | string)[]) => {
      const path = join(files, name)
      writeFileSync(path, lines.map((l) => (typeof l === 'string' ? l : JSON.stringify(l))).join('\n') + '\n')
      return path
    }
    const messages = () => withDb((db) => rawRows<MessageRow>(db, sql`
      select id, company_id, contact_id, user_id, direction, status, body, sent_at from whatsapp_messages order by id`))
    const line = (fields: Record<string, unknown> = {}) => ({
      contact_id: contactId, user_id: acme.userId, direction: 'outbound', body: 'Hi!', status: 'delivered',
      sent_at: '2026-11-20T10:00:00-03:00', ...fields,
    })

    before(async () => {
      admin = await adminDatabase(backend)
      await withDb(async (db) => {
        acme = await tenant(db)
        other = await tenant(db)
        bruno = (await addUser(db, acme.companyId)).id
        contactId = (await addContact(db, acme.companyId, acme.userId)).id
        deletedId = (await addContact(db, acme.companyId, acme.userId, { deleted: true })).id
        theirContactId = (await addContact(db, other.companyId, other.userId)).id
      })
    })
    after(async () => {
      await admin.drop()
      rmSync(files, { recursive: true, force: true })
    })

    test('a bad line anywhere: exit 1, every bad line named by number on one stderr line, nothing imported', async () => {
      const path = file('bad.jsonl', [
        line(),
        line({ status: 'seen' }),
        '{"contact_id": 1,',
        '',
        line({ contact_id: theirContactId }),
        line({ contact_id: deletedId, user_id: other.userId }),
        line({ sent_at: '2026-11-20T10:00:00' }),
        line({ direction: undefined, body: 5 }),
        '[1, 2]',
        line({ user_id: bruno }),
      ])
      const result = await runAdmin(['whatsapp', 'import', '--company', String(acme.companyId), '--file', path, '--json'])
      assert.equal(result.code, 1)
      assert.equal(result.stdout, '')
      assert.equal(result.stderr.trim().split('\n').length, 1, result.stderr)
      assert.equal(
        result.stderr.trim(),
        'admin: nothing imported: ' + [
          'line 2: status is not included in the list',
          'line 3: is not valid JSON',
          'line 5: contact_id does not exist',
          'line 6: contact_id does not exist, user_id does not exist',
          'line 7: sent_at must be a date-time (ISO 8601 with offset)',
          "line 8: direction can't be blank, body must be a string",
          'line 9: is not a JSON object',
        ].join('; '),
      )
      assert.deepEqual(await messages(), [])
    })

    test('many bad lines: the first 20 named, the rest counted', async () => {
      const path = file('many.jsonl', Array.from({ length: 25 }, () => line({ status: 'x' })))
      const result = await runAdmin(['whatsapp', 'import', '--company', String(acme.companyId), '--file', path])
      assert.equal(result.code, 1)
      assert.match(result.stderr, /line 20: status is not included in the list; and 5 more bad lines\n$/)
      assert.doesNotMatch(result.stderr, /line 21:/)
    })

    test('an unknown company or an unreadable file: exit 1', async () => {
      const path = file('one.jsonl', [line()])
      const noCompany = await runAdmin(['whatsapp', 'import', '--company', '999999', '--file', path])
      assert.equal(noCompany.code, 1)
      assert.equal(noCompany.stderr, 'admin: company 999999 not found\n')
      const noFile = await runAdmin(['whatsapp', 'import', '--company', String(acme.companyId), '--file', join(files, 'nope.jsonl')])
      assert.equal(noFile.code, 1)
      assert.match(noFile.stderr, /cannot read .*nope\.jsonl: ENOENT/)
      const badCompany = await runAdmin(['whatsapp', 'import', '--company', 'abc', '--file', path])
      assert.equal(badCompany.code, 1)
      assert.equal(badCompany.stderr, 'admin: --company must be an integer\n')
      assert.deepEqual(await messages(), [])
    })

    test('a good file: every line imported in one go, chats folded in; again: the chats add up', async () => {
      const lines = [
        line({ body: 'first', sent_at: '2026-11-20T10:00:00Z' }),
        line({ body: 'reply', direction: 'inbound', status: 'received', sent_at: '2026-11-20T10:05:00.123+00:00' }),
        line({ body: 'bruno', user_id: String(bruno), contact_id: String(contactId), sent_at: '2026-11-21 08:00:00Z' }),
        ...Array.from({ length: 1500 }, (_, i) => line({ body: `bulk ${i}`, sent_at: '2026-11-19T00:00:00Z' })),
      ]
      const result = await runAdmin(['whatsapp', 'import', '--company', String(acme.companyId), '--file', file('good.jsonl', lines), '--json'])
      assert.equal(result.code, 0, result.stderr)
      assert.equal(result.stderr, '')
      assert.deepEqual(JSON.parse(result.stdout), { imported: 1503 })

      const rows = await messages()
      assert.equal(rows.length, 1503)
      assert.deepEqual(
        rows.slice(0, 3).map((m) => [m.company_id, m.contact_id, m.user_id, m.direction, m.status, m.body, m.sent_at.toISOString()]),
        [
          [acme.companyId, contactId, acme.userId, 'outbound', 'delivered', 'first', '2026-11-20T10:00:00.000Z'],
          [acme.companyId, contactId, acme.userId, 'inbound', 'received', 'reply', '2026-11-20T10:05:00.123Z'],
          [acme.companyId, contactId, bruno, 'outbound', 'delivered', 'bruno', '2026-11-21T08:00:00.000Z'],
        ],
      )
      const chats = () => withDb((db) => rawRows<{ user_id: number; messages_count: number; last_message_id: number; last_message_at: Date }>(db, sql`
        select user_id, messages_count, last_message_id, last_message_at from whatsapp_chats where contact_id = ${contactId} order by user_id`))
      assert.deepEqual(
        (await chats()).map((c) => [c.user_id, c.messages_count, c.last_message_id, c.last_message_at.toISOString()]),
        [
          [acme.userId, 1502, rows[1]?.id, '2026-11-20T10:05:00.123Z'],
          [bruno, 1, rows[2]?.id, '2026-11-21T08:00:00.000Z'],
        ],
      )

      const second = await runAdmin(['whatsapp', 'import', '--company', String(acme.companyId), '--file', file('more.jsonl', [
        line({ body: 'late', sent_at: '2026-11-22T09:00:00Z' }),
        line({ body: 'old', user_id: bruno, sent_at: '2020-01-01T00:00:00Z' }),
      ])])
      assert.equal(second.code, 0, second.stderr)
      assert.equal(second.stdout.trim(), 'imported: 2')
      const after = await messages()
      assert.deepEqual(
        (await chats()).map((c) => [c.user_id, c.messages_count, c.last_message_id]),
        [
          [acme.userId, 1503, after.find((m) => m.body === 'late')?.id],
          [bruno, 2, rows[2]?.id], // an older message does not take the chat's last place
        ],
      )
    })

    test('--help describes the command', async () => {
      const help = await runAdmin(['whatsapp', 'import', '--help'])
      assert.equal(help.code, 0)
      assert.match(help.stdout, /--company ID --file F/)
      assert.match(help.stdout, /JSON Lines/)
    })
  })
}
