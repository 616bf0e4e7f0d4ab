// The small pure pieces of the protocol, each tested on its own (test/oauth/protocol.test.ts):
// the RFC 6749 §5.2 error, redirect URI rules, PKCE S256 (RFC 7636), the scope parameter,
// client credentials from the Authorization header, and the secrets' shapes.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto'
import { isStorableText } from '../../http/validation.js'
import { isScope, type Scope } from '../../scopes.js'

/** An error of the protocol endpoints, answered as RFC 6749 §5.2 JSON (or to the redirect URI). */
export class OAuthError extends Error {
  constructor(
    readonly error:
      | 'invalid_request'
      | 'invalid_client'
      | 'invalid_grant'
      | 'unauthorized_client'
      | 'unsupported_grant_type'
      | 'invalid_scope'
      | 'access_denied'
      | 'unsupported_response_type'
      | 'unsupported_token_type'
      | 'rate_limited',
    readonly description: string,
    readonly status = 400,
  ) {
    super(description)
  }
}

export const ACCESS_TOKEN_PREFIX = 'eng_oat_'
export const REFRESH_TOKEN_PREFIX = 'eng_ort_'
export const CODE_PREFIX = 'eng_oac_'
export const CLIENT_ID_PREFIX = 'engc_'
export const CLIENT_SECRET_PREFIX = 'eng_ocs_'

/** 192 random bits after a recognisable prefix, as api tokens. */
export const secretWith = (prefix: string) => prefix + randomBytes(24).toString('base64url')
export const newClientId = () => CLIENT_ID_PREFIX + randomBytes(16).toString('base64url')

export const sha256 = (text: string) => createHash('sha256').update(text).digest('hex')

/** Equal strings, compared in constant time (for equal lengths; the lengths are not secret). */
export function sameSecret(a: string, b: string): boolean {
  const x = Buffer.from(a)
  const y = Buffer.from(b)
  return x.length === y.length && timingSafeEqual(x, y)
}

export const REDIRECT_URI_MAX = 2000
const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]'])

/**
 * Why a redirect URI cannot be registered, or undefined if it can: an absolute https URL (or
 * http to a loopback host), without a fragment or user information (RFC 6749 §3.1.2, RFC 9700 §2.1).
 */
export function redirectUriProblem(uri: string): string | undefined {
  if (uri.length > REDIRECT_URI_MAX) return `is longer than ${String(REDIRECT_URI_MAX)} characters`
  // eslint-disable-next-line no-control-regex -- control characters are exactly what this finds
  if (!uri.isWellFormed() || /[\s\u0000-\u001f\u007f]/.test(uri)) return 'contains spaces or control characters'
  let url: URL
  try {
    url = new URL(uri)
  } catch {
    return 'is not an absolute URL'
  }
  if (url.hash !== '' || uri.includes('#')) return 'must not have a fragment (#…)'
  if (url.username !== '' || url.password !== '') return 'must not carry a user name or password'
  if (url.protocol === 'https:') return undefined
  if (url.protocol === 'http:' && LOOPBACK_HOSTS.has(url.hostname)) return undefined
  return 'must use https (http only for a loopback host such as 127.0.0.1 or localhost)'
}

/** The registered URI a request names: exact string match, port and path included; never a prefix. */
export function registeredUri(registered: readonly string[], asked: string | undefined): string | undefined {
  if (asked === undefined) return registered.length === 1 ? registered[0] : undefined
  return registered.find((uri) => uri === asked)
}

/** `error=…&state=…` (and the code) added to a registered redirect URI, keeping its own query. */
export function redirectTo(uri: string, params: Record<string, string | undefined>): string {
  const url = new URL(uri)
  for (const [name, value] of Object.entries(params)) if (value !== undefined) url.searchParams.set(name, value)
  return url.toString()
}

/** An S256 challenge: base64url of a SHA-256, 43 characters. */
export const CHALLENGE = /^[A-Za-z0-9_-]{43}$/
/** RFC 7636 §4.1: 43 to 128 unreserved characters. */
export const VERIFIER = /^[A-Za-z0-9._~-]{43,128}$/

export const challengeOf = (verifier: string) => createHash('sha256').update(verifier).digest('base64url')

export function pkceMatches(verifier: string, challenge: string): boolean {
  return VERIFIER.test(verifier) && sameSecret(challengeOf(verifier), challenge)
}

/**
 * The `scope` parameter (space-separated, RFC 6749 §3.3): each known and among `allowed`, at
 * least one; undefined when it is not.
 */
export function parseScope(text: string | undefined, allowed: readonly Scope[]): Scope[] | undefined {
  if (text === undefined) return undefined
  const names = text.split(' ').filter((name) => name !== '')
  if (names.length === 0 || names.length > 64) return undefined
  const scopes: Scope[] = []
  for (const name of names) {
    if (!isScope(name) || !allowed.includes(name)) return undefined
    if (!scopes.includes(name)) scopes.push(name)
  }
  return scopes
}

/** client_secret_basic (RFC 6749 §2.3.1): id and secret, each form-urlencoded, then base64. */
export function basicCredentials(header: string | undefined): { clientId: string; secret: string } | undefined | 'malformed' {
  if (header === undefined) return undefined
  const match = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header)
  if (!match?.[1]) return /^Basic\b/i.test(header) ? 'malformed' : undefined
  const decoded = Buffer.from(match[1], 'base64').toString('utf8')
  const colon = decoded.indexOf(':')
  if (colon < 0) return 'malformed'
  try {
    const decode = (part: string) => decodeURIComponent(part.replace(/\+/g, ' '))
    const credentials = { clientId: decode(decoded.slice(0, colon)), secret: decode(decoded.slice(colon + 1)) }
    // Text no client_id or secret can be (a NUL, which PostgreSQL refuses) never reaches a statement.
    return isStorableText(credentials.clientId) && isStorableText(credentials.secret) ? credentials : 'malformed'
  } catch {
    return 'malformed'
  }
}
