// updated_since walks of the five lists: order, pages that join up, the signed cursor, the
// refused parameters, deleted contacts as tombstones, and records held back by the
// high-water mark until the transactions that could precede them are over.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import fc from 'fast-check'
import { execute, rawRows, sql } from '../helpers/sql.js'
import { setSyncOptions } from '../../src/http/sync.js'
import { backends, startApp, type TestApp } from '../helpers/app.js'
import { tenant, type Tenant } from '../helpers/factories.js'
import { addMessages, addTask } from '../helpers/leads-factories.js'
import { assertWalkOrder, sleep, walk, walkPageOf, type WalkItem } from './walk.js'
import { transaction } from '../../src/db/db.js'

// No margin here: nothing writes concurrently, and the tests move the mark themselves.
setSyncOptions({ marginMs: 0, reuseMs: 0 })

const EPOCH = '2000-01-01T00:00:00Z'

interface Resource {
  name: string
  path: string
  /** Creates one record of the tenant; answers its id. */
  create: (who: Tenant) => Promise<number>
  /** Parameters of the list that a walk refuses, with a valid value each. */
  refused: Record<string, string>
}

for (const backend of backends()) {
  describe(`updated_since walks (${backend.name})`, () => {
    let t: TestApp
    let acme: Tenant
    let other: Tenant
    const contactOf = new Map<Tenant, number>()
    let n = 0

    const post = async (who: Tenant, url: string, payload: Record<string, unknown>) => {
      const response = await t.app.inject({ method: 'POST', url, headers: who.auth, payload })
      assert.equal(response.statusCode, 201, response.body)
      return response.json<{ id: number }>().id
    }
    const get = (who: Tenant, url: string) => t.app.inject({ url, headers: who.auth })

    const resources: Resource[] = [
      {
        name: 'contacts',
        path: '/api/v1/contacts',
        create: (who) => post(who, '/api/v1/contacts', { first_name: `Ana ${++n}`, email: `ana${n}@sync.example` }),
        refused: { page: '1', user_id: '1', search_term: 'ana' },
      },
      {
        name: 'tasks',
        path: '/api/v1/tasks',
        create: async (who) => (await addTask(t.db, who.companyId, { contactId: contactOf.get(who) ?? 0, assignedToId: who.userId })).id,
        refused: {
          page: '1', assigned_to_id: '1', start_done_date: '2026-01-01', end_done_date: '2026-01-01', start_due_date: '2026-01-01',
          end_due_date: '2026-01-01', kind: 'email', flow_id: '1', contact_id: '1', done: 'true', status: 'today',
        },
      },
      {
        name: 'leads',
        path: '/api/v1/leads',
        create: (who) => post(who, '/api/v1/leads', { first_name: `Lia ${++n}`, email: `lia${n}@sync.example`, provider: 'linkedin' }),
        refused: { page: '1', id: '1', user_id: '1', with_contact: 'true' },
      },
      {
        name: 'meet_transcriptions',
        path: '/api/v1/meet_transcriptions',
        create: (who) => post(who, '/api/v1/meet_transcriptions', { user_id: who.userId, company_id: who.companyId, meet_id: `m-${++n}` }),
        refused: { page: '1', id: '1', user_id: '1', without_task: 'true' },
      },
      {
        name: 'whatsapp_messages',
        path: '/api/v1/whatsapp_messages',
        create: async (who) => {
          await addMessages(t.db, who.companyId, [{ contactId: contactOf.get(who) ?? 0, userId: who.userId, sentAt: new Date().toISOString() }])
          const [row] = await rawRows<{ id: number }>(t.db, sql`select max(id) as id from whatsapp_messages where company_id = ${who.companyId}`)
          return row?.id ?? 0
        },
        refused: { page: '1', contact_id: '1', user_id: '1' },
      },
    ]
    const created = new Map<string, number[]>()

    before(async () => {
      t = await startApp(backend)
      acme = await tenant(t.db, { name: 'Acme' })
      other = await tenant(t.db, { name: 'Other' })
      for (const who of [acme, other]) contactOf.set(who, await post(who, '/api/v1/contacts', { first_name: 'Owner', email: `owner${++n}@sync.example` }))
      for (const resource of resources) {
        const ids: number[] = []
        for (let i = 0; i < 6; i++) ids.push(await resource.create(acme))
        await resource.create(other)
        created.set(resource.name, ids)
      }
      await sleep(5)
    })
    after(() => t.close())

    for (const resource of resources) {
      describe(resource.name, () => {
        test("a walk from the start gives every record of the company once, in (updated_at, id) order, and none of another company's", async () => {
          const { items } = await walk(t.app, acme.auth, resource.path, { updated_since: EPOCH })
          const ids = items.map((item) => item.id)
          assert.equal(new Set(ids).size, ids.length)
          for (const id of created.get(resource.name) ?? []) assert.ok(ids.includes(id), `${id} in the walk`)
          assertWalkOrder(items)
          const theirs = await walk(t.app, other.auth, resource.path, { updated_since: EPOCH })
          assert.ok(!theirs.items.some((item) => ids.includes(item.id)))
        })

        test('pages of any size join up with no gap and no repeat', async () => {
          const whole = (await walk(t.app, acme.auth, resource.path, { updated_since: EPOCH })).items.map((item) => item.id)
          await fc.assert(
            fc.asyncProperty(fc.integer({ min: 1, max: 8 }), async (perPage) => {
              const { items, pages } = await walk(t.app, acme.auth, resource.path, { updated_since: EPOCH }, perPage)
              assert.deepEqual(items.map((item) => item.id), whole)
              assert.equal(pages, Math.max(1, Math.ceil(whole.length / perPage)))
            }),
            { numRuns: 6 },
          )
        })

        test('updated_since is inclusive, and a caught-up cursor gives what changes later', async () => {
          const { items, cursor } = await walk(t.app, acme.auth, resource.path, { updated_since: EPOCH })
          const last = items.at(-1)
          assert.ok(last?.updated_at)
          const since = await walk(t.app, acme.auth, resource.path, { updated_since: last.updated_at })
          assert.ok(since.items.some((item) => item.id === last.id), 'a record changed at updated_since is in')
          const caughtUp = await walkPageOf(t.app, acme.auth, resource.path, { cursor })
          assert.deepEqual(caughtUp.data, [])
          assert.equal(caughtUp.meta.has_more, false)
          assert.equal(caughtUp.meta.next_cursor, cursor, 'an empty page leaves the position where it was')
          const id = await resource.create(acme)
          created.get(resource.name)?.push(id)
          await sleep(5)
          const next = await walk(t.app, acme.auth, resource.path, { cursor })
          assert.deepEqual(next.items.map((item) => item.id), [id])
        })

        test('the list filters and page cannot be combined with a walk', async () => {
          const modes: Record<string, string>[] = [
            { updated_since: EPOCH },
            { cursor: (await walk(t.app, acme.auth, resource.path, { updated_since: EPOCH })).cursor },
          ]
          for (const mode of modes) {
            const name = Object.keys(mode)[0] ?? ''
            const response = await get(acme, `${resource.path}?${new URLSearchParams({ ...resource.refused, ...mode }).toString()}`)
            assert.equal(response.statusCode, 422, response.body)
            const error = response.json<{ error: { code: string; details: Record<string, string[]>; detail_codes: Record<string, string[]> } }>().error
            assert.equal(error.code, 'validation_failed')
            assert.deepEqual(Object.keys(error.details).sort(), Object.keys(resource.refused).sort())
            for (const messages of Object.values(error.details)) assert.deepEqual(messages, [`can't be combined with ${name}`])
            for (const codes of Object.values(error.detail_codes)) assert.deepEqual(codes, ['exclusive'])
          }
        })

        test('a bad updated_since is a 422 naming it', async () => {
          for (const bad of ['yesterday', '2026-11-22', '2026-11-22T10:00:00', '2026-02-30T10:00:00Z', '2026-11-22T10:00:00+25:00']) {
            const response = await get(acme, `${resource.path}?updated_since=${encodeURIComponent(bad)}`)
            assert.equal(response.statusCode, 422, bad)
            assert.deepEqual(Object.keys(response.json<{ error: { details: object } }>().error.details), ['updated_since'], bad)
          }
        })

        test('a tampered cursor, or one of another company or list, is a 422 naming the cursor', async () => {
          const mine = (await walkPageOf(t.app, acme.auth, resource.path, { updated_since: EPOCH, per_page: '1' })).meta.next_cursor
          const theirs = (await walkPageOf(t.app, other.auth, resource.path, { updated_since: EPOCH, per_page: '1' })).meta.next_cursor
          const otherList = resources.find((r) => r !== resource)?.path ?? ''
          const elsewhere = (await walkPageOf(t.app, acme.auth, otherList, { updated_since: EPOCH, per_page: '1' })).meta.next_cursor
          const [payload = '', signature = ''] = mine.split('.')
          const decoded = JSON.parse(Buffer.from(payload, 'base64url').toString()) as { i: number }
          const forged = `${Buffer.from(JSON.stringify({ ...decoded, i: decoded.i + 1 })).toString('base64url')}.${signature}`
          const cases: [string, RegExp][] = [
            [theirs, /another company/],
            [elsewhere, /another list/],
            [forged, /not a cursor this service issued/],
            [`${payload}.${signature.slice(0, -2)}`, /not a cursor this service issued/],
            [payload, /^is invalid$/],
            ['not-a-cursor', /^is invalid$/],
          ]
          for (const [cursor, message] of cases) {
            const response = await get(acme, `${resource.path}?cursor=${encodeURIComponent(cursor)}`)
            assert.equal(response.statusCode, 422, cursor)
            const error = response.json<{ error: { details: Record<string, string[]>; detail_codes: Record<string, string[]> } }>().error
            assert.deepEqual(Object.keys(error.details), ['cursor'])
            assert.match(error.details.cursor?.[0] ?? '', message)
            assert.deepEqual(error.detail_codes.cursor, ['invalid'])
          }
          const tooLong = await get(acme, `${resource.path}?cursor=${'a'.repeat(1001)}`)
          assert.equal(tooLong.statusCode, 422)
        })

        test('the cursor wins over updated_since', async () => {
          const first = await walkPageOf(t.app, acme.auth, resource.path, { updated_since: EPOCH, per_page: '2' })
          const viaCursor = await walkPageOf(t.app, acme.auth, resource.path, { cursor: first.meta.next_cursor, per_page: '2' })
          const both = await walkPageOf(t.app, acme.auth, resource.path, { cursor: first.meta.next_cursor, updated_since: EPOCH, per_page: '2' })
          assert.deepEqual(both.data, viaCursor.data)
          assert.notDeepEqual(both.data.map((i) => i.id), first.data.map((i) => i.id))
        })
      })
    }

    test('without updated_since or cursor the lists answer as before; contacts, tasks and messages need page again', async () => {
      const contacts = await get(acme, '/api/v1/contacts?page=1&per_page=2')
      assert.equal(contacts.statusCode, 200)
      assert.equal(contacts.headers['content-type'], 'application/json; charset=utf-8')
      assert.deepEqual(Object.keys(contacts.json<{ meta: object }>().meta), ['page', 'per_page', 'total_count', 'total_pages'])
      assert.match(String(contacts.headers.link), /rel="first"/)
      for (const url of ['/api/v1/contacts', '/api/v1/tasks', `/api/v1/whatsapp_messages?contact_id=${contactOf.get(acme)}`]) {
        const response = await get(acme, url)
        assert.equal(response.statusCode, 422, url)
        assert.deepEqual(response.json<{ error: { details: object } }>().error.details, { page: ["can't be blank"] }, url)
      }
      const messages = await get(acme, '/api/v1/whatsapp_messages?page=1')
      assert.deepEqual(messages.json<{ error: { details: object } }>().error.details, { contact_id: ["can't be blank"] })
      const empty = await get(acme, '/api/v1/contacts?page=1&updated_since=&cursor=')
      assert.equal(empty.statusCode, 200, 'empty updated_since and cursor count as not given')
    })

    test('a deleted contact shows as a tombstone, and its messages leave the walk', async () => {
      const id = await post(acme, '/api/v1/contacts', { first_name: 'Gone', email: 'gone@sync.example' })
      await addMessages(t.db, acme.companyId, [{ contactId: id, userId: acme.userId, sentAt: new Date().toISOString() }])
      await sleep(5)
      const start = (await walk(t.app, acme.auth, '/api/v1/whatsapp_messages', { updated_since: EPOCH })).items
      assert.ok(start.some((m) => m.contact_id === id))
      const { cursor } = await walk(t.app, acme.auth, '/api/v1/contacts', { updated_since: EPOCH })
      const deleted = await t.app.inject({ method: 'DELETE', url: `/api/v1/contacts/${id}`, headers: acme.auth })
      assert.equal(deleted.statusCode, 204)
      await sleep(5)
      const { items } = await walk(t.app, acme.auth, '/api/v1/contacts', { cursor })
      const [row] = await rawRows<{ ms: number }>(t.db, sql`select (extract(epoch from deleted_at) * 1000)::float8 as ms
                                                              from contacts where company_id = ${acme.companyId} and id = ${id}`)
      const deletedAt = new Date(row?.ms ?? 0).toISOString()
      assert.deepEqual(items, [{ id, deleted: true, deleted_at: deletedAt }])
      const all = (await walk(t.app, acme.auth, '/api/v1/contacts', { updated_since: EPOCH })).items
      assert.deepEqual(all.filter((c: WalkItem) => c.id === id), items, 'a walk from the start shows it as a tombstone too')
      const messages = (await walk(t.app, acme.auth, '/api/v1/whatsapp_messages', { updated_since: EPOCH })).items
      assert.ok(!messages.some((m) => m.contact_id === id))
    })

    test('records a transaction still open could precede wait for it, then come in order', async () => {
      const { cursor } = await walk(t.app, acme.auth, '/api/v1/contacts', { updated_since: EPOCH })
      const early = await post(acme, '/api/v1/contacts', { first_name: 'Early', email: 'early@sync.example' })
      await sleep(5)
      let release = () => {}
      const gate = new Promise<void>((resolve) => { release = resolve })
      let begun = () => {}
      const started = new Promise<void>((resolve) => { begun = resolve })
      // A slow writer: it began before `late` was written, and stamps its row with its start.
      const slow = transaction(t.db, async (tx) => {
        await execute(tx, sql`select 1`)
        begun()
        await gate
        await execute(tx, sql`update contacts set first_name = 'Slow', updated_at = now()
                              where company_id = ${acme.companyId} and id = ${contactOf.get(acme)}`)
      })
      await started
      await sleep(5)
      const late = await post(acme, '/api/v1/contacts', { first_name: 'Late', email: 'late@sync.example' })
      await sleep(5)
      const meanwhile = await walk(t.app, acme.auth, '/api/v1/contacts', { cursor })
      assert.deepEqual(meanwhile.items.map((c) => c.id), [early], 'only what was stamped before the open transaction began')
      release()
      await slow
      await sleep(5)
      const then = await walk(t.app, acme.auth, '/api/v1/contacts', { cursor: meanwhile.cursor })
      assert.deepEqual(then.items.map((c) => [c.id, c.first_name]), [[contactOf.get(acme), 'Slow'], [late, 'Late']])
    })

    test('records changed within the margin wait for a later page', async () => {
      setSyncOptions({ marginMs: 60_000 })
      try {
        const id = await post(acme, '/api/v1/contacts', { first_name: 'Recent', email: 'recent@sync.example' })
        const { items } = await walk(t.app, acme.auth, '/api/v1/contacts', { updated_since: new Date(Date.now() - 30_000).toISOString() })
        assert.ok(!items.some((c) => c.id === id))
        assert.deepEqual(items, [])
      } finally {
        setSyncOptions({ marginMs: 0 })
      }
    })

    test('walk pages are the documented shapes', async () => {
      const doc = (await t.app.inject({ url: '/docs/v1/openapi.json' })).json<{ components: { schemas: Record<string, unknown> } }>()
      for (const name of ['SyncMeta', 'ContactTombstone', 'ContactSyncPage', 'TaskSyncPage', 'LeadSyncPage', 'MeetTranscriptionSyncPage', 'WhatsappMessageSyncPage']) {
        assert.ok(doc.components.schemas[name], name)
      }
      const task = (await walk(t.app, acme.auth, '/api/v1/tasks', { updated_since: EPOCH })).items[0]
      assert.deepEqual(Object.keys(task ?? {}).sort(), [
        'assigned_to_id', 'contact_id', 'created_at', 'done', 'done_at', 'due_date', 'flow_id', 'id', 'kind', 'status', 'title', 'updated_at',
      ])
      const transcription = (await walk(t.app, acme.auth, '/api/v1/meet_transcriptions', { updated_since: EPOCH })).items[0]
      assert.ok(transcription && 'transcript_length' in transcription && !('transcript' in transcription))
      const contact = (await walk(t.app, acme.auth, '/api/v1/contacts', { updated_since: EPOCH })).items.find((c) => !c.deleted)
      const byId = await get(acme, `/api/v1/contacts/${contact?.id}`)
      assert.deepEqual(contact, byId.json(), 'a live contact in a walk is the contact as GET shows it')
    })
  })
}
