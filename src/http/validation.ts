// Request validation with the contract's coercions, shared by the HTTP layer (as Fastify's
// validator compiler) and the admin command line:
// - Integer: a JSON integer or a string of decimal digits; true-flags and booleans: JSON
//   booleans or the strings 'true'/'false'. Nothing else is coerced (no '1e3', no true → 1).
// - '' for an optional parameter that is not a string counts as not given.
// - Every string a schema takes must be text PostgreSQL stores exactly: no NUL, no lone
//   UTF-16 surrogate (nested ones too: custom_fields[].value, options[].name).
// - Dates and date-times are those of src/http/dates.ts (years 0001-9999, offsets ±15:59).
//   A date-time that passes is handed on as its instant in canonical form
//   (2026-07-01T00:00:00.000Z): one rule for every date-time parameter, so a leap second or
//   an offset means the same to JavaScript's Date, PostgreSQL and the service.
// - Failures become one 422 ApiError whose details name each parameter with its problems.
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv'
import addFormats from 'ajv-formats'
import type { FastifySchemaCompiler } from 'fastify'
import type { Static, TSchema } from 'typebox'
import { invalid, type ApiError, type ErrorDetails } from '../errors.js'
import { checkDateTime, checkDay, DAY_OUT_OF_RANGE, instantOf, INSTANT_OUT_OF_RANGE } from './dates.js'

export interface JsonSchema {
  type?: string | string[]
  anyOf?: JsonSchema[]
  properties?: Record<string, JsonSchema>
  required?: string[]
  items?: JsonSchema
  [keyword: string]: unknown
}

// verbose: errors carry their schema, to word messages (a true-flag, a blank check).
const ajv = new Ajv({ allErrors: true, verbose: true, strict: false, coerceTypes: false, useDefaults: true })
addFormats.default(ajv, ['email'])
ajv.addFormat('date', (text: string) => checkDay(text) === 'ok')
ajv.addFormat('date-time', (text: string) => checkDateTime(text) === 'ok')

export const UNSTORABLE_TEXT = 'contains a character that cannot be stored (NUL or a lone surrogate)'

/** Text PostgreSQL keeps exactly: no NUL (text cannot hold it) and well-formed UTF-16 (else U+FFFD or an error). */
export const isStorableText = (text: string) => !text.includes('\u0000') && text.isWellFormed()

const compiled = new WeakMap<object, ValidateFunction>()

function compile(schema: JsonSchema): ValidateFunction {
  let validate = compiled.get(schema)
  if (!validate) {
    validate = ajv.compile(schema)
    compiled.set(schema, validate)
  }
  return validate
}

/** Validates (after the contract's coercions) and returns the data, or throws a 422 ApiError. */
export function validate<S extends TSchema>(schema: S, data: unknown): Static<S> {
  const result = run(compile(schema as unknown as JsonSchema), schema as unknown as JsonSchema, data)
  if ('error' in result) throw result.error
  return result.value as Static<S>
}

export const validatorCompiler: FastifySchemaCompiler<JsonSchema> = ({ schema }) => {
  const check = compile(schema)
  return (data: unknown) => run(check, schema, data)
}

function run(check: ValidateFunction, schema: JsonSchema, data: unknown): { value: unknown } | { error: ApiError } {
  const coerce = coercerFor(schema)
  // Paths are built only when some text cannot be stored (rare): then a second pass names them.
  const found: Unstorable = { any: false, paths: undefined }
  let value = coerce(data ?? {}, '', found)
  const unstorable: string[] = []
  if (found.any) {
    const named: Unstorable = { any: false, paths: unstorable }
    value = coerce(data ?? {}, '', named)
  }
  if (check(value) && unstorable.length === 0) return { value }
  const errors = check.errors ?? []
  // A value that already fails its schema (too long, not a date) reports that instead.
  const failed = new Set(errors.map((e) => e.instancePath))
  const extra = unstorable
    .filter((path) => !failed.has(path))
    .map((instancePath): ErrorObject => ({ instancePath, schemaPath: '', keyword: 'storable', params: {}, message: UNSTORABLE_TEXT }))
  return { error: invalid(describe([...errors, ...extra])) }
}

function typesOf(schema: JsonSchema): Set<string> {
  const types = new Set<string>()
  const add = (s: JsonSchema) => {
    if (typeof s.type === 'string') types.add(s.type)
    else if (Array.isArray(s.type)) s.type.forEach((t) => types.add(t))
    s.anyOf?.forEach(add)
  }
  add(schema)
  return types
}

/** Free text: a string without format, enum or const (dates and enums are not "strings" here). */
function acceptsFreeText(schema: JsonSchema): boolean {
  const isText = (s: JsonSchema) =>
    (s.type === 'string' || (Array.isArray(s.type) && s.type.includes('string'))) &&
    s.format === undefined && s.enum === undefined && s.const === undefined
  return isText(schema) || (schema.anyOf?.some(isText) ?? false)
}

/** A date-time, alone or as a branch of a union (a date or a date-time). */
function takesDateTime(schema: JsonSchema): boolean {
  return schema.format === 'date-time' || (schema.anyOf?.some((s) => s.format === 'date-time') ?? false)
}

function arrayItems(schema: JsonSchema): JsonSchema | undefined {
  return schema.items ?? schema.anyOf?.find((s) => s.items)?.items
}

function objectSchema(schema: JsonSchema): JsonSchema | undefined {
  return schema.properties ? schema : schema.anyOf?.find((s) => s.properties)
}

/** Text PostgreSQL cannot store was seen; with `paths`, where (JSON Pointers, as ajv's instancePath). */
interface Unstorable {
  any: boolean
  paths: string[] | undefined
}

/** The contract's coercions of one schema: `path` is only built when `found.paths` collects. */
type Coercer = (value: unknown, path: string, found: Unstorable) => unknown

const coercers = new WeakMap<JsonSchema, Coercer>()

/**
 * The contract's coercions, planned once per schema (its types, item and property schemas)
 * so that a request pays only for walking its own values.
 */
function coercerFor(schema: JsonSchema): Coercer {
  let coercer = coercers.get(schema)
  if (coercer) return coercer
  const types = typesOf(schema)
  const text = types.has('string')
  const dateTime = takesDateTime(schema)
  const numeric = types.has('integer') || types.has('number')
  const boolean = types.has('boolean')
  const itemSchema = arrayItems(schema)
  let itemCoercer: Coercer | undefined // on first use, like the property plans
  const shape = objectSchema(schema)
  const required = new Set(shape?.required ?? [])
  // Property plans are made on first use: schemas may be large and most requests name few.
  const properties = new Map<string, { coerce: Coercer; keepBlank: boolean; pointer: string }>()
  const propertyPlan = (key: string) => {
    let plan = properties.get(key)
    // Own keys only: a parameter named `constructor` is not the object's constructor.
    const propSchema = shape?.properties && Object.hasOwn(shape.properties, key) ? shape.properties[key] : undefined
    if (!plan && propSchema) {
      plan = { coerce: coercerFor(propSchema), keepBlank: required.has(key) || acceptsFreeText(propSchema), pointer: `/${escapePointer(key)}` }
      properties.set(key, plan)
    }
    return plan
  }
  coercer = (value, path, found) => {
    if (typeof value === 'string') {
      if (text) {
        if (!isStorableText(value)) {
          found.any = true
          found.paths?.push(path)
          return value
        }
        return dateTime && checkDateTime(value) === 'ok' ? instantOf(value).toISOString() : value
      }
      if (numeric && /^\d{1,16}$/.test(value)) {
        const n = Number(value)
        if (Number.isSafeInteger(n)) return n
      }
      if (boolean && (value === 'true' || value === 'false')) return value === 'true'
      return value
    }
    if (Array.isArray(value)) {
      const list: unknown[] = value
      if (!itemSchema) return list
      const items = (itemCoercer ??= coercerFor(itemSchema))
      return list.map((item, i) => items(item, found.paths ? `${path}/${String(i)}` : path, found))
    }
    if (typeof value === 'object' && value !== null && shape) {
      const result: Record<string, unknown> = {}
      for (const key in value) {
        if (!Object.hasOwn(value, key)) continue
        const v = (value as Record<string, unknown>)[key]
        const plan = propertyPlan(key)
        if (!plan) result[key] = v
        else if (v !== '' || plan.keepBlank) result[key] = plan.coerce(v, found.paths ? path + plan.pointer : path, found)
      }
      return result
    }
    return value
  }
  coercers.set(schema, coercer)
  return coercer
}

// JSON Pointer escaping, as ajv writes instancePath.
const escapePointer = (key: string) => key.replace(/~/g, '~0').replace(/\//g, '~1')

function describe(errors: ErrorObject[]): ErrorDetails {
  const details: ErrorDetails = {}
  // A value of the wrong type fails its other keywords too; the type is what to fix.
  const anyOfFailures = new Set(errors.filter((e) => e.keyword === 'anyOf').map((e) => e.instancePath))
  // The null branch of a Nullable failing is no type problem: a bound of the other branch is.
  const isNullBranch = (e: ErrorObject) => anyOfFailures.has(e.instancePath) && e.keyword === 'type' && e.params.type === 'null'
  const typeFailures = new Set(errors.filter((e) => e.keyword === 'type' && !isNullBranch(e)).map((e) => e.instancePath))
  for (const error of errors) {
    // A failed union reports every branch; the null branch adds nothing for a caller.
    if (error.keyword === 'anyOf') continue
    if (isNullBranch(error)) continue
    if (typeFailures.has(error.instancePath) && error.keyword !== 'type') continue
    const segments = error.instancePath.split('/').slice(1)
    const name =
      error.keyword === 'required'
        ? [...segments, String(error.params.missingProperty)][0]
        : segments[0]
    const key = name ?? 'base'
    const message = messageFor(error)
    const list = (details[key] ??= [])
    if (!list.includes(message)) list.push(message)
  }
  // A date-or-date-time in the shape of one but out of range: its range is what to fix.
  for (const [key, list] of Object.entries(details)) {
    if (list.includes(DAY_OUT_OF_RANGE) || list.includes(INSTANT_OUT_OF_RANGE)) details[key] = list.filter((m) => !DATE_SHAPES.has(m))
  }
  return details
}

const DATE_SHAPE = 'must be a date (yyyy-mm-dd)'
const DATE_TIME_SHAPE = 'must be a date-time (ISO 8601 with offset)'
const DATE_SHAPES = new Set([DATE_SHAPE, DATE_TIME_SHAPE])

function messageFor(error: ErrorObject): string {
  const p = error.params as Record<string, unknown>
  switch (error.keyword) {
    case 'required':
      return "can't be blank"
    case 'type':
      // A nullable parameter reports its types as a list: the first one is what to send.
      switch (String(p.type).split(',')[0]) {
        case 'integer':
        case 'number':
          return 'must be an integer'
        case 'boolean':
          return error.parentSchema?.const === true ? 'must be true' : 'must be true or false'
        case 'array':
          return 'must be a list'
        case 'object':
          return 'must be an object'
        default:
          return 'must be a string'
      }
    case 'const':
      return p.allowedValue === true ? 'must be true' : `must be ${JSON.stringify(p.allowedValue)}`
    case 'enum':
      return 'is not included in the list'
    case 'minimum':
      return `must be greater than or equal to ${String(p.limit)}`
    case 'maximum':
      return `must be less than or equal to ${String(p.limit)}`
    case 'minLength':
      return "can't be blank"
    case 'maxLength':
      return `is too long (maximum is ${String(p.limit)} characters)`
    case 'minItems':
      return `must have at least ${String(p.limit)} item${p.limit === 1 ? '' : 's'}`
    case 'maxItems':
      return `must have at most ${String(p.limit)} items`
    case 'pattern':
      return error.schema === '\\S' ? "can't be blank" : 'is invalid'
    case 'format':
      if (p.format === 'date') {
        return typeof error.data === 'string' && checkDay(error.data) === 'out_of_range' ? DAY_OUT_OF_RANGE : DATE_SHAPE
      }
      if (p.format === 'date-time') {
        return typeof error.data === 'string' && checkDateTime(error.data) === 'out_of_range'
          ? INSTANT_OUT_OF_RANGE
          : DATE_TIME_SHAPE
      }
      return 'is invalid'
    case 'storable':
      return UNSTORABLE_TEXT
    default:
      return error.message ?? 'is invalid'
  }
}

/** Parameters a schema leaves optional but an operation's mode needs (`page` of a list without `id`). */
export function requireGiven<T extends object, K extends keyof T & string>(
  params: T,
  names: readonly K[],
): asserts params is T & { [P in K]-?: NonNullable<T[P]> } {
  const missing = names.filter((name) => params[name] === undefined)
  if (missing.length > 0) throw invalid(Object.fromEntries(missing.map((name) => [name, ["can't be blank"]])))
}

/** Both flags of a pair (with_x and without_x, done and undone) given at once: 422 naming both. */
export function exclusiveFlags<T extends object>(params: T, a: keyof T & string, b: keyof T & string): void {
  if (params[a] === true && params[b] === true) {
    throw invalid({ [a]: [`can't be combined with ${b}`], [b]: [`can't be combined with ${a}`] })
  }
}
