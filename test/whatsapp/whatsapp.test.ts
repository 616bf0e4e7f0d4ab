import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import type { Response as Reply } from 'light-my-request'
import { addUser, tenant, type Tenant } from '../helpers/factories.js'
import { addContact, addMessages } from '../helpers/leads-factories.js'
import { backends, startApp, type TestApp } from '../helpers/app.js'
import { rawRows, sql } from '../helpers/sql.js'

const MESSAGE_KEYS = ['body', 'contact_id', 'created_at', 'direction', 'id', 'sent_at', 'status', 'updated_at', 'user_id']

for (const backend of backends()) {
  describe(`whatsapp messages (${backend.name})`, () => {
    let t: TestApp
    let acme: Tenant
    let other: Tenant
    let bruno: { id: number }
    let contactId: number
    let quietId: number

    before(async () => {
      t = await startApp(backend)
      acme = await tenant(t.db)
      other = await tenant(t.db)
      bruno = await addUser(t.db, acme.companyId)
      contactId = (await addContact(t.db, acme.companyId, acme.userId)).id
      quietId = (await addContact(t.db, acme.companyId, acme.userId)).id
      // Two imports: the chats fold the second into the first.
      await addMessages(t.db, acme.companyId, [
        { contactId, userId: acme.userId, sentAt: '2026-11-20T10:00:00Z', body: 'a1', direction: 'outbound', status: 'read' },
        { contactId, userId: bruno.id, sentAt: '2026-11-20T11:00:00Z', body: 'b1', direction: 'inbound', status: 'received' },
        { contactId, userId: acme.userId, sentAt: '2026-11-21T09:00:00Z', body: 'a2' },
      ])
      await addMessages(t.db, acme.companyId, [
        { contactId, userId: acme.userId, sentAt: '2026-11-19T08:00:00Z', body: 'a0 (older, imported late)' },
        { contactId, userId: bruno.id, sentAt: '2026-11-22T12:00:00Z', body: 'b2' },
        { contactId, userId: bruno.id, sentAt: '2026-11-22T12:00:00Z', body: 'b3 (same instant, later id)' },
      ])
    })
    after(() => t.close())

    const get = (who: Tenant, url: string) => t.app.inject({ url: `/api/v1/whatsapp_messages${url}`, headers: who.auth })
    const bodies = (res: Reply) => res.json<{ data: { body: string }[] }>().data.map((m) => m.body)
    interface Chat { contact_id: number; user_id: number; messages_count: number; last_message: { body: string }; last_message_at: string }
    const chatsOf = (res: Reply) => res.json<{ data: Chat[] }>().data

    test("a contact's messages, newest first (sent_at, then id), paged", async () => {
      const res = await get(acme, `?page=1&per_page=4&contact_id=${contactId}`)
      assert.equal(res.statusCode, 200)
      assert.deepEqual(bodies(res), ['b3 (same instant, later id)', 'b2', 'a2', 'b1'])
      assert.deepEqual(res.json().meta, { page: 1, per_page: 4, total_count: 6, total_pages: 2 })
      assert.match(String(res.headers.link), new RegExp(`</api/v1/whatsapp_messages\\?page=2&per_page=4&contact_id=${contactId}>; rel="next"`))
      const message = res.json().data[0]
      assert.deepEqual(Object.keys(message).sort(), MESSAGE_KEYS)
      assert.deepEqual(
        [message.contact_id, message.user_id, message.direction, message.status, message.sent_at],
        [contactId, bruno.id, 'outbound', 'sent', '2026-11-22T12:00:00.000Z'],
      )
      const rest = await get(acme, `?page=2&per_page=4&contact_id=${contactId}`)
      assert.deepEqual(bodies(rest), ['a1', 'a0 (older, imported late)'])
    })

    test('user_id narrows to one responsible user; a user of another company gives nothing', async () => {
      const res = await get(acme, `?page=1&contact_id=${contactId}&user_id=${bruno.id}`)
      assert.deepEqual(bodies(res), ['b3 (same instant, later id)', 'b2', 'b1'])
      assert.equal(res.json().meta.total_count, 3)
      const none = await get(acme, `?page=1&contact_id=${contactId}&user_id=${other.userId}`)
      assert.equal(none.statusCode, 200)
      assert.deepEqual(none.json().data, [])
      assert.equal(none.json().meta.total_count, 0)
      const quiet = await get(acme, `?page=1&contact_id=${quietId}`)
      assert.deepEqual([quiet.json().data, quiet.json().meta.total_count], [[], 0])
    })

    test('chats: one per responsible user, latest message first, with the count and last message', async () => {
      const res = await get(acme, `/chats?page=1&contact_id=${contactId}`)
      assert.equal(res.statusCode, 200)
      const chats = chatsOf(res)
      assert.deepEqual(
        chats.map((c) => [c.contact_id, c.user_id, c.messages_count, c.last_message.body, c.last_message_at]),
        [
          [contactId, bruno.id, 3, 'b3 (same instant, later id)', '2026-11-22T12:00:00.000Z'],
          [contactId, acme.userId, 3, 'a2', '2026-11-21T09:00:00.000Z'],
        ],
      )
      const [latest] = chats
      assert.ok(latest)
      assert.deepEqual(Object.keys(latest).sort(), ['contact_id', 'last_message', 'last_message_at', 'messages_count', 'user_id'])
      assert.deepEqual(Object.keys(latest.last_message).sort(), MESSAGE_KEYS)
      assert.deepEqual(res.json().meta, { page: 1, per_page: 25, total_count: 2, total_pages: 1 })

      const one = await get(acme, `/chats?page=1&contact_id=${contactId}&user_id=${acme.userId}`)
      assert.deepEqual(chatsOf(one).map((c) => c.user_id), [acme.userId])
      const paged = await get(acme, `/chats?page=2&per_page=1&contact_id=${contactId}`)
      assert.deepEqual(chatsOf(paged).map((c) => c.user_id), [acme.userId])

      const [row] = await rawRows<{ messages_count: number; last_message_at: Date }>(t.db, sql`
        select messages_count, last_message_at from whatsapp_chats where contact_id = ${contactId} and user_id = ${acme.userId}`)
      assert.deepEqual([row?.messages_count, row?.last_message_at.toISOString()], [3, '2026-11-21T09:00:00.000Z'])
    })

    test('every page, first half and second half alike (newest first, ties by id), with and without user_id', async () => {
      const chatty = (await addContact(t.db, acme.companyId, acme.userId)).id
      // Two imports, instants out of id order and shared, so the order is sent_at then id, not insertion.
      const instants = ['2026-01-05T10:00:00Z', '2026-01-03T10:00:00Z', '2026-01-05T10:00:00Z', '2026-01-01T10:00:00Z', '2026-01-04T10:00:00Z']
      await addMessages(t.db, acme.companyId, instants.map((sentAt, i) => ({ contactId: chatty, userId: i % 2 ? bruno.id : acme.userId, sentAt, body: `first ${i}` })))
      await addMessages(t.db, acme.companyId, instants.map((sentAt, i) => ({ contactId: chatty, userId: i % 2 ? acme.userId : bruno.id, sentAt, body: `second ${i}` })))
      const everything = await get(acme, `?page=1&per_page=100&contact_id=${chatty}`)
      interface Message { id: number; user_id: number; sent_at: string; body: string }
      const all = everything.json<{ data: Message[] }>().data
      assert.equal(all.length, 10)
      const newestFirst = [...all].sort((a, b) => b.sent_at.localeCompare(a.sent_at) || b.id - a.id)
      assert.deepEqual(all, newestFirst)
      for (const [filter, expected] of [
        ['', all],
        [`&user_id=${bruno.id}`, all.filter((m) => m.user_id === bruno.id)],
        [`&user_id=${other.userId}`, []],
      ] as const) {
        for (const perPage of [1, 2, 3, 4]) {
          const pages = Math.ceil(expected.length / perPage)
          for (let page = 1; page <= pages + 1; page++) {
            const res = await get(acme, `?page=${page}&per_page=${perPage}&contact_id=${chatty}${filter}`)
            const label = `${filter} page ${page} per_page ${perPage}`
            assert.equal(res.statusCode, 200, label)
            assert.deepEqual(res.json().data, expected.slice((page - 1) * perPage, page * perPage), label)
            assert.deepEqual(res.json().meta, { page, per_page: perPage, total_count: expected.length, total_pages: pages }, label)
          }
        }
      }
      // A chat's last message is the message as the messages list shows it, byte for byte.
      const chats = await get(acme, `/chats?page=1&contact_id=${chatty}`)
      for (const chat of chatsOf(chats)) {
        const last = all.find((m) => m.user_id === chat.user_id)
        assert.deepEqual(chat.last_message, last)
        assert.equal(chat.last_message_at, last?.sent_at)
      }
      const past = await get(acme, `/chats?page=3&per_page=1&contact_id=${chatty}`)
      assert.deepEqual([past.statusCode, past.json().data, past.json().meta.total_count], [200, [], 2])
    })

    test('a contact of another company, deleted, or none: 404', async () => {
      const theirs = await addContact(t.db, other.companyId, other.userId)
      const deleted = await addContact(t.db, acme.companyId, acme.userId, { deleted: true })
      for (const id of [theirs.id, deleted.id, 999_999]) {
        for (const path of ['', '/chats']) {
          const res = await get(acme, `${path}?page=1&contact_id=${id}`)
          assert.equal(res.statusCode, 404, `${path} ${id}`)
          assert.equal(res.json().error.message, 'Not found')
        }
      }
      assert.equal((await get(other, `?page=1&contact_id=${contactId}`)).statusCode, 404)
    })

    test('contact_id and page are required; bad ids 422', async () => {
      for (const path of ['', '/chats']) {
        for (const [query, fields] of [
          ['', ['contact_id', 'page']],
          ['?page=1', ['contact_id']],
          [`?contact_id=${contactId}`, ['page']],
          [`?page=1&contact_id=abc`, ['contact_id']],
          [`?page=1&contact_id=${contactId}&user_id=0`, ['user_id']],
          [`?page=1&contact_id=${contactId}&per_page=101`, ['per_page']],
        ] as const) {
          const res = await get(acme, `${path}${query}`)
          assert.equal(res.statusCode, 422, `${path}${query}`)
          assert.deepEqual(Object.keys(res.json().error.details).sort(), [...fields], `${path}${query}`)
        }
      }
    })
  })
}
