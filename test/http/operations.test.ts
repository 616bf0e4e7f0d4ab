// The OpenAPI texts of the /api operations are data: src/modules/<name>/<name>.operations.json,
// by operationId, which the routes read through `operation` (src/http/routes.ts). Every entry
// is the texts of exactly one operation, listed in the order its module declares them, and
// every /api operation of the document takes its summary and description from its entry.
import assert from 'node:assert/strict'
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import { fileURLToPath } from 'node:url'
import type { FastifyInstance } from 'fastify'
import { buildApp } from '../../src/app.js'
import { loadConfig } from '../../src/config.js'
import type { DatabaseHandle } from '../../src/db/client.js'
import type { Db } from '../../src/db/db.js'
import { operation, textsWith } from '../../src/http/routes.js'
import tagTexts from '../../src/modules/tags-api/tags-api.operations.json' with { type: 'json' }

const modules = fileURLToPath(new URL('../../src/modules/', import.meta.url))

interface Text {
  summary: string
  description?: string
}

/** Each module's texts: its file (`tags-api/tags-api.operations.json`) and its entries in file order. */
const files = readdirSync(modules, { recursive: true, encoding: 'utf8' })
  .map((file) => file.split('\\').join('/'))
  .filter((file) => file.endsWith('.operations.json'))
  .sort()
  .map((file) => ({ file, texts: JSON.parse(readFileSync(join(modules, file), 'utf8')) as Record<string, Text> }))

/** A text of a file as a pattern: its `{NAME}` placeholders stand for what the module fills in. */
const pattern = (text: string) => text.split(/\{[A-Z_]+\}/).map((part) => part.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')).join('.+?')

const noDatabase: DatabaseHandle = {
  db: undefined as unknown as Db, // never queried: declaring and describing the routes reads nothing
  kind: 'postgres',
  ping: () => Promise.resolve(),
  listen: () => Promise.resolve(() => Promise.resolve()),
  close: () => Promise.resolve(),
}

interface Operation {
  operationId: string
  summary: string
  description: string
}

describe('operation texts (<name>.operations.json)', () => {
  let app: FastifyInstance
  let operations: { name: string; op: Operation }[]
  before(async () => {
    app = await buildApp(loadConfig({ LOG_LEVEL: 'silent' }), { database: noDatabase })
    await app.ready()
    const doc = app.swagger() as unknown as { paths: Record<string, Record<string, Operation>> }
    operations = Object.entries(doc.paths)
      .filter(([path]) => path.startsWith('/api/'))
      .flatMap(([path, item]) => Object.entries(item).map(([method, op]) => ({ name: `${method.toUpperCase()} ${path}`, op })))
  })
  after(() => app.close())

  test('every module with /api routes has its file; an entry is a summary and maybe a description, no id twice', () => {
    assert.ok(files.length >= 11, `${String(files.length)} files`)
    const seen = new Map<string, string>()
    for (const { file, texts } of files) {
      for (const [id, text] of Object.entries(texts)) {
        assert.match(id, /^[a-z][a-zA-Z]+$/, `${file}: ${id}`)
        assert.equal(typeof text.summary, 'string', `${file}: ${id}`)
        assert.ok(text.description === undefined || typeof text.description === 'string', `${file}: ${id}`)
        assert.deepEqual(Object.keys(text).filter((key) => key !== 'summary' && key !== 'description'), [], `${file}: ${id}`)
        assert.equal(seen.get(id), undefined, `${id} is in ${file} and ${String(seen.get(id))}`)
        seen.set(id, file)
      }
    }
  })

  test('every entry is used by exactly one route, and a file lists its operations in the order they are declared', () => {
    const declared = app.accessTable.map((rule) => rule.operationId)
    for (const { file, texts } of files) {
      for (const id of Object.keys(texts)) {
        assert.equal(declared.filter((d) => d === id).length, 1, `${file}: ${id} is the operationId of one route`)
      }
      assert.deepEqual(Object.keys(texts), declared.filter((id) => id in texts), `${file}: in route order`)
    }
  })

  test("every /api operation's summary and description come from its entry", () => {
    const byId = new Map(files.flatMap(({ texts }) => Object.entries(texts)))
    assert.ok(operations.length >= 46, `${String(operations.length)} operations`)
    for (const { name, op } of operations) {
      const text = byId.get(op.operationId)
      assert.ok(text, `${name}: ${op.operationId} has no entry in a <name>.operations.json`)
      assert.match(op.summary, new RegExp(`^${pattern(text.summary)}$`), name)
      // The document adds who may call it after the route's own description (src/plugins/docs.plugin.ts).
      if (text.description === undefined) assert.doesNotMatch(op.description, /\n\n/, name)
      else assert.match(op.description, new RegExp(`^${pattern(text.description)}\\n\\n[^\\n]+$`), name)
      assert.doesNotMatch(`${op.summary} ${op.description}`, /\{[A-Z_]+\}/, `${name}: a placeholder is left`)
    }
  })
})

test('operation: the texts of the id, the config and the schema after them; an unknown id does not compile', () => {
  const options = operation(tagTexts, 'createTag', { scope: 'tags:write', rootKey: 'tag' }, { body: { type: 'object' } })
  assert.deepEqual(options, {
    config: { scope: 'tags:write', rootKey: 'tag' },
    schema: { operationId: 'createTag', ...tagTexts.createTag, body: { type: 'object' } },
  })
  assert.deepEqual(operation(tagTexts, 'updateTag', { scope: 'tags:write' }, {}).schema, { operationId: 'updateTag', summary: tagTexts.updateTag.summary })
  // @ts-expect-error: the operationId is a key of the module's texts
  assert.throws(() => operation(tagTexts, 'renameTag', { scope: 'tags:write' }, {}))
})

test('textsWith: each {NAME} a value fills, other braces left as they are', () => {
  const texts = { makeThing: { summary: 'At most {MAX} things', description: 'Answers `{id, deleted: true}`; {OTHER} stays' } }
  assert.deepEqual(textsWith(texts, { MAX: 20 }), {
    makeThing: { summary: 'At most 20 things', description: 'Answers `{id, deleted: true}`; {OTHER} stays' },
  })
})
