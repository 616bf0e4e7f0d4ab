// Tenancy by construction: repository functions take a CompanyId, and a CompanyId only
// comes from an authenticated caller (or the admin command line naming a company it
// checked), so no query can be written without the caller's company.
import type { Scope } from './scopes.js'

declare const companyBrand: unique symbol
export type CompanyId = number & { readonly [companyBrand]: true }

/** Only for ids that come from an authenticated token or a checked admin argument. */
export const asCompanyId = (id: number) => id as CompanyId

/** Who holds an api_token: resolved from it once, then cached (modules/auth). */
export interface TokenHolder {
  readonly tokenId: number
  readonly userId: number
  readonly companyId: CompanyId
  /** IANA zone of the company: "today" for tasks and done dates. */
  readonly timezone: string
  /** The user's role: admins manage the company's webhooks (docs/access-control.md). */
  readonly role: 'admin' | 'member'
  /** What the token may do; looked up with the token, so checking it costs no query. */
  readonly access: TokenAccess
}

/**
 * Who calls, and when: the token's holder, with the request's clock read once as it is
 * authenticated, the one "now" of everything the request writes.
 */
export interface Caller extends TokenHolder {
  readonly now: Date
}

/** A token's kind, scopes and expiry, as authorize_api shows them. */
export interface TokenAccess {
  readonly kind: 'personal' | 'oauth'
  /** The scopes chosen for the token; null: full access (every scope, today's behaviour). */
  readonly scopes: readonly Scope[] | null
  /** `scopes` with the read scope of each write scope added; null: full access. */
  readonly grants: ReadonlySet<Scope> | null
  readonly expiresAt: Date | null
  /** The third-party app an OAuth token was granted to; null for a personal token. */
  readonly app: { readonly id: number; readonly name: string } | null
  /** An OAuth token's grant: its rate limit is the grant's, its revocation drops it. Null for a personal token. */
  readonly grantId: number | null
}

/**
 * Who writes, and when: the company, the user who acts and the one "now" of the writes. A
 * token's caller is one; so is a background job that acts for a user (a contact import).
 */
export type Writer = Pick<Caller, 'companyId' | 'userId' | 'now'>
