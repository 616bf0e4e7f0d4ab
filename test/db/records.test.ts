// Every record the API returns is built in SQL from its TypeBox schema (src/db/records.ts).
// This reads each record, as a select list and as JSON, from a migrated database loaded with
// the demo data, and checks it against the schema: the same keys in the same order, each
// column of a type the schema allows, and every record read validating against the schema.
// A key added to the schema without its column (or an expression for a key the schema does
// not have) fails here.
import assert from 'node:assert/strict'
import { readdirSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { after, before, describe, test } from 'node:test'
import type pg from 'pg'
import type { TSchema } from 'typebox'
import { Value } from 'typebox/value'
import type { DatabaseHandle } from '../../src/db/client.js'
import { definedRecords, type RecordSql } from '../../src/db/records.js'
import { seedDemoIfEmpty } from '../../src/demo/index.js'
import { backends } from '../helpers/app.js'

const src = fileURLToPath(new URL('../../src/', import.meta.url))
const ENTRY_POINTS = new Set(['server.ts', join('cli', 'main.ts')])
// Schemas a record refers to by $ref (`Ref(WhatsappMessage)`), by their $id: every one src/ exports.
const context: Record<string, TSchema> = {}
for (const file of readdirSync(src, { recursive: true, encoding: 'utf8' }).sort()) {
  if (!file.endsWith('.ts') || file.endsWith('.d.ts') || ENTRY_POINTS.has(file)) continue
  const exported = (await import(pathToFileURL(join(src, file)).href)) as Record<string, unknown>
  for (const value of Object.values(exported)) {
    const id = (value as { $id?: unknown } | null)?.$id
    if (typeof id === 'string') Object.assign(context, { [id]: value, [`${id}#`]: value })
  }
}

/** The JSON types each PostgreSQL type (by oid) reads as through node-postgres and the API. */
const JSON_TYPES: Record<number, string[]> = {
  16: ['boolean'], // bool
  20: ['integer', 'number'], // int8 (read as a number: src/db/client.ts)
  21: ['integer', 'number'], // int2
  23: ['integer', 'number'], // int4
  1700: ['number'], // numeric
  701: ['number'], // float8
  25: ['string'], // text
  1043: ['string'], // varchar
  1082: ['string'], // date
  1114: ['string'], // timestamp
  1184: ['string'], // timestamptz
  114: ['object', 'array'], // json
  3802: ['object', 'array'], // jsonb
  1009: ['array'], // text[]
  1015: ['array'], // varchar[]
  1016: ['array'], // int8[]
  1007: ['array'], // int4[]
}

/** The JSON types a property of a schema allows (null left out: any column may be null). */
function allowed(schema: Record<string, unknown>): string[] {
  if (schema.$ref !== undefined) return ['object']
  const types = Array.isArray(schema.type) ? (schema.type as string[]) : typeof schema.type === 'string' ? [schema.type] : []
  const unions = [...((schema.anyOf as Record<string, unknown>[] | undefined) ?? []), ...((schema.oneOf as Record<string, unknown>[] | undefined) ?? [])]
  const fromUnion = unions.flatMap(allowed)
  const fromEnum = Array.isArray(schema.enum) ? (schema.enum as unknown[]).map((v) => (typeof v === 'number' ? 'number' : typeof v)) : []
  const fromConst = schema.const === undefined ? [] : [typeof schema.const]
  return [...types, ...fromUnion, ...fromEnum, ...fromConst].filter((t) => t !== 'null')
}

function compatible(oid: number, schema: Record<string, unknown>): boolean {
  const columnTypes = JSON_TYPES[oid]
  if (!columnTypes) return false
  const schemaTypes = allowed(schema)
  if (schemaTypes.length === 0) return true
  return columnTypes.some((t) => schemaTypes.includes(t) || (t === 'integer' && schemaTypes.includes('number')))
}

/** A record's SQL with its parameters (a task's today: \$2) as nulls. */
const unbound = (sql: string) => sql.replaceAll(/\$\d+/g, 'null')

/** `from` joined so that a record of nulls comes out when the tables are empty. */
const nullRow = (record: RecordSql) => `(select 1) one left join ${/ join /i.test(record.from) ? `(${record.from})` : record.from} on false`

describe('records', () => {
  const [backend] = backends()
  let database: DatabaseHandle
  let drop: () => Promise<void>
  let client: pg.PoolClient
  before(async () => {
    if (!backend) throw new Error('no backend')
    ;({ database, drop } = await backend.open())
    await seedDemoIfEmpty(database.db)
    client = await (database.db as pg.Pool).connect()
    // The schema's enums read as strings, arrays as arrays.
    const types = await client.query<{ oid: number; typtype: string; typcategory: string }>(
      "select oid::int, typtype, typcategory from pg_type where typtype = 'e' or typcategory = 'A'",
    )
    for (const type of types.rows) JSON_TYPES[type.oid] ??= type.typtype === 'e' ? ['string'] : ['array']
  })
  after(async () => {
    client.release()
    await drop()
  })

  const records = definedRecords()
  const check = (record: RecordSql, value: unknown) => { assert.ok(Value.Check(context, record.schema, value), `${record.name}: ${JSON.stringify([...Value.Errors(context, record.schema, value)].slice(0, 3))}`); }

  test('every record the API returns is built from its schema', () => {
    assert.ok(records.length >= 15, `only ${String(records.length)} records: were the modules loaded?`)
  })

  for (const record of records) {
    const keys = Object.keys(record.schema.properties)
    const properties = record.schema.properties as Record<string, Record<string, unknown>>

    test(`${record.name}: the select list has the schema's keys, in order, of the schema's types`, async () => {
      const result = await client.query(unbound(`select ${record.columns()} from ${record.from} limit 1`))
      assert.deepEqual(result.fields.map((field) => field.name), keys)
      for (const field of result.fields) {
        const property = properties[field.name] ?? {}
        assert.ok(compatible(field.dataTypeID, property), `${record.name}.${field.name}: column type ${String(field.dataTypeID)} for ${JSON.stringify(property)}`)
      }
      for (const row of result.rows as Record<string, unknown>[]) {
        check(record, JSON.parse(JSON.stringify(row)))
      }
    })

    test(`${record.name}: the JSON has the schema's keys, in order, and validates`, async () => {
      const empty = await client.query<{ json: string }>(unbound(`select ${record.json()}::text as json from ${nullRow(record)}`))
      assert.deepEqual(Object.keys(JSON.parse(empty.rows[0]?.json ?? '{}') as object), keys)
      const result = await client.query<{ json: string }>(unbound(`select ${record.json()}::text as json from ${record.from} limit 1`))
      for (const row of result.rows) {
        const value = JSON.parse(row.json) as unknown
        assert.deepEqual(Object.keys(value as object), keys)
        check(record, value)
      }
    })
  }
})
