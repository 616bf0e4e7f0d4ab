// Named statements behind a transaction pooler (src/db/pooler-statements.ts): a server
// connection that lost a statement, or has one the client does not know it has, costs a
// retry, never a failed request. Directly on PostgreSQL the two cases are made by hand
// (DEALLOCATE, PREPARE); through PgBouncer (TEST_DATABASE_POOLER_URL, the CI's pooler suite)
// they happen by themselves, and the last test meets them for real.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import pg from 'pg'
import { queryNamed, queryNamedOnPool } from '../../src/db/pooler-statements.js'
import { defineQuery, run, useStatements } from '../../src/db/query.js'
import { backends } from '../helpers/app.js'

const behindPooler = process.env.TEST_DATABASE_POOLER_URL !== undefined

/** node-postgres's memory of parsed names, which queryNamed corrects (pg 8). */
const parsed = (client: pg.ClientBase) =>
  (client as unknown as { connection: { parsedStatements: Record<string, string | undefined> } }).connection.parsedStatements

const codeOf = (err: unknown) => (err as { code?: unknown }).code

const sums = Array.from({ length: 6 }, (_, i) =>
  defineQuery<{ n: number }>(`test.poolerSum${String(i)}`, `select $1::int + ${String(i)} as n`, { pipelined: i % 2 === 0 }))

for (const backend of backends()) {
  describe(`named statements behind a transaction pooler (${backend.name})`, () => {
    let opened: Awaited<ReturnType<typeof backend.open>>
    before(async () => {
      opened = await backend.open()
    })
    after(async () => {
      useStatements(behindPooler ? 'pooled' : 'named')
      await opened.drop()
    })
    /** A connection of its own to PostgreSQL itself, for the test's steps. */
    const onClient = async (steps: (client: pg.Client) => Promise<void>) => {
      const client = new pg.Client({ connectionString: opened.url })
      await client.connect()
      try {
        await steps(client)
      } finally {
        await client.end()
      }
    }

    test('a server connection that lost the statement: parsed again, and answered', { skip: behindPooler && 'made by hand on PostgreSQL itself' }, async () => {
      await onClient(async (client) => {
        const config = { name: 'test.lost/1', text: 'select $1::int + 1 as n', values: [1] }
        assert.equal((await queryNamed<{ n: number }>(client, config)).rows[0]?.n, 2)
        assert.equal(parsed(client)[config.name], config.text, 'the driver remembers the name where queryNamed looks')
        await client.query('deallocate all')
        await assert.rejects(client.query(config), (err) => codeOf(err) === '26000', 'the plain driver fails here')
        assert.equal((await queryNamed<{ n: number }>(client, { ...config, values: [41] })).rows[0]?.n, 42)
        const { rows } = await client.query<{ count: number }>('select count(*)::int as count from pg_prepared_statements where name = $1', [config.name])
        assert.equal(rows[0]?.count, 1, 'prepared again on the server')
      })
    })

    test('a server connection that has the statement already: bound without a parse, and answered', { skip: behindPooler && 'made by hand on PostgreSQL itself' }, async () => {
      await onClient(async (client) => {
        const config = { name: 'test.known/1', text: 'select $1::int * 2 as n', values: [3] }
        await client.query(`prepare "${config.name}" as ${config.text}`)
        await assert.rejects(client.query(config), (err) => codeOf(err) === '42P05', 'the plain driver fails here')
        assert.equal((await queryNamed<{ n: number }>(client, config)).rows[0]?.n, 6)
        assert.equal(parsed(client)[config.name], config.text)
      })
    })

    // Run in every pass, pooler or not: it checks the driver, on PostgreSQL itself.
    test('node-postgres keeps the names a connection parsed in connection.parsedStatements, the one private field the service reads', async () => {
      await onClient(async (client) => {
        const memory = parsed(client) as Record<string, string | undefined> | undefined
        assert.equal(typeof memory, 'object', 'pg no longer has connection.parsedStatements: src/db/pooler-statements.ts must follow it (docs/architecture.md)')
        assert.ok(memory)
        const config = { name: 'test.private/1', text: 'select $1::int as n', values: [1] }
        await client.query(config)
        assert.equal(memory[config.name], config.text, 'pg records a parsed name there')
        memory[config.name] = undefined
        await assert.rejects(client.query(config), (err) => codeOf(err) === '42P05', 'pg reads it: a name it forgot is parsed again')
      })
    })

    test('on the pool: a recovered statement keeps its connection; any other failure ends it, as pool.query does', { skip: behindPooler && 'made by hand on PostgreSQL itself' }, async () => {
      const pool = new pg.Pool({ connectionString: opened.url, max: 1 })
      try {
        const config = { name: 'test.pooled/1', text: 'select $1::int as n, pg_backend_pid() as pid', values: [1] }
        const first = (await queryNamedOnPool<{ n: number; pid: number }>(pool, config)).rows[0]
        assert.ok(first)
        await pool.query('deallocate all')
        const second = (await queryNamedOnPool<{ n: number; pid: number }>(pool, { ...config, values: [2] })).rows[0]
        assert.equal(second?.n, 2)
        assert.equal(second.pid, first.pid, 'the same connection')
        await assert.rejects(queryNamedOnPool(pool, { name: 'test.fails/1', text: 'select 1 / $1::int', values: [0] }), (err) => codeOf(err) === '22012')
        const third = (await queryNamedOnPool<{ n: number; pid: number }>(pool, { ...config, values: [3] })).rows[0]
        assert.notEqual(third?.pid, first.pid, 'a new connection')
      } finally {
        await pool.end()
      }
    })

    test('after three named tries that meet server connections without the statement, it goes unnamed', async () => {
      const sent: pg.QueryConfig[] = []
      const memory: Record<string, string | undefined> = {}
      const client = {
        connection: { parsedStatements: memory },
        query(config: pg.QueryConfig) {
          sent.push(config)
          memory[config.name ?? ''] = config.text
          if (config.name) return Promise.reject(Object.assign(new Error('prepared statement does not exist'), { code: '26000' }))
          return Promise.resolve({ rows: [{ n: 1 }] })
        },
      } as unknown as pg.ClientBase
      const result = await queryNamed<{ n: number }>(client, { name: 'test.never/1', text: 'select 1 as n', values: [] })
      assert.deepEqual(result.rows, [{ n: 1 }])
      assert.deepEqual(sent.map((config) => config.name), ['test.never/1', 'test.never/1', 'test.never/1', undefined])
      assert.equal(memory['test.never/1'], undefined, 'forgotten after the last miss')
    })

    test('other errors are the caller\'s, after one try', async () => {
      let tries = 0
      const client = {
        connection: { parsedStatements: {} },
        query() {
          tries += 1
          return Promise.reject(Object.assign(new Error('duplicate key'), { code: '23505' }))
        },
      } as unknown as pg.ClientBase
      await assert.rejects(queryNamed(client, { name: 'test.dup/1', text: 'select 1', values: [] }), /duplicate key/)
      assert.equal(tries, 1)
    })

    test('run() in pooled mode: 600 named reads over the pool and the pipeline, each answered right', async () => {
      // Through PgBouncer the pool's and the lanes' statements meet server connections that
      // lack them or have them already; without the recovery some fail with 26000 or 42P05.
      useStatements('pooled')
      const answers = await Promise.all(
        Array.from({ length: 600 }, async (_, i) => {
          const query = sums[i % sums.length]
          assert.ok(query)
          const rows = await run(opened.database.db, query, [i])
          return rows[0]?.n
        }),
      )
      assert.deepEqual(answers, Array.from({ length: 600 }, (_, i) => i + (i % sums.length)))
    })
  })
}
