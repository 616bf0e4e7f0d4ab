// transaction(db, fn) of src/db/db.ts: COMMIT on success, ROLLBACK on a throw (the client
// back in the pool either way), savepoints when nested, and a run again after a deadlock or
// a serialization failure, not after any other error; a transaction that allows its
// statements to run longer waits for them (allowLongerWaits), until it ends; genericPlans
// and settings hold for the transaction and no longer.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import type pg from 'pg'
import { openDatabase } from '../../src/db/client.js'
import { allowLongerWaits, longerWaitOf, transaction, type Db } from '../../src/db/db.js'
import { defineQuery, run } from '../../src/db/query.js'
import { backends } from '../helpers/app.js'

const sleep = defineQuery<never>('test.sleep', 'select pg_sleep($1::float8)')

for (const backend of backends()) {
  describe(`transaction (${backend.name})`, () => {
    let opened: Awaited<ReturnType<typeof backend.open>>
    let db: Db
    const numbers = async () => (await (db as pg.Pool).query<{ n: number }>('select n from tx_check order by n')).rows.map((r) => r.n)
    const insert = (on: Db, n: number) => on.query('insert into tx_check (n) values ($1)', [n])
    const settled = () => {
      const pool = db as pg.Pool
      assert.equal(pool.idleCount, pool.totalCount, 'every checked-out client came back')
    }
    before(async () => {
      opened = await backend.open()
      db = opened.database.db
      await (db as pg.Pool).query('create table tx_check (n int not null)')
    })
    after(() => opened.drop())

    test('commits what fn wrote and answers what fn returned', async () => {
      await (db as pg.Pool).query('truncate tx_check')
      assert.equal(await transaction(db, async (tx) => (await insert(tx, 1), 'done')), 'done')
      assert.deepEqual(await numbers(), [1])
      settled()
    })

    test('genericPlans: every statement of the transaction (a savepoint\'s too) runs on generic plans, and nothing after it', async () => {
      const mode = async (on: Db) => (await on.query<{ plan_cache_mode: string }>('show plan_cache_mode')).rows[0]?.plan_cache_mode
      const seen = await transaction(db, async (tx) => [await mode(tx), await transaction(tx, mode)], { genericPlans: true })
      assert.deepEqual(seen, ['force_generic_plan', 'force_generic_plan'])
      const nested = await transaction(db, async (tx) => [await mode(tx), await transaction(tx, mode, { genericPlans: true }), await mode(tx)])
      // SET LOCAL in a savepoint lasts to the end of the transaction once the savepoint is released.
      assert.deepEqual(nested, ['auto', 'force_generic_plan', 'force_generic_plan'])
      await transaction(db, async (tx) => {
        await assert.rejects(transaction(tx, async () => {
          throw new Error('inner refused')
        }, { genericPlans: true }), /inner refused/)
        assert.equal(await mode(tx), 'auto', 'a savepoint rolled back takes its setting with it')
      })
      const pool = db as pg.Pool
      const clients = await Promise.all(Array.from({ length: pool.totalCount }, () => pool.connect()))
      try {
        for (const client of clients) assert.equal(await mode(client), 'auto')
      } finally {
        for (const client of clients) client.release()
      }
      settled()
    })

    test('settings: the engage.* settings hold for the transaction and no longer; a name or value that is not a constant\'s shape is refused before BEGIN', async () => {
      const setting = async (on: Db) =>
        (await on.query<{ value: string }>("select coalesce(current_setting('engage.contacts_listed_by', true), '') as value")).rows[0]?.value
      const settings = { 'engage.contacts_listed_by': 'statement' } as const
      assert.deepEqual(await transaction(db, async (tx) => [await setting(tx), await transaction(tx, setting)], { settings }), ['statement', 'statement'])
      assert.equal(await setting(db), '', 'gone after COMMIT')
      const refused: Record<`engage.${string}`, string>[] = [{ 'engage.x; drop table tx_check': 'on' }, { 'engage.x': "on'; drop table tx_check; --" }, { 'engage.x': '' }]
      for (const bad of refused) {
        await assert.rejects(transaction(db, async () => 'ran', { settings: bad }), /not a setting a transaction sets/)
      }
      await numbers() // tx_check is still there
      settled()
    })

    test('a throw rolls everything back and is rethrown', async () => {
      await (db as pg.Pool).query('truncate tx_check')
      await assert.rejects(
        transaction(db, async (tx) => {
          await insert(tx, 2)
          throw new Error('refused')
        }),
        /refused/,
      )
      assert.deepEqual(await numbers(), [])
      settled()
    })

    test('nested: a failed inner transaction rolls back to its savepoint only', async () => {
      await (db as pg.Pool).query('truncate tx_check')
      await transaction(db, async (tx) => {
        await insert(tx, 3)
        await assert.rejects(
          transaction(tx, async (inner) => {
            await insert(inner, 4)
            throw new Error('inner refused')
          }),
        )
        await transaction(tx, (inner) => insert(inner, 5))
      })
      assert.deepEqual(await numbers(), [3, 5])
      settled()
    })

    test('runs again after a serialization failure or a deadlock, from the start', async () => {
      await (db as pg.Pool).query('truncate tx_check')
      let attempts = 0
      const answer = await transaction(db, async (tx) => {
        attempts++
        await insert(tx, 10 + attempts)
        if (attempts === 1) throw Object.assign(new Error('could not serialize access'), { code: '40001' })
        if (attempts === 2) throw Object.assign(new Error('deadlock detected'), { code: '40P01' })
        return attempts
      })
      assert.equal(answer, 3)
      assert.deepEqual(await numbers(), [13], 'only the last attempt committed')
      settled()
    })

    test('any other error is not run again', async () => {
      let attempts = 0
      await assert.rejects(
        transaction(db, async () => {
          attempts++
          throw Object.assign(new Error('duplicate key'), { code: '23505' })
        }),
      )
      assert.equal(attempts, 1)
      settled()
    })

    test('allowLongerWaits: the client waits past the pool bound, for that transaction only', async () => {
      // The pool's bound: 200 ms on the server, 700 ms on the client (which then closes the connection).
      const short = await openDatabase({ databaseUrl: opened.url, statementTimeoutMs: 200, pipelineConnections: 0 })
      try {
        const slow = (allow: boolean) =>
          transaction(short.db, async (tx) => {
            await tx.query('set local statement_timeout = 0')
            if (allow) allowLongerWaits(tx, 5000)
            await run(tx, sleep, [1])
            return tx
          })
        await assert.rejects(slow(false), /timeout/)
        const client = await slow(true)
        assert.equal(longerWaitOf(client), undefined, 'the wait ends with the transaction')
        assert.throws(() => { allowLongerWaits(short.db, 5000) }, /only a transaction/)
      } finally {
        await short.close()
      }
    })
  })
}
