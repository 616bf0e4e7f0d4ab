// The pipelined connections the short reads share (src/db/pipeline.ts), and run()'s choice
// between them and the pool (src/db/query.ts): every query gets its own answer however many
// share a connection, a failing query fails alone, the queries of one event-loop turn leave in
// one write, a killed connection fails what was in flight on it and the next query opens a new
// one, and a transaction's statements never leave the transaction's connection.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import pg from 'pg'
import { openDatabase } from '../../src/db/client.js'
import { isDatabaseUnavailable } from '../../src/db/pg-errors.js'
import { Pipeline, pipelineOf } from '../../src/db/pipeline.js'
import { defineQuery, run } from '../../src/db/query.js'
import { backends } from '../helpers/app.js'
import { transaction } from '../../src/db/db.js'

const backendPid = defineQuery<{ pid: number; n: number }>('test.pipelinedPid', 'select pg_backend_pid() as pid, $1::int as n', {
  pipelined: true,
})
const pooledPid = defineQuery<{ pid: number }>('test.pooledPid', 'select pg_backend_pid() as pid')

interface LaneView {
  client: pg.Client
}
/** The connections of a pipeline, for what only they can tell (which process, how many writes). */
const lanesOf = (pipeline: Pipeline) => (Reflect.get(pipeline, 'lanes') as (LaneView | undefined)[]).filter((lane) => lane !== undefined)

for (const backend of backends()) {
  describe(`pipelined reads (${backend.name})`, () => {
    let opened: Awaited<ReturnType<typeof backend.open>>
    const errors: Error[] = []
    let pipeline: Pipeline
    before(async () => {
      opened = await backend.open()
      pipeline = new Pipeline({
        connections: 2,
        client: { connectionString: opened.url, query_timeout: 2000 },
        onError: (err) => errors.push(err),
      })
    })
    after(async () => {
      await pipeline.close()
      await opened.drop()
    })

    test('500 queries at once each get their own answer, over the two connections', async () => {
      const answers = await Promise.all(
        Array.from({ length: 500 }, (_, i) =>
          pipeline.query<{ n: number; pid: number }>({ name: 'echo', text: 'select $1::int as n, pg_backend_pid() as pid', values: [i] })),
      )
      assert.deepEqual(answers.map((answer) => answer.rows[0]?.n), Array.from({ length: 500 }, (_, i) => i))
      const pids = new Set(answers.map((answer) => answer.rows[0]?.pid))
      assert.equal(pids.size, 2, 'two connections served them')
    })

    test('a failing query fails alone: the ones before and after it on its connection answer', async () => {
      const settled = await Promise.allSettled(
        [1, 2, 0, 4, 5, 0, 7].map((d) => pipeline.query<{ q: number }>({ name: 'divide', text: 'select 100 / $1::int as q', values: [d] })),
      )
      assert.deepEqual(settled.map((s) => s.status), ['fulfilled', 'fulfilled', 'rejected', 'fulfilled', 'fulfilled', 'rejected', 'fulfilled'])
      const rejected = settled[2]
      assert.equal(rejected?.status === 'rejected' && (rejected.reason as { code?: string }).code, '22012')
      assert.deepEqual(settled.flatMap((s) => (s.status === 'fulfilled' ? [s.value.rows[0]?.q] : [])), [100, 50, 25, 20, 14])
    })

    test('the queries of one event-loop turn leave each connection in one write', async () => {
      await pipeline.query({ text: 'select 1' }) // both connections open
      await pipeline.query({ text: 'select 1' })
      const writes: number[] = []
      const restore = lanesOf(pipeline).map((lane, i) => {
        const stream = lane.client.connection.stream as unknown as { _writev: (...args: unknown[]) => unknown; _write: (...args: unknown[]) => unknown }
        const { _writev: writev, _write: write } = stream
        writes[i] = 0
        stream._writev = (...args) => {
          writes[i] = (writes[i] ?? 0) + 1
          return writev.apply(stream, args)
        }
        stream._write = (...args) => {
          writes[i] = (writes[i] ?? 0) + 1
          return write.apply(stream, args)
        }
        return () => {
          stream._writev = writev
          stream._write = write
        }
      })
      try {
        const answers = await Promise.all(
          Array.from({ length: 40 }, (_, i) => pipeline.query<{ n: number }>({ name: 'echo', text: 'select $1::int as n, pg_backend_pid() as pid', values: [i] })),
        )
        assert.equal(answers.length, 40)
        assert.deepEqual(writes, [1, 1], 'twenty queries per connection, one write each')
      } finally {
        for (const undo of restore) undo()
      }
    })

    test('a connection killed with queries in flight fails them as unavailable; the next query opens a new one', async () => {
      const lanes = lanesOf(pipeline)
      const pids = await Promise.all(lanes.map(() => pipeline.query<{ pid: number }>({ text: 'select pg_backend_pid() as pid' })))
      const victim = pids[0]?.rows[0]?.pid
      assert.ok(victim)
      // Three half-second queries queued on each connection: the kill lands while they run.
      const inFlight = Promise.allSettled(Array.from({ length: 6 }, () => pipeline.query({ text: 'select pg_sleep(0.5), pg_backend_pid() as pid' })))
      const admin = new pg.Client({ connectionString: opened.url })
      await admin.connect()
      try {
        await admin.query('select pg_terminate_backend($1)', [victim])
      } finally {
        await admin.end()
      }
      const settled = await inFlight
      const failed = settled.filter((s) => s.status === 'rejected')
      assert.equal(failed.length, 3, 'the three on the killed connection')
      for (const s of failed) assert.ok(isDatabaseUnavailable(s.reason), String(s.reason))
      assert.ok(errors.length >= 1, 'the connection error was reported')
      const after = await Promise.all(Array.from({ length: 4 }, () => pipeline.query<{ pid: number }>({ text: 'select pg_backend_pid() as pid' })))
      const pidsAfter = new Set(after.map((answer) => answer.rows[0]?.pid))
      assert.equal(pidsAfter.size, 2)
      assert.ok(!pidsAfter.has(victim), 'a new connection replaced the killed one')
    })

    test('close waits for the queries in flight; a query after it is refused', async () => {
      const own = new Pipeline({ connections: 1, client: { connectionString: opened.url }, onError: () => undefined })
      const slow = own.query<{ done: boolean }>({ text: 'select pg_sleep(0.2) is not null as done' })
      await new Promise((resolve) => setTimeout(resolve, 20))
      await own.close()
      assert.equal((await slow).rows[0]?.done, true)
      await assert.rejects(own.query({ text: 'select 1' }), (err) => isDatabaseUnavailable(err))
    })

    test('run() sends a pipelined statement to the pipeline outside a transaction and keeps it in a transaction', async () => {
      const db = opened.database.db
      const shared = pipelineOf(db)
      assert.ok(shared, 'openDatabase gave the pool a pipeline')
      const [outside] = await run(db, backendPid, [1])
      const [pooled] = await run(db, pooledPid, [])
      const lanePids = new Set(
        (await Promise.all(Array.from({ length: 4 }, () => shared.query<{ pid: number }>({ text: 'select pg_backend_pid() as pid' })))).map((r) => r.rows[0]?.pid),
      )
      // Behind a transaction pooler (deploy/pgbouncer-test.sh) the lanes and the pool share
      // the pooler's server connections, so backend pids cannot tell them apart.
      if (!process.env.TEST_DATABASE_POOLER_URL) {
        assert.ok(lanePids.has(outside?.pid), 'outside a transaction: a pipelined connection')
        assert.ok(!lanePids.has(pooled?.pid), 'a statement without the option: a pooled connection')
      }
      await transaction(db, async (tx) => {
        const [txPid] = await run(tx, pooledPid, [])
        const [inside] = await run(tx, backendPid, [2])
        assert.equal(inside?.pid, txPid?.pid, 'inside a transaction: the transaction connection')
        assert.equal(inside?.n, 2)
      })
    })

    test('DB_PIPELINE_CONNECTIONS=0: no pipeline, every statement on a pooled connection', async () => {
      const handle = await openDatabase({ databaseUrl: opened.url, migrate: false, pipelineConnections: 0 })
      try {
        assert.equal(pipelineOf(handle.db), undefined)
        const [row] = await run(handle.db, backendPid, [3])
        assert.equal(row?.n, 3)
      } finally {
        await handle.close()
      }
    })
  })
}
