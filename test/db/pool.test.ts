// The pool's hardened checkouts (src/db/client.ts): the same client checked out again and
// again keeps one query wrapper, so the thousandth transaction costs what the first did, and
// a connection-level failure inside a checkout still hands the client back (released once).
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import pg from 'pg'
import { hardenCheckouts } from '../../src/db/client.js'
import { backends } from '../helpers/app.js'

for (const backend of backends()) {
  describe(`pool checkouts (${backend.name})`, () => {
    let opened: Awaited<ReturnType<typeof backend.open>>
    let pool: pg.Pool
    before(async () => {
      opened = await backend.open()
      pool = new pg.Pool({ connectionString: opened.url, max: 1, query_timeout: 300 })
      pool.on('error', () => undefined)
      hardenCheckouts(pool)
    })
    after(async () => {
      await pool.end()
      await opened.drop()
    })

    test('a client checked out many times keeps the one query it was given', async () => {
      const first = await pool.connect()
      const query: unknown = Reflect.get(first, 'query')
      first.release()
      for (let i = 0; i < 50; i++) {
        const again = await pool.connect()
        assert.equal(again, first, 'a pool of one hands out the same client')
        assert.equal(Reflect.get(again, 'query'), query, `checkout ${String(i + 2)} wrapped the query again`)
        const { rows } = await again.query<{ n: number }>('select $1::int as n', [i])
        assert.equal(rows[0]?.n, i)
        again.release()
        again.release() // a second release is harmless
      }
      assert.equal(pool.idleCount, 1)
    })

    test('a statement the database does not answer in time releases the client, which the pool replaces', async () => {
      const client = await pool.connect()
      await assert.rejects(client.query('select pg_sleep(2)'), /timeout/i)
      assert.equal(pool.totalCount, 0, 'the timed-out client left the pool')
      client.release() // the caller's own release afterwards is harmless
      const fresh = await pool.connect()
      assert.notEqual(fresh, client)
      assert.equal((await fresh.query<{ one: number }>('select 1 as one')).rows[0]?.one, 1)
      fresh.release()
    })
  })
}
