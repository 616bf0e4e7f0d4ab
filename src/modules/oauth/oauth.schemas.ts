// The parameters of the OAuth endpoints, checked by the app's validator before any statement
// runs: each one text PostgreSQL can store (no NUL, no lone surrogate), of bounded length, and
// given at most once (RFC 6749 §3.1, §3.2: the endpoints' parser keeps a repeated name's
// values as a list, which a string refuses). Other parameters are ignored, as the RFC asks.
import { Type } from 'typebox'
import { REDIRECT_URI_MAX } from './oauth.protocol.js'

const Text = (maxLength: number) => Type.Optional(Type.String({ maxLength }))

/** Bounds well past any value a check accepts, so such a value is still answered by its own rule. */
const SHORT = 255
const SCOPE_MAX = 2048
const STATE_LIMIT = 4096

const client = { client_id: Text(SHORT), client_secret: Text(SHORT) }

export const TokenBody = Type.Object({
  ...client,
  grant_type: Text(SHORT),
  code: Text(SHORT),
  redirect_uri: Text(REDIRECT_URI_MAX),
  code_verifier: Text(SHORT),
  refresh_token: Text(SHORT),
  scope: Text(SCOPE_MAX),
})

/** /oauth/revoke and /oauth/introspect. */
export const TokenOfClientBody = Type.Object({ ...client, token: Text(SHORT), token_type_hint: Text(SHORT) })

export const AuthorizeQuery = Type.Object({
  client_id: Text(SHORT),
  redirect_uri: Text(REDIRECT_URI_MAX),
  response_type: Text(SHORT),
  scope: Text(SCOPE_MAX),
  state: Text(STATE_LIMIT),
  code_challenge: Text(SHORT),
  code_challenge_method: Text(SHORT),
})

/** The consent form: the request again (hidden fields), the CSRF token and the answer. */
export const ConsentBody = Type.Object({ ...AuthorizeQuery.properties, _csrf: Text(SHORT), decision: Text(SHORT) })

/** The first parameter given more than once, if any. */
export function repeatedParameter(params: unknown): string | undefined {
  if (typeof params !== 'object' || params === null) return undefined
  return Object.entries(params).find(([, value]) => Array.isArray(value))?.[0]
}
