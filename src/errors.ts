// Typed errors thrown anywhere in the service; the error handler (plugins/errors.ts) is
// the one place that turns them into the contract's body.
export type ErrorDetails = Record<string, string[]>

export const MESSAGES = {
  400: 'Bad request',
  401: 'Invalid api_token',
  404: 'Not found',
  413: 'Payload too large',
  415: 'Unsupported media type',
  422: 'Could not save the entity',
  429: 'Requests limit exceeded for api_token',
  500: 'Internal Server Error',
  503: 'Service unavailable',
} as const

export type ErrorStatus = keyof typeof MESSAGES

export class ApiError extends Error {
  constructor(
    readonly statusCode: ErrorStatus,
    message: string = MESSAGES[statusCode],
    readonly details?: ErrorDetails,
  ) {
    super(message)
    this.name = 'ApiError'
  }
}

export const notFound = () => new ApiError(404)

/** 422 with the problems of one or more parameters: `invalid({ email: ['is invalid'] })`. */
export const invalid = (details: ErrorDetails) => new ApiError(422, MESSAGES[422], details)

export const missingToken = () => new ApiError(401, 'Missing api_token')
export const invalidToken = () => new ApiError(401, 'Invalid api_token')
