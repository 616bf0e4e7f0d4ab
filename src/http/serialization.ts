// Fastify's response serializers, compiled as its default compiler does (fast-json-stringify,
// the app's named schemas as external schemas), with two savings at build time and the same
// serializers: fast-json-stringify validates and indexes every external schema it is given,
// once per serializer, so each serializer gets only the named schemas its schema reaches
// ($ref, transitively); and one schema object (the shared 4xx/5xx error body) is compiled
// once per app, not once per route (docs/performance.md, "Test suite time").
import build from 'fast-json-stringify'

type Schema = Record<string, unknown>
type Serializer = (data: unknown) => string

/**
 * The named schemas `schema` reaches through $ref (transitively), as fast-json-stringify's
 * external schemas; all of them when a $ref names none (fast-json-stringify then resolves it
 * or refuses it, as with Fastify's own compiler). A schema that is itself a named one is not
 * also an external (as in Fastify's compiler).
 */
export function externalsFor(schema: Schema, externalSchemas: Record<string, Schema>): Record<string, Schema> {
  const externals = Object.fromEntries(Object.entries(externalSchemas).filter(([id]) => id !== schema.$id))
  const given: Record<string, Schema> = {}
  const pending: unknown[] = [schema]
  while (pending.length > 0) {
    const node = pending.pop()
    if (typeof node !== 'object' || node === null) continue
    for (const [key, value] of Object.entries(node)) {
      if (key === '$ref' && typeof value === 'string') {
        const id = value.split('#')[0] ?? ''
        if (id === '' || Object.hasOwn(given, id)) continue // a pointer into the same schema, or seen
        const external = externals[id]
        if (!external) return externals
        given[id] = external
        pending.push(external)
      } else if (typeof value === 'object' && value !== null) {
        pending.push(value) // objects and arrays alike
      }
    }
  }
  return given
}

/** A `schemaController.compilersFactory.buildSerializer` for Fastify (its named schemas by $id, its serializerOpts). */
export function buildSerializer(externalSchemas?: unknown, serializerOpts?: build.Options) {
  const named = (externalSchemas ?? {}) as Record<string, Schema>
  const compiled = new WeakMap<object, Serializer>()
  return (route: { schema?: unknown }): Serializer => {
    const schema = route.schema as Schema
    let serialize = compiled.get(schema)
    if (!serialize) {
      serialize = build(schema as build.AnySchema, { ...serializerOpts, schema: externalsFor(schema, named) as unknown as Record<string, build.Schema> })
      compiled.set(schema, serialize)
    }
    return serialize
  }
}
