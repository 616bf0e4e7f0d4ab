// Every statement the service can send is defined with defineQuery at the top level of a
// module of src/ (run() refuses any other), so loading every module of src/ here defines all
// of them: the API's, the demo loader's and the admin command line's. Each is prepared
// against the migrated schema (a typo or a renamed column fails here, not in production),
// and its text is kept in one .sql file per source file beside this test, as immich keeps
// server/src/queries/*.repository.sql, so that query changes show in review. A statement
// missing from the snapshots, or a snapshot naming a statement that no longer exists, fails.
// UPDATE_SNAPSHOTS=1 rewrites the snapshots.
import assert from 'node:assert/strict'
import { existsSync, readdirSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs'
import { basename, join, relative } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { after, before, describe, test } from 'node:test'
import type { DatabaseHandle } from '../../src/db/client.js'
import { definedQueries, type Query } from '../../src/db/query.js'
import { backends } from '../helpers/app.js'

const src = fileURLToPath(new URL('../../src/', import.meta.url))
const folder = fileURLToPath(new URL('./statements/', import.meta.url))
/** Modules that start a process when loaded (they define no statement of their own). */
const ENTRY_POINTS = new Set(['server.ts', join('cli', 'main.ts')])

const modules = readdirSync(src, { recursive: true, encoding: 'utf8' })
  .filter((file) => file.endsWith('.ts') && !file.endsWith('.d.ts') && !ENTRY_POINTS.has(file))
  .sort()
for (const file of modules) await import(pathToFileURL(join(src, file)).href)

interface Site {
  file: string
  line: number
  column: number
}

function siteOf(query: Query<unknown>): Site {
  const match = /^(?:file:\/\/)?(.+):(\d+):(\d+)$/.exec(query.definedAt)
  if (!match?.[1]) throw new Error(`${query.name}: where it is defined is unknown (${query.definedAt})`)
  return { file: match[1], line: Number(match[2]), column: Number(match[3]) }
}

const sources = new Map<string, string[]>()
const linesOf = (file: string) => {
  let lines = sources.get(file)
  if (!lines) {
    lines = readFileSync(file, 'utf8').split('\n')
    sources.set(file, lines)
  }
  return lines
}

/**
 * The column where the statement's text starts in its source (after the backtick that opens
 * it, directly or through one wrapping call such as `withEvent(`), so that its lines keep the
 * indentation they have there; undefined when the text is not written in place.
 */
function textColumn(site: Site): number | undefined {
  const lines = linesOf(site.file)
  const offset = site.column - 1
  // defineQuery<…>('name', `…   or   defineQuery('name', wrap(`…, over up to five lines.
  const call = [(lines[site.line - 1] ?? '').slice(offset), ...lines.slice(site.line, site.line + 4)].join('\n')
  const opening = /^defineQuery(?:<[^(]*>)?\(\s*(?:'[^']*'|`[^`]*`)\s*,\s*(?:\w+\(\s*)?`/.exec(call)?.[0]
  if (opening === undefined) return undefined
  const newline = opening.lastIndexOf('\n')
  return newline < 0 ? offset + opening.length : opening.length - newline - 1
}

/** The statement as it reads in its source: continuation lines without the source's indentation. */
function formatted(query: Query<unknown>): string {
  const lines = query.text.trim().split('\n')
  const continued = lines.slice(1).filter((line) => line.trim() !== '')
  const least = Math.min(...continued.map((line) => line.length - line.trimStart().length))
  const column = textColumn(siteOf(query)) ?? (continued.length > 0 ? least : 0)
  return lines
    .map((line, index) => {
      if (index === 0) return line
      const indent = line.length - line.trimStart().length
      return line.slice(Math.min(indent, column)).trimEnd()
    })
    .join('\n')
}

/** The snapshot file of a source file: its name, `.ts` replaced by `.sql`. */
const snapshotName = (file: string) => `${basename(file, '.ts')}.sql`

function byFile(queries: Query<unknown>[]): Map<string, Query<unknown>[]> {
  const files = new Map<string, Query<unknown>[]>()
  for (const query of queries) {
    const { file } = siteOf(query)
    files.set(file, [...(files.get(file) ?? []), query])
  }
  return files
}

function snapshot(file: string, queries: Query<unknown>[]): string {
  const header = `-- Statements of src/${relative(src, file).split('\\').join('/')}, as run (test/db/statements.test.ts writes this file).\n`
  const body = queries
    .toSorted((a, b) => siteOf(a).line - siteOf(b).line || a.name.localeCompare(b.name))
    .map((q) => `-- ${q.name}${q.pipelined ? ' (pipelined: src/db/pipeline.ts)' : ''}${q.replica ? ' (replica: src/db/replica.ts)' : ''}\n${formatted(q)};\n`)
    .join('\n')
  return `${header}\n${body}`
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

  const queries = definedQueries()
  const files = byFile(queries)

  test('every statement has a <module>.<what> name and a source file of src/', () => {
    assert.ok(queries.length > 150, `only ${String(queries.length)} statements: were the modules loaded?`)
    for (const query of queries) {
      assert.match(query.name, /^[a-z][A-Za-z]*\.[a-z][A-Za-z]*$/)
      assert.ok(siteOf(query).file.startsWith(src), `${query.name} is defined outside src/`)
    }
  })

  test('every statement prepares against the migrated schema', async () => {
    const client = await (database.db as import('pg').Pool).connect()
    try {
      for (const query of queries) {
        await assert.doesNotReject(client.query(`PREPARE check_statement AS ${query.text}`), query.name)
        await client.query('DEALLOCATE check_statement')
      }
    } finally {
      client.release()
    }
  })

  test('one snapshot per source file, and no snapshot without its statements', () => {
    const expected = new Set([...files.keys()].map(snapshotName))
    assert.equal(expected.size, files.size, 'two source files with statements have the same name')
    for (const name of readdirSync(folder).filter((f) => f.endsWith('.sql'))) {
      if (expected.has(name)) continue
      if (process.env.UPDATE_SNAPSHOTS === '1') unlinkSync(join(folder, name))
      else assert.fail(`statements/${name} belongs to no source file's statements: run UPDATE_SNAPSHOTS=1 and review`)
    }
  })

  for (const [file, fileQueries] of files) {
    const name = snapshotName(file)
    test(`the statements of src/${relative(src, file)} match statements/${name}`, () => {
      const path = join(folder, name)
      const text = snapshot(file, fileQueries)
      if (process.env.UPDATE_SNAPSHOTS === '1') writeFileSync(path, text)
      assert.ok(existsSync(path), `no snapshot yet: run UPDATE_SNAPSHOTS=1 and commit statements/${name}`)
      assert.equal(text, readFileSync(path, 'utf8'), 'the statements changed: run UPDATE_SNAPSHOTS=1 and review the diff')
    })
  }
})
