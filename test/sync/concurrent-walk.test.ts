// Issue 13's "done when": writers create, update and delete contacts through the API while
// a mirror walks them with updated_since and the cursor, again and again until it has caught
// up. Afterwards the mirror is the database's final state, it saw no version of a contact
// twice, and it saw every deletion.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { sql, rawRows } from '../helpers/sql.js'
import { setSyncOptions } from '../../src/http/sync.js'
import { backends, startApp, type TestApp } from '../helpers/app.js'
import { tenant, type Tenant } from '../helpers/factories.js'
import { sleep, walk, type WalkItem } from './walk.js'

// A real margin (requests here read their clock well under a second before they begin),
// and marks reused across requests as in production.
const MARGIN_MS = 1_000
const REUSE_MS = 200
setSyncOptions({ marginMs: MARGIN_MS, reuseMs: REUSE_MS })

const WRITERS = 6
const WRITE_MS = 4_000

for (const backend of backends()) {
  describe(`a walk while contacts are written (${backend.name})`, () => {
    let t: TestApp
    let acme: Tenant
    const tagIds: number[] = []

    before(async () => {
      t = await startApp(backend)
      acme = await tenant(t.db, { name: 'Acme' })
      for (const name of ['Hot', 'Cold', 'VIP']) {
        const response = await t.app.inject({ method: 'POST', url: '/api/v1/tags', headers: acme.auth, payload: { name, color: '#123456' } })
        assert.equal(response.statusCode, 201, response.body)
        tagIds.push(response.json<{ id: number }>().id)
      }
    })
    after(() => t.close())

    test('the mirror ends equal to the database, with no version seen twice and every deletion seen', async () => {
      const start = new Date(Date.now() - 60_000).toISOString()
      const live = new Set<number>()
      const deleted = new Set<number>()
      let n = 0
      let writes = 0
      const state = { writing: true }

      const send = (method: 'POST' | 'PUT' | 'DELETE', url: string, payload?: object) =>
        t.app.inject({ method, url, headers: acme.auth, ...(payload ? { payload } : {}) })

      async function writer(seed: number) {
        let rng = seed
        const random = (m: number) => {
          rng = (rng * 1_103_515_245 + 12_345) % 2 ** 31
          return rng % m
        }
        while (state.writing) {
          const ids = [...live]
          const choice = random(10)
          if (ids.length < 5 || choice < 4) {
            const k = ++n
            const response = await send('POST', '/api/v1/contacts', { first_name: `C${k}`, email: `c${k}@mirror.example`, tags: [tagIds[k % 3]] })
            assert.equal(response.statusCode, 201, response.body)
            live.add(response.json<{ id: number }>().id)
          } else {
            const id = ids[random(ids.length)] ?? 0
            if (choice < 8) {
              const k = ++n
              const response = await send('PUT', `/api/v1/contacts/${id}`, {
                first_name: `U${k}`, email: `u${k}@mirror.example`, business: k % 2 ? 'Globex' : null, tags: tagIds.slice(0, k % 4),
              })
              assert.ok([200, 404].includes(response.statusCode), response.body) // another writer may have deleted it
            } else {
              live.delete(id)
              const response = await send('DELETE', `/api/v1/contacts/${id}`)
              assert.ok([204, 404].includes(response.statusCode), response.body)
              if (response.statusCode === 204) deleted.add(id)
            }
          }
          writes++
        }
      }

      // The mirror: what the walks say, version by version.
      const mirror = new Map<number, WalkItem>()
      const tombstones = new Set<number>()
      const versions = new Set<string>()
      let cursor: string | undefined
      let passes = 0
      let seenWhileWriting = 0
      const apply = (items: WalkItem[]) => {
        for (const item of items) {
          const version = `${item.id}@${item.updated_at ?? item.deleted_at}`
          assert.ok(!versions.has(version), `version ${version} seen twice`)
          versions.add(version)
          if (item.deleted) {
            mirror.delete(item.id)
            tombstones.add(item.id)
          } else {
            mirror.set(item.id, item)
          }
        }
      }
      async function pass() {
        const perPage = 1 + (passes % 7) * 5
        const result = await walk(t.app, acme.auth, '/api/v1/contacts', cursor ? { cursor } : { updated_since: start }, perPage)
        apply(result.items)
        cursor = result.cursor
        passes++
        return result.items.length
      }

      const writers = Array.from({ length: WRITERS }, (_, i) => writer(i + 1))
      const stop = sleep(WRITE_MS).then(() => {
        state.writing = false
      })
      while (state.writing) {
        seenWhileWriting += await pass()
        await sleep(20)
      }
      await stop
      await Promise.all(writers)
      // Caught up: the last writes are older than the margin and the reused mark.
      await sleep(MARGIN_MS + REUSE_MS + 100)
      await pass()

      assert.ok(writes > 100, `only ${writes} writes`)
      assert.ok(passes > 10 && seenWhileWriting > 0, `${passes} passes, ${seenWhileWriting} records while writing`)

      // The database's final state, as the API shows it.
      const final = await rawRows<{ id: number; deleted: boolean }>(
        t.db,
        sql`select id, deleted_at is not null as deleted from contacts where company_id = ${acme.companyId}`,
      )
      const liveIds = final.filter((r) => !r.deleted).map((r) => r.id).sort((a, b) => a - b)
      const deletedIds = final.filter((r) => r.deleted).map((r) => r.id).sort((a, b) => a - b)
      assert.deepEqual([...mirror.keys()].sort((a, b) => a - b), liveIds)
      assert.deepEqual([...tombstones].sort((a, b) => a - b), deletedIds)
      assert.deepEqual([...deleted].sort((a, b) => a - b), deletedIds, 'every deletion the writers made')
      for (const id of liveIds) {
        const response = await t.app.inject({ url: `/api/v1/contacts/${id}`, headers: acme.auth })
        assert.deepEqual(mirror.get(id), response.json(), `contact ${id}`)
      }
      // A fresh walk from the start agrees with the mirror built page by page.
      const fresh = await walk(t.app, acme.auth, '/api/v1/contacts', { updated_since: start })
      assert.deepEqual(new Map(fresh.items.filter((i) => !i.deleted).map((i) => [i.id, i])), mirror)
    })
  })
}
