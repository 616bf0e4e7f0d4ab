// The counter slots of src/db/counters.ts: the pool gives each of its connections a slot no
// other connection of it holds, a transaction that asks for it (counterSlotSetting) adds to
// that slot, the triggers' counters of that transaction too (counter_slot(), migration 0029),
// and any other statement to its backend's process id modulo 16, as before.
import assert from 'node:assert/strict'
import { once } from 'node:events'
import { after, before, describe, test } from 'node:test'
import type pg from 'pg'
import { COUNTER_SLOTS, counterSlotSetting } from '../../src/db/counters.js'
import { transaction, type Db } from '../../src/db/db.js'
import { backends } from '../helpers/app.js'
import { tenant } from '../helpers/factories.js'

const slotOf = async (on: Db) =>
  (await on.query<{ slot: number; pid_slot: number }>('select counter_slot() as slot, (pg_backend_pid() % 16)::smallint as pid_slot')).rows[0]

for (const backend of backends()) {
  describe(`counter slots (${backend.name})`, () => {
    let opened: Awaited<ReturnType<typeof backend.open>>
    let pool: pg.Pool
    before(async () => {
      opened = await backend.open()
      pool = opened.database.db as pg.Pool
    })
    after(() => opened.drop())

    test('every connection the pool holds at once has a slot of its own; one that leaves gives its slot back', async () => {
      const clients = await Promise.all(Array.from({ length: 10 }, () => pool.connect()))
      const given = clients.map((client) => counterSlotSetting(client)['engage.counter_slot'])
      try {
        assert.ok(given.every((slot) => slot !== undefined && Number(slot) >= 0 && Number(slot) < COUNTER_SLOTS), given.join())
        assert.equal(new Set(given).size, clients.length, `distinct: ${given.join()}`)
      } finally {
        // Destroyed: the pool removes it, and its slot is free once its connection has ended.
        const removed = once(pool, 'remove')
        clients[0]?.release(true)
        for (const client of clients.slice(1)) client.release()
        await removed
      }
      const others = clients.slice(1).map((client) => counterSlotSetting(client)['engage.counter_slot'])
      const fresh = await Promise.all(Array.from({ length: 10 }, () => pool.connect()))
      try {
        const now = fresh.map((client) => counterSlotSetting(client)['engage.counter_slot'])
        assert.equal(new Set(now).size, fresh.length, `distinct after a connection left: ${now.join()}`)
        assert.deepEqual(new Set(now.filter((slot) => !others.includes(slot))), new Set([given[0]]), 'the new connection took the freed slot')
      } finally {
        for (const client of fresh) client.release()
      }
    })

    test('a transaction with counterSlotSetting adds to its connection\'s slot, savepoints and triggers too; without it, the process id modulo 16', async () => {
      const { companyId, userId } = await tenant(pool)
      const seen = await transaction(pool, async (tx) => {
        const client = tx as pg.PoolClient
        // A contact written by SQL is listed by the trigger contacts_listed (migration 0029).
        await tx.query(`insert into contacts (company_id, user_id, first_name, email, stage) values ($1, $2, 'Slot', 'slot@example.com', 'lead')`, [companyId, userId])
        return { given: counterSlotSetting(client)['engage.counter_slot'], inside: await slotOf(tx), nested: await transaction(tx, slotOf) }
      }, { settings: counterSlotSetting })
      assert.equal(String(seen.inside?.slot), seen.given)
      assert.equal(String(seen.nested?.slot), seen.given)
      const listed = await pool.query<{ list: string; slot: number }>(
        "select list, slot from counters where company_id = $1 and list in ('contacts_by_stage', 'contacts_by_user_stage') order by list", [companyId])
      assert.deepEqual(listed.rows.map((r) => [r.list, String(r.slot)]), [['contacts_by_stage', seen.given], ['contacts_by_user_stage', seen.given]])
      // After COMMIT, and in a transaction that does not ask for it, the setting is gone.
      const plain = await transaction(pool, slotOf)
      assert.equal(plain?.slot, plain?.pid_slot)
      for (let i = 0; i < 3; i++) {
        const outside = await slotOf(pool)
        assert.equal(outside?.slot, outside?.pid_slot)
      }
    })
  })
}
