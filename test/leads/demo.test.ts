// The leads, transcriptions and WhatsApp demo seeders on a company that already has the
// contacts and tasks the earlier seeders would have made.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { rawRows, sql } from '../helpers/sql.js'
import type { DemoContext } from '../../src/demo/index.js'
import { seedLeads } from '../../src/modules/leads-api/leads-api.demo.js'
import { seedMeetTranscriptions } from '../../src/modules/meet-transcriptions/meet-transcriptions.demo.js'
import { seedWhatsapp } from '../../src/modules/whatsapp/whatsapp.demo.js'
import { addUser, tenant, type Tenant } from '../helpers/factories.js'
import { addContact, addTask } from '../helpers/leads-factories.js'
import { backends, startApp, type TestApp } from '../helpers/app.js'
import { transaction } from '../../src/db/db.js'

for (const backend of backends()) {
  describe(`leads, transcriptions and WhatsApp demo data (${backend.name})`, () => {
    let t: TestApp
    let acme: Tenant
    let userIds: number[]

    before(async () => {
      t = await startApp(backend)
      acme = await tenant(t.db)
      userIds = [acme.userId, (await addUser(t.db, acme.companyId)).id, (await addUser(t.db, acme.companyId)).id]
      for (let i = 0; i < 40; i++) {
        const contact = await addContact(t.db, acme.companyId, userIds[i % 3] ?? acme.userId)
        if (i < 8) await addTask(t.db, acme.companyId, { contactId: contact.id, assignedToId: contact.user_id })
      }
      let seed = 1
      await transaction(t.db, async (db) => {
        const ctx: DemoContext = { db, companyId: acme.companyId, userIds, now: new Date('2026-11-22T12:00:00Z'), random: () => (seed = (seed * 48271) % 2147483647) / 2147483647 }
        for (const seeder of [seedLeads, seedMeetTranscriptions, seedWhatsapp]) await seeder(ctx)
      })
    })
    after(() => t.close())

    const get = (url: string) => t.app.inject({ url, headers: acme.auth }).then((r) => r.json<{ count: number } & { data: unknown[] }>())

    test('leads of several providers, some linked to contacts, counted right', async () => {
      const rows = await rawRows<{ provider: string; contact_id: number | null; user_id: number }>(t.db, sql`
        select provider, contact_id, user_id from leads where company_id = ${acme.companyId}`)
      assert.equal(rows.length, 40)
      assert.equal(new Set(rows.map((r) => r.provider)).size, 4)
      assert.equal(rows.filter((r) => r.contact_id !== null).length, 10)
      for (const userId of userIds) {
        const mine = rows.filter((r) => r.user_id === userId)
        assert.deepEqual(await get(`/api/v1/leads/count?user_id=${userId}`), { count: mine.length })
        assert.deepEqual(await get(`/api/v1/leads/count?user_id=${userId}&with_contact=true`), { count: mine.filter((r) => r.contact_id).length })
      }
    })

    test('transcriptions in every state, some linked to tasks with their events', async () => {
      const rows = await rawRows<{ status: string; task_id: number | null; transcript_length: number | null; transcript: string | null }>(t.db, sql`
        select status, task_id, transcript_length, transcript from meet_transcriptions where company_id = ${acme.companyId}`)
      assert.deepEqual([...new Set(rows.map((r) => r.status))].sort(), ['recording', 'stopped', 'transcribed'])
      const linked = rows.filter((r) => r.task_id !== null)
      assert.ok(linked.length > 0 && linked.length < rows.length)
      assert.ok(rows.filter((r) => r.status === 'transcribed').every((r) => r.transcript_length === r.transcript?.length))
      const events = await rawRows<{ id: number }>(t.db, sql`select id from contact_events where kind = 'meet_transcription_linked'`)
      assert.equal(events.length, linked.length)
    })

    test('WhatsApp chats for a few dozen contacts with several users, agreeing with the messages', async () => {
      const chats = await rawRows<{ contact_id: number; user_id: number; messages_count: number; last_message_id: number }>(t.db, sql`
        select contact_id, user_id, messages_count, last_message_id from whatsapp_chats where company_id = ${acme.companyId}`)
      assert.equal(new Set(chats.map((c) => c.contact_id)).size, 36)
      assert.equal(new Set(chats.map((c) => c.user_id)).size, 3)
      assert.ok(chats.length > 36) // some contacts talk with two users
      const truth = await rawRows<{ contact_id: string; user_id: string; n: number; last_id: string }>(t.db, sql`
        select contact_id, user_id, count(*)::int as n,
          (array_agg(id order by sent_at desc, id desc))[1] as last_id
        from whatsapp_messages where company_id = ${acme.companyId} group by contact_id, user_id`)
      assert.equal(truth.length, chats.length)
      for (const row of truth) {
        const chat = chats.find((c) => c.contact_id === Number(row.contact_id) && c.user_id === Number(row.user_id))
        assert.deepEqual([chat?.messages_count, chat?.last_message_id], [row.n, Number(row.last_id)])
      }
      const first = chats[0]
      const page = await get(`/api/v1/whatsapp_messages/chats?page=1&contact_id=${first?.contact_id}`)
      assert.ok(page.data.length >= 1)
    })
  })
}
