// Typed errors thrown anywhere in the service; the error handler (plugins/errors.plugin.ts) is
// the one place that turns them into the contract's body.
export type ErrorDetails = Record<string, string[]>

export const MESSAGES = {
  400: 'Bad request',
  401: 'Invalid api_token',
  403: 'Forbidden',
  404: 'Not found',
  408: 'Request timeout',
  413: 'Payload too large',
  415: 'Unsupported media type',
  422: 'Could not save the entity',
  429: 'Requests limit exceeded for api_token',
  431: 'Request header fields too large',
  500: 'Internal Server Error',
  503: 'Service unavailable',
} as const

export type ErrorStatus = keyof typeof MESSAGES

/**
 * The contract's machine-readable error kinds (section 5). Stable: new ones may be added,
 * none is ever renamed. docs/api-conventions.md lists them.
 */
export type ErrorCode =
  | 'bad_request'
  | 'token_missing'
  | 'token_invalid'
  | 'token_expired'
  | 'insufficient_scope'
  | 'forbidden_role'
  | 'not_found'
  | 'request_timeout'
  | 'payload_too_large'
  | 'unsupported_media_type'
  | 'validation_failed'
  | 'state_refused'
  | 'rate_limited'
  | 'header_too_large'
  | 'internal_error'
  | 'service_unavailable'
  | 'idempotency_key_in_use'
  | 'idempotency_key_reused'

/** The kind of an error of each status unless it says otherwise (401 and 422 have two). */
export const CODES: Record<ErrorStatus, ErrorCode> = {
  400: 'bad_request',
  401: 'token_invalid',
  403: 'forbidden_role',
  404: 'not_found',
  408: 'request_timeout',
  413: 'payload_too_large',
  415: 'unsupported_media_type',
  422: 'validation_failed',
  429: 'rate_limited',
  431: 'header_too_large',
  500: 'internal_error',
  503: 'service_unavailable',
}

export class ApiError extends Error {
  constructor(
    readonly statusCode: ErrorStatus,
    message: string = MESSAGES[statusCode],
    readonly details?: ErrorDetails,
    readonly code: ErrorCode = CODES[statusCode],
  ) {
    super(message)
    this.name = 'ApiError'
  }
}

export const notFound = () => new ApiError(404)

/** 422 with the problems of one or more parameters: `invalid({ email: ['is invalid'] })`. */
export const invalid = (details: ErrorDetails) => new ApiError(422, MESSAGES[422], details)

/** 422 for a state change the record's state does not allow (stop a transcription that is not recording). */
export const refused = (details: ErrorDetails) => new ApiError(422, MESSAGES[422], details, 'state_refused')

export const missingToken = () => new ApiError(401, 'Missing api_token', undefined, 'token_missing')
export const invalidToken = () => new ApiError(401, 'Invalid api_token', undefined, 'token_invalid')
export const expiredToken = () => new ApiError(401, 'Expired api_token', undefined, 'token_expired')

/** 403: the token lacks the operation's scope; `details.scope` names it (docs/access-control.md). */
export const insufficientScope = (scope: string) =>
  new ApiError(403, `This api_token lacks the scope ${scope}`, { scope: [scope] }, 'insufficient_scope')

/** 403: the operation is an admin's, and the token's user is a member. */
export const forbiddenRole = () => new ApiError(403, 'Only an admin of the company may do this', undefined, 'forbidden_role')

// One stable code per detail message (contract section 5: `detail_codes`). Messages may
// carry a prefix naming a sub-field (`Size is invalid`, `field can't be blank` under
// custom_fields) or numbers and names (`is too long (maximum is 255 characters)`,
// `does not exist: 3, 4`), so each rule is a pattern; the first that matches wins, and a
// message no rule knows is `invalid`.
const DETAIL_CODES: [RegExp, string][] = [
  [/can't be blank$/, 'blank'],
  [/has already been taken$/, 'taken'],
  [/^is already active in this flow$/, 'taken'],
  [/is given more than once$/, 'duplicate'],
  [/is too long \(maximum is \d+ characters?\)$/, 'too_long'],
  [/must have at most \d+ items?$/, 'too_long'],
  [/must have at least \d+ items?( for a dropdown)?$/, 'too_short'],
  [/is not included in the list$/, 'inclusion'],
  [/^must be true( or false)?$/, 'inclusion'],
  [/^must be (".*"|-?\d+(\.\d+)?|null)$/, 'inclusion'],
  [/^is not a known IANA time zone/, 'inclusion'],
  [/does not exist(: .*)?$/, 'not_found'],
  [/^is not a user of the( contact)? company$/, 'not_found'],
  [/must be an integer$/, 'not_an_integer'],
  [/^must be greater than or equal to -?\d+/, 'greater_than_or_equal_to'],
  [/^must be less than or equal to -?\d+/, 'less_than_or_equal_to'],
  [/must be a date \(yyyy-mm-dd\)$/, 'not_a_date'],
  [/must be a date-time \(ISO 8601 with offset\)$/, 'not_a_date_time'],
  [/is out of range \(.*\)$/, 'out_of_range'],
  [/contains a character that cannot be stored\b/, 'invalid_character'],
  [/^must be (a string|a list|an object|a JSON array\b.*)$/, 'wrong_type'],
  [/^is not a JSON object$/, 'wrong_type'],
  [/^can't be combined with \S+$/, 'exclusive'],
  [/^is (recording|stopped|transcribed): /, 'invalid_state'],
  [/^flow is paused$/, 'invalid_state'],
  [/is invalid$/, 'invalid'],
  [/^[a-z_]+:(read|write)$/, 'missing_scope'], // details.scope of insufficient_scope
]

/** The stable code of one detail message; `invalid` for a message no rule knows. */
export function detailCode(message: string): string {
  for (const [pattern, code] of DETAIL_CODES) if (pattern.test(message)) return code
  return 'invalid'
}

/** `details` with each message replaced by its code: same keys, same order. */
export function detailCodes(details: ErrorDetails): ErrorDetails {
  return Object.fromEntries(Object.entries(details).map(([name, messages]) => [name, messages.map(detailCode)]))
}
