// The leads, transcriptions and WhatsApp demo seeders on a company that already has the
// contacts and tasks the earlier seeders would have made.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { eq, sql } from 'drizzle-orm'
import { rawRows } from '../helpers/orm.js'
import { contactEvents, leads, meetTranscriptions, whatsappChats } from '../../src/db/schema.js'
import type { DemoContext } from '../../src/demo/index.js'
import { seedLeads } from '../../src/modules/leads/leads.demo.js'
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
        if (i < 8) await addTask(t.db, acme.companyId, { contactId: contact.id, assignedToId: contact.userId })
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
      const rows = await t.orm.select().from(leads).where(eq(leads.companyId, acme.companyId))
      assert.equal(rows.length, 40)
      assert.equal(new Set(rows.map((r) => r.provider)).size, 4)
      assert.equal(rows.filter((r) => r.contactId !== null).length, 10)
      for (const userId of userIds) {
        const mine = rows.filter((r) => r.userId === userId)
        assert.deepEqual(await get(`/api/v1/leads/count?user_id=${userId}`), { count: mine.length })
        assert.deepEqual(await get(`/api/v1/leads/count?user_id=${userId}&with_contact=true`), { count: mine.filter((r) => r.contactId).length })
      }
    })

    test('transcriptions in every state, some linked to tasks with their events', async () => {
      const rows = await t.orm.select().from(meetTranscriptions).where(eq(meetTranscriptions.companyId, acme.companyId))
      assert.deepEqual([...new Set(rows.map((r) => r.status))].sort(), ['recording', 'stopped', 'transcribed'])
      const linked = rows.filter((r) => r.taskId !== null)
      assert.ok(linked.length > 0 && linked.length < rows.length)
      assert.ok(rows.filter((r) => r.status === 'transcribed').every((r) => r.transcriptLength === r.transcript?.length))
      const events = await t.orm.select().from(contactEvents).where(eq(contactEvents.kind, 'meet_transcription_linked'))
      assert.equal(events.length, linked.length)
    })

    test('WhatsApp chats for a few dozen contacts with several users, agreeing with the messages', async () => {
      const chats = await t.orm.select().from(whatsappChats).where(eq(whatsappChats.companyId, acme.companyId))
      assert.equal(new Set(chats.map((c) => c.contactId)).size, 36)
      assert.equal(new Set(chats.map((c) => c.userId)).size, 3)
      assert.ok(chats.length > 36) // some contacts talk with two users
      const truth = await rawRows<{ contact_id: string; user_id: string; n: number; last_id: string }>(t.db, sql`
        select contact_id, user_id, count(*)::int as n,
          (array_agg(id order by sent_at desc, id desc))[1] as last_id
        from whatsapp_messages where company_id = ${acme.companyId} group by contact_id, user_id`)
      assert.equal(truth.length, chats.length)
      for (const row of truth) {
        const chat = chats.find((c) => c.contactId === Number(row.contact_id) && c.userId === Number(row.user_id))
        assert.deepEqual([chat?.messagesCount, chat?.lastMessageId], [row.n, Number(row.last_id)])
      }
      const first = chats[0]
      const page = await get(`/api/v1/whatsapp_messages/chats?page=1&contact_id=${first?.contactId}`)
      assert.ok(page.data.length >= 1)
    })
  })
}
