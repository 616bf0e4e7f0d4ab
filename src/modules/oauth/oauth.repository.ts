// Every statement of the OAuth authorization server (migration 0016). Apps are found by their
// public client_id, codes and refresh tokens by their hash (the global keys), everything else
// by its company's primary key. Codes and refresh tokens are read `for update` by the token
// endpoint, so two simultaneous uses of one are serialised: the second sees it used.
import type { Db } from '../../db/db.js'
import { defineQuery, run, runOne, runSingle } from '../../db/query.js'
import type { CompanyId } from '../../tenancy.js'
import type { Scope } from '../../scopes.js'
import { companyOfRow, userOfRow } from '../users/index.js'

/** After a join: the grant of api_tokens row `alias` (its oauth_grant_id) as `oauth_grants g`, by primary key. */
export const grantOfToken = (alias: string) => `oauth_grants g on g.company_id = ${alias}.company_id and g.id = ${alias}.oauth_grant_id`

/** After a join: the app of grant `g` as `oauth_apps a`, by primary key. */
export const APP_OF_GRANT = 'oauth_apps a on a.company_id = g.app_company_id and a.id = g.app_id'

export interface AppRow {
  company_id: number
  id: number
  client_id: string
  name: string
  redirect_uris: string[]
  scopes: Scope[]
  /** false: a public client (no secret). */
  confidential: boolean
  previous_secret_expires_at: Date | null
  created_at: Date
  updated_at: Date
}

const APP_COLUMNS = `company_id, id, client_id, name, redirect_uris, scopes, secret_hash is not null as confidential,
                     previous_secret_expires_at, created_at, updated_at`

/** A new app's fields, in the order of its insert's parameters ($2 to $6). */
export type NewApp = { clientId: string; name: string; redirectUris: string[]; scopes: Scope[]; secretHash: string | null }

const insertAppRow = defineQuery<AppRow>(
  'oauth.insertApp',
  `insert into oauth_apps (company_id, client_id, name, redirect_uris, scopes, secret_hash)
   values ($1, $2, $3, $4, $5, $6)
   returning ${APP_COLUMNS}`,
)

export async function insertApp(db: Db, companyId: CompanyId, values: NewApp): Promise<AppRow> {
  return runSingle(db, insertAppRow, [companyId, values.clientId, values.name, values.redirectUris, values.scopes, values.secretHash])
}

// Settings → Apps: the company's apps, from the primary key.
const appsOfCompany = defineQuery<AppRow>('oauth.appsOfCompany', `select ${APP_COLUMNS} from oauth_apps where company_id = $1 order by id`)

export async function companyApps(db: Db, companyId: CompanyId): Promise<AppRow[]> {
  return run(db, appsOfCompany, [companyId])
}

const appOfCompany = defineQuery<AppRow>('oauth.appOfCompany', `select ${APP_COLUMNS} from oauth_apps where company_id = $1 and id = $2`)

export async function companyApp(db: Db, companyId: CompanyId, id: number): Promise<AppRow | undefined> {
  return runOne(db, appOfCompany, [companyId, id])
}

const updateAppRow = defineQuery<AppRow>(
  'oauth.updateApp',
  `update oauth_apps set name = $3, redirect_uris = $4, scopes = $5, updated_at = $6
    where company_id = $1 and id = $2
    returning ${APP_COLUMNS}`,
)

export async function updateApp(
  db: Db,
  companyId: CompanyId,
  id: number,
  values: { name: string; redirectUris: string[]; scopes: Scope[] },
  at: Date,
): Promise<AppRow | undefined> {
  return runOne(db, updateAppRow, [companyId, id, values.name, values.redirectUris, values.scopes, at])
}

// A new secret; the current one keeps working until $4 (the overlap). Public clients have none.
const rotateSecretRow = defineQuery<AppRow>(
  'oauth.rotateSecret',
  `update oauth_apps
      set previous_secret_hash = secret_hash, previous_secret_expires_at = $4, secret_hash = $3, updated_at = $5
    where company_id = $1 and id = $2 and secret_hash is not null
    returning ${APP_COLUMNS}`,
)

export async function rotateAppSecret(db: Db, companyId: CompanyId, id: number, secretHash: string, previousUntil: Date, at: Date) {
  return runOne(db, rotateSecretRow, [companyId, id, secretHash, previousUntil, at])
}

// Deleting an app deletes its grants, codes, refresh and access tokens (cascading keys).
const deleteAppRow = defineQuery<AppRow>('oauth.deleteApp', `delete from oauth_apps where company_id = $1 and id = $2 returning ${APP_COLUMNS}`)

export async function deleteApp(db: Db, companyId: CompanyId, id: number): Promise<AppRow | undefined> {
  return runOne(db, deleteAppRow, [companyId, id])
}

/** An app as the protocol endpoints see it: with its secrets' hashes and its company's name. */
export interface ClientRow extends AppRow {
  secret_hash: string | null
  previous_secret_hash: string | null
  company_name: string
}

// /oauth/authorize, /oauth/token, /oauth/revoke, /oauth/introspect: oauth_apps_client_id_key.
const appByClientId = defineQuery<ClientRow>(
  'oauth.appByClientId',
  `select a.company_id, a.id, a.client_id, a.name, a.redirect_uris, a.scopes, a.secret_hash is not null as confidential,
          a.previous_secret_expires_at, a.created_at, a.updated_at, a.secret_hash, a.previous_secret_hash, c.name as company_name
     from oauth_apps a join ${companyOfRow('a')}
    where a.client_id = $1`,
)

export async function clientById(db: Db, clientId: string): Promise<ClientRow | undefined> {
  return runOne(db, appByClientId, [clientId])
}

// At start, whether the issuer matters yet (any company's app): the first row of the primary key.
const anyAppRow = defineQuery<{ found: boolean }>('oauth.anyApp', `select exists (select 1 from oauth_apps) as found`)

export async function anyAppRegistered(db: Db): Promise<boolean> {
  return (await runSingle(db, anyAppRow, [])).found
}

export interface GrantRow {
  company_id: number
  id: number
  app_company_id: number
  app_id: number
  user_id: number
  scopes: Scope[]
  created_at: Date
  revoked_at: Date | null
}

const GRANT_COLUMNS = 'company_id, id, app_company_id, app_id, user_id, scopes, created_at, revoked_at'

/** A new grant's fields, in the order of its insert's parameters ($2 to $5; $6 its creation). */
export type NewGrant = { appCompanyId: number; appId: number; userId: number; scopes: Scope[] }

const insertGrantRow = defineQuery<GrantRow>(
  'oauth.insertGrant',
  `insert into oauth_grants (company_id, app_company_id, app_id, user_id, scopes, created_at)
   values ($1, $2, $3, $4, $5, $6)
   returning ${GRANT_COLUMNS}`,
)

export async function insertGrant(db: Db, companyId: CompanyId, values: NewGrant, at: Date): Promise<GrantRow> {
  return runSingle(db, insertGrantRow, [companyId, values.appCompanyId, values.appId, values.userId, values.scopes, at])
}

// A grant ends: it, then every live access token of it (revokeGrantTokens of the auth module,
// which owns api_tokens). The caller announces `grant:<id>` so every server's token cache
// drops them at once.
const revokeGrantRow = defineQuery<GrantRow>(
  'oauth.revokeGrant',
  `update oauth_grants set revoked_at = $3 where company_id = $1 and id = $2 and revoked_at is null returning ${GRANT_COLUMNS}`,
)

/** Ends a live grant of the company (not its access tokens); undefined when there is none. */
export function revokeGrant(db: Db, companyId: CompanyId, grantId: number, at: Date): Promise<GrantRow | undefined> {
  return runOne(db, revokeGrantRow, [companyId, grantId, at])
}

// One of the user's own live grants (Integrations' revoke), by primary key.
const revokeGrantOfUserRow = defineQuery<GrantRow>(
  'oauth.revokeGrantOfUser',
  `update oauth_grants set revoked_at = $4
    where company_id = $1 and id = $2 and user_id = $3 and revoked_at is null
    returning ${GRANT_COLUMNS}`,
)

/** Ends one of the user's own live grants (not its access tokens); undefined when there is none. */
export function revokeGrantOfUser(db: Db, companyId: CompanyId, userId: number, grantId: number, at: Date): Promise<GrantRow | undefined> {
  return runOne(db, revokeGrantOfUserRow, [companyId, grantId, userId, at])
}

// Deactivating a user ends every grant of theirs (oauth_grants_company_user_idx), then the
// auth module, which owns api_tokens, their OAuth access tokens (revokeOAuthTokensOfUser).
const revokeGrantsOfUserRows = defineQuery<{ id: number }>(
  'oauth.revokeGrantsOfUser',
  `update oauth_grants set revoked_at = $3 where company_id = $1 and user_id = $2 and revoked_at is null returning id`,
)

/** Ends every live grant of the user (not their access tokens), returning the grants' ids. */
export async function revokeGrantsOfUser(db: Db, companyId: CompanyId, userId: number, at: Date): Promise<number[]> {
  const rows = await run(db, revokeGrantsOfUserRows, [companyId, userId, at])
  return rows.map((row) => row.id)
}

// Deleting an app: its live grants in every company end first (oauth_grants_app_idx), so
// each can be announced before the rows go.
const liveGrantsOfAppRows = defineQuery<{ id: number; company_id: number }>(
  'oauth.liveGrantsOfApp',
  `select company_id, id from oauth_grants where app_company_id = $1 and app_id = $2 and revoked_at is null`,
)

export async function liveGrantsOfApp(db: Db, appCompanyId: CompanyId, appId: number) {
  return run(db, liveGrantsOfAppRows, [appCompanyId, appId])
}

/** An app a user authorised, as Settings → Integrations lists it. */
export interface AuthorisedApp {
  grant_id: number
  app_id: number
  app_name: string
  company_name: string
  scopes: Scope[]
  created_at: Date
}

// The user's live grants (oauth_grants_company_user_idx), each with its app and the app's company.
const grantsOfUser = defineQuery<AuthorisedApp>(
  'oauth.grantsOfUser',
  `select g.id as grant_id, a.id as app_id, a.name as app_name, c.name as company_name, g.scopes, g.created_at
     from oauth_grants g
     join ${APP_OF_GRANT}
     join ${companyOfRow('a')}
    where g.company_id = $1 and g.user_id = $2 and g.revoked_at is null
    order by g.id`,
)

export async function authorisedApps(db: Db, companyId: CompanyId, userId: number): Promise<AuthorisedApp[]> {
  return run(db, grantsOfUser, [companyId, userId])
}

export interface CodeRow {
  company_id: number
  id: number
  app_company_id: number
  app_id: number
  user_id: number
  /** The URI the authorization request named; null when it named none. */
  redirect_uri: string | null
  code_challenge: string
  scopes: Scope[]
  expires_at: Date
  used_at: Date | null
  grant_id: number
  grant_revoked_at: Date | null
  user_active: boolean
}

/** A new authorization code's fields, in the order of its insert's parameters ($2 to $10). */
export type NewCode = { appCompanyId: number; appId: number; userId: number; codeHash: string; redirectUri: string | null; challenge: string; scopes: Scope[]; expiresAt: Date; grantId: number }

const insertCodeRow = defineQuery<{ id: number }>(
  'oauth.insertCode',
  `insert into oauth_codes (company_id, app_company_id, app_id, user_id, code_hash, redirect_uri, code_challenge, scopes, expires_at, grant_id)
   values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
   returning id`,
)

export async function insertCode(db: Db, companyId: CompanyId, values: NewCode) {
  await run(db, insertCodeRow, [
    companyId,
    values.appCompanyId,
    values.appId,
    values.userId,
    values.codeHash,
    values.redirectUri,
    values.challenge,
    values.scopes,
    values.expiresAt,
    values.grantId,
  ])
}

// The token endpoint's code, locked (oauth_codes_code_hash_key), with its grant and user.
const codeByHash = defineQuery<CodeRow>(
  'oauth.codeByHash',
  `select o.company_id, o.id, o.app_company_id, o.app_id, o.user_id, o.redirect_uri, o.code_challenge, o.scopes,
          o.expires_at, o.used_at, o.grant_id, g.revoked_at as grant_revoked_at, u.active as user_active
     from oauth_codes o
     join oauth_grants g on g.company_id = o.company_id and g.id = o.grant_id
     join ${userOfRow('o')}
    where o.code_hash = $1
      for update of o`,
)

export async function lockCode(db: Db, codeHash: string): Promise<CodeRow | undefined> {
  return runOne(db, codeByHash, [codeHash])
}

const markCodeUsed = defineQuery<never>('oauth.markCodeUsed', `update oauth_codes set used_at = $3 where company_id = $1 and id = $2`)

export async function useCode(db: Db, companyId: CompanyId, id: number, at: Date) {
  await run(db, markCodeUsed, [companyId, id, at])
}

export interface RefreshRow {
  company_id: number
  id: number
  grant_id: number
  expires_at: Date
  used_at: Date | null
  created_at: Date
  app_company_id: number
  app_id: number
  user_id: number
  scopes: Scope[]
  grant_revoked_at: Date | null
  user_active: boolean
  user_email: string
}

const REFRESH_SELECT = `select r.company_id, r.id, r.grant_id, r.expires_at, r.used_at, r.created_at,
          g.app_company_id, g.app_id, g.user_id, g.scopes, g.revoked_at as grant_revoked_at,
          u.active as user_active, u.email as user_email
     from oauth_refresh_tokens r
     join oauth_grants g on g.company_id = r.company_id and g.id = r.grant_id
     join ${userOfRow('g')}
    where r.token_hash = $1`

// The token endpoint's refresh token, locked (oauth_refresh_tokens_token_hash_key).
const refreshByHashLocked = defineQuery<RefreshRow>('oauth.lockRefreshToken', `${REFRESH_SELECT}\n      for update of r`)
// Revoke and introspect: the same, unlocked.
const refreshByHash = defineQuery<RefreshRow>('oauth.refreshTokenByHash', REFRESH_SELECT)

export async function lockRefreshToken(db: Db, tokenHash: string) {
  return runOne(db, refreshByHashLocked, [tokenHash])
}

export async function findRefreshToken(db: Db, tokenHash: string) {
  return runOne(db, refreshByHash, [tokenHash])
}

const insertRefreshRow = defineQuery<never>(
  'oauth.insertRefreshToken',
  `insert into oauth_refresh_tokens (company_id, grant_id, token_hash, expires_at, created_at) values ($1, $2, $3, $4, $5)`,
)

export async function insertRefreshToken(db: Db, companyId: CompanyId, grantId: number, tokenHash: string, expiresAt: Date, at: Date) {
  await run(db, insertRefreshRow, [companyId, grantId, tokenHash, expiresAt, at])
}

const markRefreshUsed = defineQuery<never>('oauth.markRefreshUsed', `update oauth_refresh_tokens set used_at = $3 where company_id = $1 and id = $2`)

export async function useRefreshToken(db: Db, companyId: CompanyId, id: number, at: Date) {
  await run(db, markRefreshUsed, [companyId, id, at])
}

