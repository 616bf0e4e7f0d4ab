// sent_at of imported messages: outside the years 0001-9999 (UTC) or past ±15:59 a line is
// refused; inside, the instant comes back exactly (years 0001-0099 used to read as 20xx and
// to fold into the chats that way).
import assert from 'node:assert/strict'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import { sql, rawRows } from '../helpers/sql.js'
import { systemActing } from '../../src/acting.js'
import { ApiError } from '../../src/errors.js'
import { importFile } from '../../src/modules/whatsapp/whatsapp.service.js'
import { backends, startApp, type TestApp } from '../helpers/app.js'
import { tenant, type Tenant } from '../helpers/factories.js'
import { addContact } from '../helpers/leads-factories.js'

for (const backend of backends()) {
  describe(`whatsapp sent_at range (${backend.name})`, () => {
    let t: TestApp
    let acme: Tenant
    let contactId: number
    const files = mkdtempSync(join(tmpdir(), 'engage-wa-range-'))

    before(async () => {
      t = await startApp(backend)
      acme = await tenant(t.db)
      contactId = (await addContact(t.db, acme.companyId, acme.userId)).id
    })
    after(async () => {
      await t.close()
      rmSync(files, { recursive: true, force: true })
    })

    const importLines = (name: string, sentAts: string[], contact = contactId) => {
      const path = join(files, name)
      const lines = sentAts.map((sentAt) =>
        JSON.stringify({ contact_id: contact, user_id: acme.userId, direction: 'inbound', body: 'Hi', status: 'received', sent_at: sentAt }))
      writeFileSync(path, lines.join('\n') + '\n')
      return importFile(t.db, systemActing(), { company: acme.companyId, file: path })
    }

    test('out of range: the lines named, nothing imported', async () => {
      await assert.rejects(
        importLines('bad.jsonl', ['2026-01-01T00:00:00Z', '0000-06-01T00:00:00Z', '2026-01-01T00:00:00+16:00', '9999-12-31T23:00:00-01:00']),
        (err: unknown) => {
          assert.ok(err instanceof ApiError)
          const range = 'sent_at is out of range (0001-01-01T00:00:00Z to 9999-12-31T23:59:59.999Z, offsets up to ±15:59)'
          assert.equal(err.message, `nothing imported: line 2: ${range}; line 3: ${range}; line 4: ${range}`)
          return true
        },
      )
      const [row] = await rawRows<{ n: number }>(t.db, sql`select count(*)::int as n from whatsapp_messages`)
      assert.equal(row?.n, 0)
    })

    test('early and late years read back exactly, in messages and in the chat', async () => {
      assert.deepEqual(await importLines('good.jsonl', ['0001-01-01T00:00:00Z', '0050-06-15T12:00:00.5+01:00', '9999-12-31T23:59:59.999Z']), { imported: 3 })
      const headers = acme.auth
      const messages = await t.app.inject({ url: `/api/v1/whatsapp_messages?contact_id=${String(contactId)}&page=1`, headers })
      assert.equal(messages.statusCode, 200, messages.body)
      assert.deepEqual(
        messages.json<{ data: { sent_at: string }[] }>().data.map((m) => m.sent_at),
        ['9999-12-31T23:59:59.999Z', '0050-06-15T11:00:00.500Z', '0001-01-01T00:00:00.000Z'],
      )
      const chats = await t.app.inject({ url: `/api/v1/whatsapp_messages/chats?contact_id=${String(contactId)}&page=1`, headers })
      const [chat] = chats.json<{ data: { last_message_at: string; last_message: { sent_at: string } }[] }>().data
      assert.equal(chat?.last_message_at, '9999-12-31T23:59:59.999Z')
      assert.equal(chat.last_message.sent_at, '9999-12-31T23:59:59.999Z')


      // The chat's latest message is the latest instant: 1999, not year 50 read as 2050.
      const second = (await addContact(t.db, acme.companyId, acme.userId)).id
      await importLines('fold.jsonl', ['0050-01-01T00:00:00Z', '1999-01-01T00:00:00Z'], second)
      const stored = await rawRows<{ at: string }>(
        t.db,
        sql`select to_char(last_message_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as at from whatsapp_chats where contact_id = ${second}`,
      )
      assert.deepEqual(stored, [{ at: '1999-01-01T00:00:00.000Z' }])
    })
  })
}
