// Building blocks for the per-operation TypeBox schemas: parameter types with the
// contract's rules, and the shared response shapes (records, lists, counts, errors).
import { Type, type Static, type TSchema, type TUnsafe } from 'typebox'

export const MAX_ID = Number.MAX_SAFE_INTEGER

/** A record id: 1..2^53-1 (a JSON integer, or a string of digits in a path, query or form). */
export const Id = Type.Integer({ minimum: 1, maximum: MAX_ID })

export const IdParams = Type.Object({ id: Id })

/** A string of at most `max` code points (255 unless the contract says otherwise). */
export const Str = (max = 255) => Type.String({ maxLength: max })

/** A required string that must hold something besides white space. */
export const NonBlank = (max = 255) => Type.String({ minLength: 1, maxLength: max, pattern: '\\S' })

/**
 * The schema or null. Written as `type: [t, 'null']` (or `enum: [..., null]`) where it can
 * be, not anyOf: fast-json-stringify serializes anyOf by running a validator per value.
 */
export function Nullable<T extends TSchema>(schema: T): TUnsafe<Static<T> | null> {
  const json = schema as unknown as { type?: unknown; enum?: unknown[]; const?: unknown; anyOf?: unknown }
  if (json.const === undefined && json.anyOf === undefined) {
    if (typeof json.type === 'string') return Type.Unsafe<Static<T> | null>({ ...json, type: [json.type, 'null'] })
    if (Array.isArray(json.enum)) return Type.Unsafe<Static<T> | null>({ ...json, enum: [...json.enum, null] })
  }
  return Type.Unsafe<Static<T> | null>(Type.Union([schema, Type.Null()]))
}

/** A parameter whose only value is true (JSON true or the string 'true'). */
export const TrueFlag = Type.Literal(true)

/** A calendar day, yyyy-mm-dd. */
export const DateParam = Type.String({ format: 'date' })

export const PageParams = {
  page: Type.Integer({ minimum: 1, maximum: MAX_ID }),
  per_page: Type.Optional(Type.Integer({ minimum: 1, maximum: 100 })),
}

/** An instant in a response: a Date (or ISO string) serialized as ISO 8601 UTC with milliseconds. */
export const Timestamp = Type.Unsafe<Date | string>({ type: 'string', format: 'date-time' })

export const Timestamps = {
  created_at: Timestamp,
  updated_at: Timestamp,
}

export const PageMeta = Type.Object({
  page: Type.Integer(),
  per_page: Type.Integer(),
  total_count: Type.Integer(),
  total_pages: Type.Integer(),
})

export const PagedList = <T extends TSchema>(item: T) =>
  Type.Object({ data: Type.Array(item), meta: PageMeta })

export const UnpagedList = <T extends TSchema>(item: T) =>
  Type.Object({ data: Type.Array(item), meta: Type.Object({ total_count: Type.Integer() }) })

export const CountResponse = Type.Object({ count: Type.Integer() })

export const ErrorResponse = Type.Object(
  {
    error: Type.Object({
      status: Type.Integer(),
      message: Type.String(),
      code: Type.String({ description: 'the kind of error, stable (docs/api-conventions.md lists them)' }),
      details: Type.Optional(Type.Record(Type.String(), Type.Array(Type.String()))),
      detail_codes: Type.Optional(
        Type.Record(Type.String(), Type.Array(Type.String()), { description: 'one stable code per message of details' }),
      ),
      request_id: Type.String(),
    }),
  },
  { $id: 'Error' },
)
