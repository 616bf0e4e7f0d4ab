// This file holds every statement on api_tokens and api_token_addresses. Each request's lookup
// carries what the access check needs (the user's role, the token's scopes and expiry), so that
// authorising costs no query of its own.
import { columns } from '../../db/columns.js'
import type { Db } from '../../db/db.js'
import { defineQuery, run, runOne, runSingle } from '../../db/query.js'
import { recordSql, type Row } from '../../db/records.js'
import type { CompanyId } from '../../tenancy.js'
import type { Scope } from '../../scopes.js'
import { APP_OF_GRANT, grantOfToken } from '../oauth/index.js'
import { companyOfRow, userOfRow } from '../users/index.js'
import { CompanyToken, ListedToken, TokenRecord } from './tokens.schemas.js'

/** Holds what a request's token resolves to, before its expiry is checked. */
export interface TokenCallerRow {
  token_id: number
  user_id: number
  company_id: number
  timezone: string
  role: 'admin' | 'member'
  scopes: Scope[] | null
  expires_at: Date | null
  /** These name an OAuth access token's grant and app, and are null for a personal token. */
  grant_id: number | null
  app_id: number | null
  app_name: string | null
}

// Every request whose token is not cached runs this statement. It finds the token by
// api_tokens_token_hash_key, its user and company by their primary keys, and for an OAuth
// access token its grant and app by theirs, in the same statement, so that OAuth tokens cost no
// query of their own. It finds an expired token, so that the answer is token_expired rather
// than token_invalid, but not a revoked token, one of a revoked grant or one of a deactivated user.
const callerByHash = defineQuery<TokenCallerRow>(
  'auth.callerByTokenHash',
  `select t.id as token_id, t.user_id, t.company_id, c.timezone, u.role, t.scopes, t.expires_at,
          t.oauth_grant_id as grant_id, a.id as app_id, a.name as app_name
     from api_tokens t
     join ${userOfRow('t')}
     join ${companyOfRow('t')}
     left join ${grantOfToken('t')}
     left join ${APP_OF_GRANT}
    where t.token_hash = $1 and t.revoked_at is null and u.active
      and (t.oauth_grant_id is null or (g.revoked_at is null and a.id is not null))`,
)

/** Finds the live token of an active user with this hash, or returns undefined. */
export async function findTokenCaller(db: Db, tokenHash: string): Promise<TokenCallerRow | undefined> {
  return runOne(db, callerByHash, [tokenHash])
}

export type TokenRow = Row<typeof TokenRecord>
const TOKEN_COLUMNS = recordSql(TokenRecord, 'api_tokens t', {}, 'TokenRecord').columns('')

const insertRow = defineQuery<TokenRow>(
  'auth.insertToken',
  `insert into api_tokens (company_id, user_id, token_hash, prefix, label, scopes, expires_at)
   values ($1, $2, $3, $4, $5, $6, $7)
   returning ${TOKEN_COLUMNS}`,
)

export async function insertToken(
  db: Db,
  companyId: CompanyId,
  values: { userId: number; tokenHash: string; prefix: string; label: string | null; scopes: Scope[] | null; expiresAt: Date | null },
): Promise<TokenRow> {
  return runSingle(db, insertRow, [companyId, values.userId, values.tokenHash, values.prefix, values.label, values.scopes, values.expiresAt])
}

// The admin command line revokes a token by the token itself, found by api_tokens_token_hash_key.
const revokeByHash = defineQuery<TokenRow>(
  'auth.revokeByHash',
  `update api_tokens set revoked_at = $2, updated_at = $2
    where token_hash = $1 and revoked_at is null
    returning ${TOKEN_COLUMNS}`,
)

export async function revokeTokenByHash(db: Db, tokenHash: string, at: Date): Promise<TokenRow | undefined> {
  return runOne(db, revokeByHash, [tokenHash, at])
}

export type ListedTokenRecord = Row<typeof ListedToken>
const LISTED_COLUMNS = recordSql(ListedToken, 'api_tokens t', {}, 'ListedToken').columns('')

// The web page and `token list` read a user's live tokens from api_tokens_company_user_idx.
const tokensOfUser = defineQuery<ListedTokenRecord>(
  'auth.tokensOfUser',
  `select ${LISTED_COLUMNS} from api_tokens
    where company_id = $1 and user_id = $2 and revoked_at is null and oauth_grant_id is null
    order by id`,
)

export async function liveTokensOf(db: Db, companyId: CompanyId, userId: number): Promise<ListedTokenRecord[]> {
  return run(db, tokensOfUser, [companyId, userId])
}

// The revoke confirmation reads one live token of the user by primary key, so that another
// user's token or a revoked one is not found.
const tokenOfUser = defineQuery<ListedTokenRecord>(
  'auth.tokenOfUser',
  `select ${LISTED_COLUMNS} from api_tokens
    where company_id = $1 and id = $2 and user_id = $3 and revoked_at is null and oauth_grant_id is null`,
)

export async function liveTokenOf(db: Db, companyId: CompanyId, userId: number, id: number) {
  return runOne(db, tokenOfUser, [companyId, id, userId])
}

// A user revokes only their own live token, by id on the primary key; the statement returns
// the hash so that the revocation can be announced to every server's cache.
const revokeOfUser = defineQuery<ListedTokenRecord & { token_hash: string }>(
  'auth.revokeOfUser',
  `update api_tokens set revoked_at = $4, updated_at = $4
    where company_id = $1 and id = $2 and user_id = $3 and revoked_at is null and oauth_grant_id is null
    returning ${LISTED_COLUMNS}, token_hash`,
)

export async function revokeTokenOf(db: Db, companyId: CompanyId, userId: number, id: number, at: Date) {
  return runOne(db, revokeOfUser, [companyId, id, userId, at])
}

export type CompanyTokenRecord = Row<typeof CompanyToken>
const COMPANY_TOKEN_COLUMNS = recordSql(
  CompanyToken,
  `api_tokens t join ${userOfRow('t')}`,
  { user_name: () => 'u.name', user_email: () => 'u.email' },
  'CompanyToken',
).columns()

// The admins' "Tokens of this company" reads every live token from the primary key
// (company_id, id), each with its user by primary key; reading the whole company is fine
// because a company has a handful of users and their tokens.
const tokensOfCompany = defineQuery<CompanyTokenRecord>(
  'auth.tokensOfCompany',
  `select ${COMPANY_TOKEN_COLUMNS}
     from api_tokens t join ${userOfRow('t')}
    where t.company_id = $1 and t.revoked_at is null and t.oauth_grant_id is null
    order by t.id`,
)

export async function liveTokensOfCompany(db: Db, companyId: CompanyId): Promise<CompanyTokenRecord[]> {
  return run(db, tokensOfCompany, [companyId])
}

// An admin's revoke confirmation reads one live token of the company by primary key.
const tokenOfCompany = defineQuery<CompanyTokenRecord>(
  'auth.tokenOfCompany',
  `select ${COMPANY_TOKEN_COLUMNS}
     from api_tokens t join ${userOfRow('t')}
    where t.company_id = $1 and t.id = $2 and t.revoked_at is null and t.oauth_grant_id is null`,
)

export async function liveTokenOfCompany(db: Db, companyId: CompanyId, id: number) {
  return runOne(db, tokenOfCompany, [companyId, id])
}

// An admin revokes any live token of the company, by primary key.
const revokeOfCompany = defineQuery<ListedTokenRecord & { token_hash: string }>(
  'auth.revokeOfCompany',
  `update api_tokens set revoked_at = $3, updated_at = $3
    where company_id = $1 and id = $2 and revoked_at is null and oauth_grant_id is null
    returning ${LISTED_COLUMNS}, token_hash`,
)

export async function revokeCompanyToken(db: Db, companyId: CompanyId, id: number, at: Date) {
  return runOne(db, revokeOfCompany, [companyId, id, at])
}

// One statement records "last used" and the client addresses of every token used since the
// last flush, which each process runs at most once a minute. It updates the tokens by primary
// key and skips a token that another instance recorded less than a minute before. It upserts
// each address on api_token_addresses' primary key: an address's last_seen_at moves at most once
// an hour, and an address unseen for 30 days starts a new streak (first_seen_at = last_seen_at =
// this use). It returns the addresses whose streak it began, new or back after 30 days; the
// upsert checks that condition on the row as it stands when it takes the row, so two instances
// flushing the same address at once return it once.
const touchTokens = defineQuery<NewTokenAddress>(
  'auth.touchTokens',
  `with touched as (
     update api_tokens t set last_used_at = u.at
       from unnest($1::bigint[], $2::bigint[], $3::timestamptz[]) as u(company_id, id, at)
      where t.company_id = u.company_id and t.id = u.id
        and (t.last_used_at is null or t.last_used_at < u.at - interval '1 minute')
   ), seen as (
     insert into api_token_addresses as a (company_id, token_id, ip, first_seen_at, last_seen_at)
     select u.company_id, u.token_id, u.ip, u.at, u.at
       from unnest($4::bigint[], $5::bigint[], $6::text[], $7::timestamptz[]) with ordinality as u(company_id, token_id, ip, at, n)
      where exists (select from api_tokens t where t.company_id = u.company_id and t.id = u.token_id) -- not one deleted meanwhile
      order by u.n
     on conflict (company_id, token_id, ip) do update
        set first_seen_at = case when a.last_seen_at < excluded.last_seen_at - interval '30 days'
                                 then excluded.last_seen_at else a.first_seen_at end,
            last_seen_at = excluded.last_seen_at
      where a.last_seen_at < excluded.last_seen_at - interval '1 hour'
     returning a.company_id, a.token_id, a.ip, a.first_seen_at, a.last_seen_at
   )
   select s.company_id, s.token_id, s.ip, coalesce(t.label, t.prefix || '…') as label
     from seen s join api_tokens t on t.company_id = s.company_id and t.id = s.token_id
    where s.first_seen_at = s.last_seen_at`,
)

/** Names an address a token was used from that had not been seen for it in 30 days, or ever. */
export interface NewTokenAddress {
  company_id: number
  token_id: number
  ip: string
  /** This is the token's label, or its first characters when it has none. */
  label: string
}

export async function recordTokenUses(
  db: Db,
  uses: { companyId: number; tokenId: number; at: Date }[],
  addresses: { companyId: number; tokenId: number; ip: string; at: Date }[],
): Promise<NewTokenAddress[]> {
  return run(db, touchTokens, [
    ...columns(uses, ['companyId', 'tokenId', 'at']),
    ...columns(addresses, ['companyId', 'tokenId', 'ip', 'at']),
  ])
}

// The first refusal of an expired token is recorded once: this sets the guard while it is
// null (primary key), and the audit record is written in the same transaction only when it
// did. Instances racing here queue on the row; the later ones find it set.
const markExpiryRefusal = defineQuery<{ id: number; label: string }>(
  'auth.markExpiryRefusal',
  `update api_tokens set expiry_refusal_recorded_at = $3
    where company_id = $1 and id = $2 and expiry_refusal_recorded_at is null
    returning id, coalesce(label, prefix || '…') as label`,
)

export async function markTokenExpiryRefusal(db: Db, companyId: CompanyId, id: number, at: Date) {
  return runOne(db, markExpiryRefusal, [companyId, id, at])
}

// ---- OAuth access tokens (api_tokens rows that carry their grant): the oauth-server module runs
// these statements, which live here because this module owns api_tokens and the oauth module
// cannot import it.

// When a grant ends, this revokes every live access token of it (api_tokens_oauth_grant_idx),
// after the grant itself is revoked (revokeGrant of the oauth module).
const revokeGrantTokensStatement = defineQuery<never>(
  'oauth.revokeGrantTokens',
  `update api_tokens set revoked_at = $3, updated_at = $3
    where company_id = $1 and oauth_grant_id = $2 and revoked_at is null`,
)

/** Revokes every live access token of a grant. */
export async function revokeGrantTokens(db: Db, companyId: CompanyId, grantId: number, at: Date): Promise<void> {
  await run(db, revokeGrantTokensStatement, [companyId, grantId, at])
}

// Deactivating a user revokes every OAuth access token of theirs, after their grants (revokeGrantsOfUser of the oauth module).
const revokeOAuthTokensOfUserStatement = defineQuery<never>(
  'oauth.revokeOAuthTokensOfUser',
  `update api_tokens set revoked_at = $3, updated_at = $3
    where company_id = $1 and user_id = $2 and oauth_grant_id is not null and revoked_at is null`,
)

/** Revokes every live OAuth access token of the user. */
export async function revokeOAuthTokensOfUser(db: Db, companyId: CompanyId, userId: number, at: Date): Promise<void> {
  await run(db, revokeOAuthTokensOfUserStatement, [companyId, userId, at])
}

/** Lists a new access token's fields in the order of its insert's parameters ($2 to $8, with $9 its creation time). */
export type NewAccessToken = { userId: number; tokenHash: string; prefix: string; label: string; scopes: Scope[]; expiresAt: Date; grantId: number }

// An access token is an api_tokens row of the grant, so that the request's token lookup finds it like any other token.
const insertAccessRow = defineQuery<{ id: number }>(
  'oauth.insertAccessToken',
  `insert into api_tokens (company_id, user_id, token_hash, prefix, label, scopes, expires_at, oauth_grant_id, created_at, updated_at)
   values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $9)
   returning id`,
)

export async function insertAccessToken(db: Db, companyId: CompanyId, values: NewAccessToken, at: Date) {
  await run(db, insertAccessRow, [companyId, values.userId, values.tokenHash, values.prefix, values.label, values.scopes, values.expiresAt, values.grantId, at])
}

export interface AccessRow {
  company_id: number
  id: number
  user_id: number
  scopes: Scope[]
  expires_at: Date
  created_at: Date
  revoked_at: Date | null
  grant_id: number
  app_company_id: number
  app_id: number
  grant_revoked_at: Date | null
  user_active: boolean
  user_email: string
}

// Revoke and introspect find an OAuth access token by its hash (api_tokens_token_hash_key).
const accessByHash = defineQuery<AccessRow>(
  'oauth.accessTokenByHash',
  `select t.company_id, t.id, t.user_id, t.scopes, t.expires_at, t.created_at, t.revoked_at, t.oauth_grant_id as grant_id,
          g.app_company_id, g.app_id, g.revoked_at as grant_revoked_at, u.active as user_active, u.email as user_email
     from api_tokens t
     join ${grantOfToken('t')}
     join ${userOfRow('t')}
    where t.token_hash = $1`,
)

export async function findAccessToken(db: Db, tokenHash: string) {
  return runOne(db, accessByHash, [tokenHash])
}

const revokeAccessRow = defineQuery<{ id: number }>(
  'oauth.revokeAccessToken',
  `update api_tokens set revoked_at = $3, updated_at = $3 where company_id = $1 and id = $2 and revoked_at is null returning id`,
)

export async function revokeAccessToken(db: Db, companyId: CompanyId, id: number, at: Date) {
  return runOne(db, revokeAccessRow, [companyId, id, at])
}

/**
 * Builds the body of a subquery that reads the label of api token `token` of company `company`
 * (both SQL expressions): the token's label, else its first characters, and its user's name, by
 * primary keys. `br` starts each of its next two lines (a line break and the borrower's
 * indentation, with `from` one space further in). The audit insert composes it, because a
 * request's token lookup carries neither the label nor the user's name.
 */
export const tokenLabelOf = (company: string, token: string, br: string) =>
  `select coalesce(t.label, t.prefix || '…') || ' (' || u.name || ')'${br} from api_tokens t join ${userOfRow('t')}${br}where t.company_id = ${company} and t.id = ${token}`
