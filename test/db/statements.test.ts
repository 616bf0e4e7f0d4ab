// Every statement the repositories define is prepared against the migrated schema (so a
// typo or a renamed column fails here, not in production), and its text is kept in a .sql
// snapshot per module beside this file, so that query changes show in review (and which
// statements share the pipelined connections).
// UPDATE_SNAPSHOTS=1 rewrites the snapshots.
import assert from 'node:assert/strict'
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { after, before, describe, test } from 'node:test'
import '../../src/app.js' // loads every module, so every statement is defined
import type { DatabaseHandle } from '../../src/db/client.js'
import { definedQueries, type Query } from '../../src/db/query.js'
import { backends } from '../helpers/app.js'

const folder = new URL('./statements/', import.meta.url)

function byModule(queries: Query<unknown>[]): Map<string, Query<unknown>[]> {
  const modules = new Map<string, Query<unknown>[]>()
  for (const query of queries) {
    const module = query.name.split('.')[0] ?? query.name
    modules.set(module, [...(modules.get(module) ?? []), query])
  }
  return modules
}

function snapshot(queries: Query<unknown>[]): string {
  return queries
    .toSorted((a, b) => a.name.localeCompare(b.name))
    .map((q) => `-- ${q.name}${q.pipelined ? ' (pipelined: src/db/pipeline.ts)' : ''}${q.replica ? ' (replica: src/db/replica.ts)' : ''}\n${q.text.trim()};\n`)
    .join('\n')
}

describe('statements', () => {
  const [backend] = backends()
  let database: DatabaseHandle
  let drop: () => Promise<void>
  before(async () => {
    if (!backend) throw new Error('no backend')
    ;({ database, drop } = await backend.open())
  })
  after(() => drop())

  test('every statement has a <module>.<what> name', () => {
    assert.ok(definedQueries().length > 0)
    for (const query of definedQueries()) assert.match(query.name, /^[a-z][A-Za-z]*\.[a-z][A-Za-z]*$/)
  })

  test('every statement prepares against the migrated schema', async () => {
    const client = (database.db as unknown as { session: { client: { query: (text: string) => Promise<unknown> } } })
      .session.client
    for (const query of definedQueries()) {
      await assert.doesNotReject(client.query(`PREPARE check_statement AS ${query.text}`), query.name)
      await client.query('DEALLOCATE check_statement')
    }
  })

  for (const [module, queries] of byModule(definedQueries())) {
    test(`the statements of ${module} match statements/${module}.sql`, () => {
      const file = new URL(`${module}.sql`, folder)
      const text = snapshot(queries)
      if (process.env.UPDATE_SNAPSHOTS === '1') writeFileSync(file, text)
      assert.ok(existsSync(file), `no snapshot yet: run UPDATE_SNAPSHOTS=1 npm test and commit statements/${module}.sql`)
      assert.equal(text, readFileSync(file, 'utf8'), 'the statements changed: run UPDATE_SNAPSHOTS=1 npm test and review the diff')
    })
  }
})
