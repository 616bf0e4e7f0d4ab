// Building blocks for the per-operation TypeBox schemas: parameter types with the
// contract's rules, and the shared response shapes (records, lists, counts, errors).
import { Type, type Static, type TSchema, type TUnsafe } from 'typebox'
import { CODES, detailCodes, MESSAGES, type ErrorCode, type ErrorDetails, type ErrorStatus } from '../errors.js'

export const MAX_ID = Number.MAX_SAFE_INTEGER

/** A record id: 1..2^53-1 (a JSON integer, or a string of digits in a path, query or form). */
export const Id = Type.Integer({ minimum: 1, maximum: MAX_ID })

export const IdParams = Type.Object({ id: Id })

/** A string of at most `max` code points (255 unless the contract says otherwise). */
export const Str = (max = 255, description?: string) =>
  Type.String(description === undefined ? { maxLength: max } : { maxLength: max, description })

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

/** The query of an operation with two modes: `id` answers that record; without it, a page of the list. */
export const RecordOrPageParams = {
  id: Type.Optional(Id),
  page: Type.Optional(PageParams.page),
  per_page: PageParams.per_page,
}

/** An instant in a response: a Date (or ISO string) serialized as ISO 8601 UTC with milliseconds. */
export const Timestamp = Type.Unsafe<Date | string>({ type: 'string', format: 'date-time' })

/** The answer of a delete: 204 and no body. */
export const Deleted = Type.Null({ description: 'Deleted' })

/** The body of an action that takes no fields (unknown ones are ignored, as everywhere). */
export const NoBody = Type.Object({})

export const Timestamps = {
  created_at: Timestamp,
  updated_at: Timestamp,
}

/**
 * A reference to a named schema (a component of the OpenAPI document, registered once with
 * `app.addSchema` through `componentSchemas` in src/api.ts), typed as the schema itself.
 * Response schemas only: the request validator compiles each route schema on its own.
 */
export function Ref<T extends TSchema>(schema: T): TUnsafe<Static<T>> {
  const id = (schema as { $id?: unknown }).$id
  if (typeof id !== 'string') throw new Error('Ref needs a schema with an $id')
  return Type.Unsafe<Static<T>>({ $ref: `${id}#` })
}

export const PageMeta = Type.Object(
  {
    page: Type.Integer({ description: 'this page, from 1' }),
    per_page: Type.Integer({ description: 'records per page (1 to 100, default 25)' }),
    total_count: Type.Integer({ description: 'records in the whole list' }),
    total_pages: Type.Integer({ description: '0 for an empty list' }),
  },
  {
    $id: 'PageMeta',
    description: 'Where this page is in the list; the `Link` header has the URLs of the first, last, previous and next pages',
    examples: [{ page: 1, per_page: 25, total_count: 120, total_pages: 5 }],
  },
)

/** A page of records (`<Name>Page`): the records and where the page is in the list. */
export const PagedList = <T extends TSchema>(item: T, id: string, description: string) =>
  Type.Object({ data: Type.Array(Ref(item)), meta: Ref(PageMeta) }, { $id: id, description })

/** A whole list at once (`<Name>List`: tags, custom fields). */
export const UnpagedList = <T extends TSchema>(item: T, id: string, description: string) =>
  Type.Object(
    { data: Type.Array(Ref(item)), meta: Type.Object({ total_count: Type.Integer({ description: 'records in the list' }) }) },
    { $id: id, description },
  )

export const Count = Type.Object(
  { count: Type.Integer({ minimum: 0 }) },
  { $id: 'Count', description: 'How many records match', examples: [{ count: 42 }] },
)
export const CountResponse = Ref(Count)

// Every kind of error (contract section 5): a Record, so the compiler insists on each ErrorCode.
const KNOWN_ERROR_CODES: Record<ErrorCode, true> = {
  bad_request: true,
  token_missing: true,
  token_invalid: true,
  token_expired: true,
  insufficient_scope: true,
  forbidden_role: true,
  not_found: true,
  request_timeout: true,
  payload_too_large: true,
  unsupported_media_type: true,
  validation_failed: true,
  state_refused: true,
  rate_limited: true,
  header_too_large: true,
  internal_error: true,
  service_unavailable: true,
  idempotency_key_in_use: true,
  idempotency_key_reused: true,
}
export const ERROR_CODES = Object.keys(KNOWN_ERROR_CODES) as ErrorCode[]

/** The request id of the examples of errors. */
export const EXAMPLE_REQUEST_ID = '0c6f1c2e-6d0b-4f0e-9a57-3f4f2d1f8b1a'

/**
 * An error body's `error` as the examples show it: `details`, when given, with their codes as
 * the error handler answers them (detailCodes) unless `codes` are given.
 */
export function exampleError(
  status: ErrorStatus,
  code: ErrorCode = CODES[status],
  message: string = MESSAGES[status],
  details?: ErrorDetails,
  codes: ErrorDetails | undefined = details && detailCodes(details),
) {
  if (!details) return { status, message, code, request_id: EXAMPLE_REQUEST_ID }
  return { status, message, code, details, detail_codes: codes, request_id: EXAMPLE_REQUEST_ID }
}

export const ErrorResponse = Type.Object(
  {
    error: Type.Object({
      status: Type.Integer({ description: 'the HTTP status again' }),
      message: Type.String({ description: 'for people; exactly as the contract words it' }),
      code: Type.String({
        description:
          'the kind of error, stable; match this, not the message. Known codes: ' +
          ERROR_CODES.map((code) => `\`${code}\``).join(', ') +
          ' (new ones may be added; docs/api-conventions.md lists them)',
        examples: ['validation_failed'],
      }),
      details: Type.Optional(
        Type.Record(Type.String(), Type.Array(Type.String()), {
          description: 'the problems of each parameter, by parameter name (`base` for the request as a whole)',
        }),
      ),
      detail_codes: Type.Optional(
        Type.Record(Type.String(), Type.Array(Type.String()), {
          description:
            'the keys of `details`, with one stable code per message, in the same order ' +
            '(`blank`, `taken`, `invalid`, `too_long`, `inclusion`, `not_found`, …)',
        }),
      ),
      request_id: Type.String({ description: 'the same as the `X-Request-Id` header; quote it when reporting a problem' }),
    }),
  },
  {
    $id: 'Error',
    description: 'Every error answers this body',
    examples: [{ error: exampleError(422, 'validation_failed', undefined, { email: ['has already been taken'] }) }],
  },
)
