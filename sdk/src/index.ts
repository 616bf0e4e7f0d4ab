// @engage/sdk: a typed client for the engage API.
export { Engage, EngageError } from './client.js'
export type { AllQuery, Body, EngageOptions, ErrorCode, Query, Result, RetryOptions, Schemas, Tokens } from './client.js'
export type { components, operations, paths } from './schema.js'
