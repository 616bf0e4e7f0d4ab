// Parameter values: valid ones drawn from an operation's schema (and from the ids that
// exist), and hostile ones an attacker or a broken integration sends.
import fc from 'fast-check'
import type { Pools } from './fixture.js'
import type { Schema } from './operations.js'

/** A JSON number token written as is (`1e309`, `9999999999999999999`): JSON.stringify cannot. */
export class Raw {
  constructor(readonly text: string) {}
}

export type Value = string | number | boolean | null | Raw | Value[] | { [key: string]: Value }

const KIB = 1024

export const hostileStrings: string[] = [
  '\u0000',
  'a\u0000b',
  Array.from({ length: 32 }, (_, i) => String.fromCharCode(i)).join('') + '\u007f',
  '\u0008\u001b[31mred',
  '\ud800',
  'x\udfffy',
  '\udc00\ud800',
  '\ud83d',
  '\ufffe\uffff',
  '\u202eevil',
  '\ufeffbom',
  '😀'.repeat(255),
  '😀'.repeat(256),
  'é'.repeat(256),
  'a'.repeat(255),
  'a'.repeat(256),
  'x'.repeat(1000),
  'x'.repeat(1001),
  'z'.repeat(100 * KIB),
  '',
  ' ',
  '\t\n\r',
  '\u00a0\u2028\u3000',
  'null',
  'undefined',
  'true',
  'false',
  "'",
  '"',
  '\\',
  '%',
  '%00',
  '%zz',
  "' OR 1=1 --",
  '); DROP TABLE contacts; --',
  '<script>alert(1)</script>',
  '${7*7}{{7*7}}',
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'a@b',
  'ANA@ACME.EXAMPLE',
  '@',
  'a@b.c\u0000',
  '#fff\u0000',
  '+55 (11) 99999-0000\u0000',
]

/** What once answered 500 somewhere, swept through every field: NUL (22021), lone surrogates, leap seconds (22007). */
export const SWEPT: string[] = ['a\u0000b', '\u0000', '\ud800', 'x\udfffy', '\udc00', '2026-06-30T23:59:60Z', '2026-11-22T20:59:60-03:00']

export const hostileNumbers: Value[] = [
  new Raw('1e309'),
  new Raw('-1e309'),
  new Raw('1E400'),
  new Raw('9999999999999999999'),
  new Raw('9007199254740993'),
  new Raw('-0'),
  new Raw('1.0'),
  new Raw('0.0000001'),
  2 ** 53,
  2 ** 53 - 1,
  2 ** 63,
  -(2 ** 53),
  1e21,
  -1,
  0,
  1.5,
  0.5,
  101,
  2147483647,
  2147483648,
  -2147483649,
  4294967296,
  Number.MIN_VALUE,
  '1e3',
  '007',
  '0x10',
  ' 1',
  '1 ',
  '+1',
  '-1',
  '0',
  '1.0',
  'NaN',
  'Infinity',
  '1e309',
  '9999999999999999999',
  '9007199254740992',
  '9007199254740991',
  '2147483648',
  '9'.repeat(17),
  '00',
  '-0',
  '1_000',
  '',
  '0'.repeat(300) + '1',
  '١٢٣',
]

export const hostileDates: string[] = [
  '0000-01-01',
  '0000-01-01T00:00:00Z',
  '0001-01-01',
  '0001-01-01T00:00:00Z',
  '0099-12-31T23:00:00+01:00',
  '2026-02-30',
  '2026-02-29',
  '2024-02-29',
  '+010000-01-01',
  '+010000-01-01T00:00:00Z',
  '-000001-01-01T00:00:00Z',
  '10000-01-01',
  '9999-12-31',
  '9999-12-31T23:59:59.999-15:59',
  '9999-12-31T23:59:59Z',
  '2026-11-22T10:00:00+25:00',
  '2026-11-22T10:00:00+15:59',
  '2026-11-22T10:00:00-16:00',
  '2026-11-22T10:00:00+99:99',
  '2026-11-22T10:00:00+0530',
  '2026-13-01',
  '2026-00-10',
  '2026-11-00',
  '2026-11-22T24:00:00Z',
  '2026-11-22T23:59:60Z',
  '2026-11-22T10:00:00.123456789Z',
  '2026-11-22T10:00:00',
  '2026-11-22 10:00:00Z',
  '2026-11-22t10:00:00z',
  '2026-11-22T10:00Z',
  '1969-12-31T23:59:59Z',
  '1970-01-01',
  '20261122',
  '2026-W47',
  '2026-11-22\u0000',
  'today',
]

const deepArray = (depth: number): Value => (depth === 0 ? 1 : [deepArray(depth - 1)])

export const wrongTypes: Value[] = [
  [],
  [1],
  ['a', 'b'],
  [[1]],
  [null],
  [{}],
  {},
  { a: 1 },
  { field: 'x', value: 'y' },
  JSON.parse('{"__proto__": {"polluted": true}}') as Value,
  { constructor: { prototype: { polluted: true } } },
  null,
  true,
  false,
  deepArray(200),
]

/** Keys an attacker adds to a body or query beside the operation's own parameters. */
export const prototypeKeys = ['__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', '__defineGetter__']

function hugeIds(n: number, from: number[]): number[] {
  return Array.from({ length: n }, (_, i) => from[i % Math.max(1, from.length)] ?? i + 1)
}

const isType = (schema: Schema, type: string): boolean =>
  schema.type === type || (Array.isArray(schema.type) && schema.type.includes(type)) || (schema.anyOf ?? []).some((s) => isType(s, type))

const isDate = (schema: Schema): boolean => schema.format === 'date' || schema.format === 'date-time' || (schema.anyOf ?? []).some(isDate)

/** Which pool an integer parameter's ids come from. */
function poolFor(name: string, resource: string, pools: Pools): number[] | undefined {
  switch (name) {
    case 'contact_id':
      return pools.contacts
    case 'user_id':
    case 'assigned_to_id':
      return pools.users
    case 'flow_id':
      return pools.flows
    case 'task_id':
      return pools.tasks
    case 'company_id':
      return pools.companies
    case 'id':
      return resourcePool(resource, pools)
  }
  return undefined
}

/** The ids of a resource's records, when the fixture keeps a pool for it. */
export function ownPool(resource: string, pools: Pools): number[] | undefined {
  const pool = (pools as unknown as Record<string, unknown>)[resource]
  return Array.isArray(pool) && pool.every((id) => typeof id === 'number') ? pool : undefined
}

/** The ids a path id of the resource is drawn from (contacts for a resource without a pool). */
export function resourcePool(resource: string, pools: Pools): number[] {
  return ownPool(resource, pools) ?? pools.contacts
}

const existing = (ids: number[], pools: Pools): fc.Arbitrary<number> =>
  ids.length > 0
    ? fc.oneof({ weight: 8, arbitrary: fc.constantFrom(...ids) }, { weight: 1, arbitrary: fc.constantFrom(...pools.foreign) })
    : fc.constantFrom(...pools.foreign)

const day = fc
  .date({ min: new Date('2020-01-01T00:00:00Z'), max: new Date('2030-12-31T00:00:00Z'), noInvalidDate: true })
  .map((d) => d.toISOString().slice(0, 10))
const instant = fc
  .date({ min: new Date('2020-01-01T00:00:00Z'), max: new Date('2030-12-31T00:00:00Z'), noInvalidDate: true })
  .map((d) => d.toISOString())
const word = fc.string({ unit: fc.constantFrom(...Array.from('abcdefghijklmnopqrstuvwxyz0123456789')), minLength: 1, maxLength: 12 })
const text = fc.oneof(
  { weight: 4, arbitrary: fc.string({ maxLength: 30 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'grapheme', maxLength: 30 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 30 }) },
)

/** A value that fits a custom field of the kind (or clears it). */
function fittingValue(f: Pools['fields'][number]): fc.Arbitrary<Value> {
  const fits: Record<string, fc.Arbitrary<string>> = {
    email: fc.tuple(word, fc.nat(99_999)).map(([w, n]) => `${w}.${n}@example.com`),
    telephone: fc.constantFrom('+55 11 99999-0000', '(11) 5555-1234'),
    date: day,
    dropdown: f.options.length > 0 ? fc.constantFrom(...f.options.map((o) => o.name)) : fc.constant(''),
  }
  return fc.oneof({ weight: 6, arbitrary: fits[f.kind] ?? text }, { weight: 1, arbitrary: fc.constantFrom<Value>('', null) })
}

/** A value the schema accepts (mostly: free-form strings may still be refused by a rule). */
export function validValue(name: string, schema: Schema, resource: string, pools: Pools): fc.Arbitrary<Value> {
  const enumValues = (schema.enum ?? []).filter((v): v is string | boolean => typeof v === 'string' || typeof v === 'boolean')
  if (enumValues.length > 0) {
    return fc.oneof(fc.constantFrom(...enumValues), fc.constantFrom(...enumValues.map(String)))
  }
  if (isType(schema, 'integer') || isType(schema, 'number')) {
    const pool = poolFor(name, resource, pools)
    if (pool) return fc.oneof({ weight: 3, arbitrary: existing(pool, pools) }, { weight: 1, arbitrary: existing(pool, pools).map(String) })
    if (name === 'page') {
      // Mostly pages that exist; also pages far past the end, up to the contract's bound (issue 30).
      return fc.oneof(
        { weight: 4, arbitrary: fc.oneof(fc.integer({ min: 1, max: 3 }), fc.constantFrom('1', '2')) },
        { weight: 1, arbitrary: fc.constantFrom<Value>(2 ** 31 - 1, 2 ** 31, 2 ** 32, 2 ** 53 - 1, '2147483648', '9007199254740991') },
        { weight: 1, arbitrary: fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER }) },
      )
    }
    const min = schema.minimum ?? 0
    const max = Math.min(schema.maximum ?? 1000, min + 1000)
    return fc.oneof(fc.integer({ min, max }), fc.integer({ min, max }).map(String))
  }
  if (isType(schema, 'boolean')) return fc.constantFrom(true, false, 'true', 'false')
  if (isDate(schema)) {
    if (schema.anyOf) return fc.oneof(day, instant, instant.map((s) => s.replace('Z', '-03:00')))
    return schema.format === 'date-time' ? fc.oneof(instant, instant.map((s) => s.replace('Z', '-03:00'))) : day
  }
  if (isType(schema, 'array')) {
    if (name === 'tags') {
      return pools.tags.length > 0 ? fc.uniqueArray(fc.constantFrom(...pools.tags), { maxLength: 4 }) : fc.constant([])
    }
    if (name === 'custom_fields' && pools.fields.length > 0) {
      return fc.uniqueArray(fc.constantFrom(...pools.fields), { maxLength: 3, selector: (f) => f.field }).chain((fields) =>
        fc.tuple(...fields.map((f) => fittingValue(f).map((value) => ({ field: f.field, value })))),
      )
    }
    if (name === 'options') return fc.array(fc.record({ name: word }), { minLength: 1, maxLength: 4 })
    return fc.array(validValue(name, schema.items ?? {}, resource, pools), { maxLength: 3 })
  }
  if (isType(schema, 'string')) {
    if (schema.format === 'email' || name.includes('email')) return fc.tuple(word, fc.nat(99_999)).map(([w, n]) => `${w}.${n}@example.com`)
    if (name === 'color') return fc.constantFrom('#abc', '#A1B2C3', '#000000')
    if (name.includes('phone')) return fc.constantFrom('+55 11 99999-0000', '(11) 5555-1234', '555.123.4567')
    if (schema.minLength) return word
    return fc.oneof({ weight: 3, arbitrary: word }, { weight: 1, arbitrary: text })
  }
  return fc.oneof(word, fc.integer())
}

/** A hostile value for the parameter: one of its own kind (strings, numbers, dates) or any other. */
export function hostileValue(name: string, schema: Schema, pools: Pools): fc.Arbitrary<Value> {
  const kinds: fc.Arbitrary<Value>[] = []
  if (isDate(schema)) kinds.push(fc.constantFrom(...hostileDates))
  else if (isType(schema, 'integer') || isType(schema, 'number')) kinds.push(fc.constantFrom(...hostileNumbers))
  else if (isType(schema, 'array')) {
    const items = fc.oneof(fc.constantFrom(...hostileStrings), fc.constantFrom(...hostileNumbers), fc.constantFrom(...wrongTypes))
    kinds.push(fc.array(items, { minLength: 1, maxLength: 3 }))
    if (name === 'tags') {
      kinds.push(fc.constantFrom<Value>(hugeIds(70_000, pools.tags), hugeIds(1_001, pools.tags), hugeIds(65_536, [1]), [0], [pools.foreign[2] ?? 1]))
    } else {
      const record = fc.record({
        field: fc.oneof(fc.constantFrom(...pools.fieldNames), fc.constantFrom(...hostileStrings)),
        value: fc.oneof(fc.constantFrom(...hostileStrings), fc.constantFrom(...hostileDates), fc.constantFrom(...wrongTypes)),
        name: fc.constantFrom(...hostileStrings),
      })
      kinds.push(fc.array(record, { minLength: 1, maxLength: 3 }))
      kinds.push(fc.constantFrom<Value>(Array.from({ length: 2000 }, (_, i) => ({ name: `o${i}`, field: `f${i}`, value: 'v' }))))
    }
  } else kinds.push(fc.constantFrom(...hostileStrings))
  return fc.oneof(
    { weight: 6, arbitrary: fc.oneof(...kinds) },
    { weight: 1, arbitrary: fc.constantFrom(...hostileStrings) },
    { weight: 1, arbitrary: fc.constantFrom(...hostileDates) },
    { weight: 1, arbitrary: fc.constantFrom(...hostileNumbers) },
    { weight: 2, arbitrary: fc.constantFrom(...wrongTypes) },
  )
}

/** Path segments as they appear in the URL (already percent-encoded where that matters). */
export const hostileSegments: string[] = [
  '0',
  '-1',
  'abc',
  '1.5',
  '1e3',
  '007',
  '+1',
  '9007199254740991',
  '9007199254740992',
  '9999999999999999999',
  '1'.repeat(100),
  '1'.repeat(101),
  '1'.repeat(300),
  '%00',
  '1%00',
  '%zz',
  '%',
  '%E0%A4%A',
  '%ED%A0%80',
  '%F0%9F%98%80',
  '%C0%AF',
  '%20',
  '%201',
  '%0A',
  '%2F1',
  '..',
  '.',
  'null',
  'undefined',
  '__proto__',
  'constructor',
  'prototype',
  '%5B%5D',
  '1;1',
  'true',
  '%7B%7D',
  'a'.repeat(256),
  encodeURIComponent('😀'.repeat(64)),
]
