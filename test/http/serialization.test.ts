// The response serializers' compiler (src/http/serialization.ts) gives fast-json-stringify
// only the named schemas a schema reaches: the code it generates must be the code Fastify's
// own compiler gets with all of them, for every named schema and for the unions of them.
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import build from 'fast-json-stringify'
import { componentSchemas } from '../../src/api.js'
import { buildSerializer, externalsFor } from '../../src/http/serialization.js'

type Schema = Record<string, unknown>

const named: Record<string, Schema> = Object.fromEntries(
  componentSchemas.map((schema) => [(schema as unknown as { $id: string }).$id, schema as unknown as Schema]),
)

/** fast-json-stringify's generated code, its per-process counters (ids of merged and anonymous roots) made equal. */
function code(schema: Schema, externals: Record<string, Schema>): string {
  const built = build(schema as build.AnySchema, { schema: externals as unknown as Record<string, build.Schema>, mode: 'debug' })
  return built.code.replace(/__fjs_(root|merged)_\d+/g, '__fjs_id')
}

const refTo = (id: string): Schema => ({ $ref: `${id}#` })

describe('response serializers', () => {
  test('every named schema, as a route references it: the same code as with all the named schemas', () => {
    assert.ok(Object.keys(named).length > 40, 'the named schemas of the API')
    for (const id of Object.keys(named)) {
      const given = externalsFor(refTo(id), named)
      assert.ok(Object.hasOwn(given, id), `${id} is given its own schema`)
      assert.equal(code(refTo(id), given), code(refTo(id), named), id)
    }
  })

  test('a union of pages (a list or its updated_since walk) and a nested reference: the same code', () => {
    const ids = Object.keys(named)
    const pages = ids.filter((id) => id.endsWith('Page'))
    assert.ok(pages.length >= 2)
    const union: Schema = { anyOf: pages.slice(0, 3).map(refTo) }
    const nested: Schema = { type: 'object', properties: { items: { type: 'array', items: refTo(pages[0] ?? '') }, error: refTo('Error') } }
    for (const schema of [union, nested]) assert.equal(code(schema, externalsFor(schema, named)), code(schema, named))
  })

  test('the error body gets the error schema alone; a page gets its item and meta schemas too, not every schema', () => {
    assert.deepEqual(Object.keys(externalsFor(refTo('Error'), named)), ['Error'])
    const page = Object.keys(externalsFor(refTo('ContactPage'), named)).sort()
    assert.ok(page.includes('Contact') && page.includes('PageMeta'), page.join(', '))
    assert.ok(page.length < Object.keys(named).length / 2, page.join(', '))
  })

  test('a $ref to no named schema: all of them are given, and fast-json-stringify refuses it as before', () => {
    const unknown = refTo('NoSuchSchema')
    assert.equal(Object.keys(externalsFor(unknown, named)).length, Object.keys(named).length)
    const compile = buildSerializer(named)
    assert.throws(() => compile({ schema: unknown }), /NoSuchSchema/)
  })

  test('one schema object is compiled once per app (the 4xx/5xx error body of every route), and serializes as before', () => {
    const compile = buildSerializer(named)
    const errorRef = refTo('Error')
    const serialize = compile({ schema: errorRef })
    assert.equal(compile({ schema: errorRef }), serialize)
    assert.notEqual(buildSerializer(named)({ schema: errorRef }), serialize, 'another app compiles its own')
    const body = { error: { status: 404, code: 'not_found', message: 'Not found', request_id: 'r1', details: { id: ['x'] } }, extra: 1 }
    assert.equal(serialize(body), build(errorRef as build.AnySchema, { schema: named as unknown as Record<string, build.Schema> })(body))
  })
})
