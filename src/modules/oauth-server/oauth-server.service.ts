// This file holds the OAuth 2.0 authorization server's rules (RFC 6749, RFC 7636, RFC 7009,
// RFC 7662, RFC 9700; docs/access-control.md "OAuth 2.0"): apps registered by admins, consent,
// codes, the token endpoint's two grants, revocation and introspection. Every change runs in
// one transaction with its audit record and, for a revocation, its announcement to every
// server's token cache.
import { publicBaseUrl, type Config } from '../../config.js'
import { transaction, type Db } from '../../db/db.js'
import { invalid, notFound } from '../../errors.js'
import { asCompanyId, type Caller, type CompanyId } from '../../tenancy.js'
import { forGrantOf, type Acting } from '../../acting.js'
import { recordAudit } from '../audit/index.js'
import { findAccessToken, insertAccessToken, revokeAccessToken, revokeGrantTokens } from '../api-tokens/index.js'
import { isScope, normalizeScopes, SCOPES, type Scope } from '../../scopes.js'
import { announceGrantRevoked, announceRevoked } from '../../revocations.js'
import * as oauth from '../oauth/index.js'

export const ACCESS_TOKEN_TTL_S = 60 * 60
export const REFRESH_TOKEN_TTL_MS = 60 * 24 * 60 * 60_000
export const CODE_TTL_MS = 60_000
/** After a rotation the old client secret keeps working this long, so the app can roll out the new one. */
export const SECRET_OVERLAP_MS = 24 * 60 * 60_000
export const MAX_REDIRECT_URIS = 10
const NAME_MAX = 255
const STATE_MAX = 1024
const CLIENT_ID_MAX = 64

// ---------------------------------------------------------------------------------------
// Apps (Settings → Apps, admins only)

export interface AppInput {
  name: string
  redirectUris: string[]
  scopes: string[]
  /** Marks a public client, which has no secret, so PKCE alone binds its codes. */
  public?: boolean
}

/** Shows the app as the admin sees it, which never includes a secret, only whether it has one. */
export const shownApp = (app: oauth.AppRow) => ({
  id: app.id,
  client_id: app.client_id,
  name: app.name,
  redirect_uris: app.redirect_uris,
  scopes: app.scopes,
  client_type: app.confidential ? ('confidential' as const) : ('public' as const),
  previous_secret_expires_at: app.previous_secret_expires_at,
  created_at: app.created_at,
  updated_at: app.updated_at,
})
export type ShownApp = ReturnType<typeof shownApp>

function checkApp(input: AppInput): { name: string; redirectUris: string[]; scopes: Scope[] } {
  const details: Record<string, string[]> = {}
  const name = input.name.trim()
  if (name === '') details.name = ["can't be blank"]
  else if (Array.from(name).length > NAME_MAX || /\p{Cc}/u.test(name) || !name.isWellFormed()) details.name = ['must be at most 255 characters of text']
  const uris = [...new Set(input.redirectUris.map((uri) => uri.trim()).filter((uri) => uri !== ''))]
  if (uris.length === 0) details.redirect_uris = ["can't be blank"]
  else if (uris.length > MAX_REDIRECT_URIS) details.redirect_uris = [`are at most ${String(MAX_REDIRECT_URIS)}`]
  else {
    const problems = uris.flatMap((uri) => {
      const problem = oauth.redirectUriProblem(uri)
      return problem ? [`${uri.slice(0, 100)} ${problem}`] : []
    })
    if (problems.length > 0) details.redirect_uris = problems
  }
  const unknown = input.scopes.filter((scope) => !isScope(scope))
  if (input.scopes.length === 0) details.scopes = ["can't be blank"]
  else if (unknown.length > 0) details.scopes = ['has unknown scopes']
  if (Object.keys(details).length > 0) throw invalid(details)
  return { name, redirectUris: uris, scopes: normalizeScopes(input.scopes.filter(isScope)) }
}

const appTarget = (app: { id: number; name: string }) => ({ id: app.id, label: app.name })

export async function registerApp(db: Db, acting: Pick<Caller, 'companyId'> & Acting, input: AppInput) {
  const { companyId, now, audit: context } = acting
  const values = checkApp(input)
  const secret = input.public ? null : oauth.secretWith(oauth.CLIENT_SECRET_PREFIX)
  const app = await transaction(db, async (tx) => {
    const row = await oauth.insertApp(tx, companyId, { ...values, clientId: oauth.newClientId(), secretHash: secret && oauth.sha256(secret) })
    await recordAudit(
      tx,
      companyId,
      context,
      {
        action: 'oauth_app.registered',
        target: appTarget(row),
        changes: {
          name: [null, row.name],
          redirect_uris: [null, row.redirect_uris],
          scopes: [null, row.scopes],
          client_type: [null, row.confidential ? 'confidential' : 'public'],
        },
      },
      now,
    )
    return row
  })
  return { app: shownApp(app), clientSecret: secret }
}

/**
 * Tells whether any company registered an OAuth app, because the start warns when apps exist and no
 * PUBLIC_URL names the issuer.
 */
export function anyAppExists(db: Db): Promise<boolean> {
  return oauth.anyAppRegistered(db)
}

export async function listApps(db: Db, companyId: CompanyId) {
  return (await oauth.companyApps(db, companyId)).map(shownApp)
}

export async function findApp(db: Db, companyId: CompanyId, id: number) {
  const app = await oauth.companyApp(db, companyId, id)
  if (!app) throw notFound()
  return shownApp(app)
}

/** Changes name, redirect URIs and scopes; tokens already issued keep the scopes they were given. */
export async function changeApp(db: Db, acting: Pick<Caller, 'companyId'> & Acting, id: number, input: AppInput) {
  const { companyId, now, audit: context } = acting
  const values = checkApp(input)
  const app = await transaction(db, async (tx) => {
    const before = await oauth.companyApp(tx, companyId, id)
    if (!before) return undefined
    const row = await oauth.updateApp(tx, companyId, id, values, now)
    if (!row) return undefined
    const changes: Record<string, [unknown, unknown]> = {}
    if (before.name !== row.name) changes.name = [before.name, row.name]
    if (before.redirect_uris.join(' ') !== row.redirect_uris.join(' ')) changes.redirect_uris = [before.redirect_uris, row.redirect_uris]
    if (before.scopes.join(' ') !== row.scopes.join(' ')) changes.scopes = [before.scopes, row.scopes]
    await recordAudit(tx, companyId, context, { action: 'oauth_app.changed', target: appTarget(row), changes }, now)
    return row
  })
  if (!app) throw notFound()
  return shownApp(app)
}

/**
 * Makes a new client secret, shown once, while the old one keeps working for SECRET_OVERLAP_MS
 * more. A public client has no secret, so it gets a 422.
 */
export async function rotateClientSecret(db: Db, acting: Pick<Caller, 'companyId'> & Acting, id: number) {
  const { companyId, now, audit: context } = acting
  const secret = oauth.secretWith(oauth.CLIENT_SECRET_PREFIX)
  const result = await transaction(db, async (tx) => {
    const before = await oauth.companyApp(tx, companyId, id)
    if (!before) return undefined
    if (!before.confidential) return 'public' as const
    const row = await oauth.rotateAppSecret(tx, companyId, id, oauth.sha256(secret), new Date(now.getTime() + SECRET_OVERLAP_MS), now)
    if (!row) return undefined
    await recordAudit(tx, companyId, context, { action: 'oauth_app.secret_rotated', target: appTarget(row), changes: { previous_secret_expires_at: [null, row.previous_secret_expires_at?.toISOString() ?? null] } }, now)
    return row
  })
  if (result === 'public') throw invalid({ client_secret: ['a public client has no secret'] })
  if (!result) throw notFound()
  return { app: shownApp(result), clientSecret: secret }
}

/** Deletes the app: every grant of it, in every company, ends at once on every server. */
export async function removeApp(db: Db, acting: Pick<Caller, 'companyId'> & Acting, id: number) {
  const { companyId, now, audit: context } = acting
  const app = await transaction(db, async (tx) => {
    const grants = await oauth.liveGrantsOfApp(tx, companyId, id)
    for (const grant of grants) await announceGrantRevoked(tx, grant.id)
    const row = await oauth.deleteApp(tx, companyId, id)
    if (row) await recordAudit(tx, companyId, context, { action: 'oauth_app.deleted', target: appTarget(row), changes: { grants_ended: [null, grants.length] } }, now)
    return row
  })
  if (!app) throw notFound()
  return shownApp(app)
}

// ---------------------------------------------------------------------------------------
// Authorization request and consent (GET and POST /oauth/authorize, in the web application)

/**
 * Holds the parameters of an authorization request as they were sent, in the query string or the
 * consent form's hidden fields.
 */
export type AuthorizeParams = Partial<Record<'client_id' | 'redirect_uri' | 'response_type' | 'scope' | 'state' | 'code_challenge' | 'code_challenge_method', string>>

export type AuthorizeCheck =
  /** Without a registered URI to answer to, nothing redirects and the page says why. */
  | { kind: 'page'; message: string }
  /** The error is sent back to the app's registered URI (RFC 6749 §4.1.2.1). */
  | { kind: 'redirect'; to: string }
  | {
      kind: 'ok'
      client: oauth.ClientRow
      redirectUri: string
      /** Says whether the request named redirect_uri, because then the token request must repeat it (RFC 6749 §4.1.3). */
      redirectUriNamed: boolean
      scopes: Scope[]
      challenge: string
      state: string | undefined
      issuer: string
    }

/** Checks an authorization request; every answer sent to the app carries `iss` (RFC 9207). */
export async function checkAuthorize(db: Db, params: AuthorizeParams, issuer: string): Promise<AuthorizeCheck> {
  const clientId = params.client_id
  if (clientId === undefined || clientId === '' || clientId.length > CLIENT_ID_MAX) return { kind: 'page', message: 'The link does not name an app (client_id is missing or malformed).' }
  const client = await oauth.clientById(db, clientId)
  if (!client) return { kind: 'page', message: 'No app is registered with this client_id.' }
  const redirectUri = oauth.registeredUri(client.redirect_uris, params.redirect_uri)
  if (!redirectUri) {
    return {
      kind: 'page',
      message:
        params.redirect_uri === undefined
          ? 'The link names no redirect_uri, and the app has more than one registered.'
          : 'The redirect_uri is not one the app registered (it must match exactly), so you are not sent there.',
    }
  }
  const state = params.state
  const fail = (error: oauth.OAuthError['error'], description: string, keepState = true): AuthorizeCheck => ({
    kind: 'redirect',
    to: oauth.redirectTo(redirectUri, { error, error_description: description, state: keepState ? state : undefined, iss: issuer }),
  })
  if (state !== undefined && state.length > STATE_MAX) return fail('invalid_request', `state is longer than ${String(STATE_MAX)} characters`, false)
  if (params.response_type !== 'code') return fail('unsupported_response_type', 'response_type must be code')
  if (params.code_challenge_method !== 'S256') return fail('invalid_request', 'PKCE is required: code_challenge_method must be S256 (plain is refused)')
  const challenge = params.code_challenge
  if (challenge === undefined || !oauth.CHALLENGE.test(challenge)) return fail('invalid_request', 'code_challenge must be the base64url SHA-256 of the code verifier (43 characters)')
  const scopes = oauth.parseScope(params.scope, client.scopes)
  if (!scopes) return fail('invalid_scope', 'scope must be a space-separated set of the scopes the app may ask for')
  return { kind: 'ok', client, redirectUri, redirectUriNamed: params.redirect_uri !== undefined, scopes, challenge, state, issuer }
}

export interface ConsentingUser {
  companyId: CompanyId
  userId: number
}

/**
 * Records the user's answer on the consent page: Allow makes a grant and a one-time code for it,
 * and Deny sends access_denied. Either way it returns the address to send the browser to, which
 * is a registered URI.
 */
export async function answerConsent(db: Db, user: ConsentingUser & Acting, checked: Extract<AuthorizeCheck, { kind: 'ok' }>, allow: boolean): Promise<string> {
  const { now, audit: context } = user
  const { client, redirectUri, redirectUriNamed, scopes, challenge, state, issuer } = checked
  const appFields = { app_id: [null, client.id] as [null, number], scopes: [null, scopes] as [null, Scope[]] }
  if (!allow) {
    await recordAudit(db, user.companyId, context, { action: 'oauth_consent.refused', target: { id: null, label: client.name }, changes: appFields }, now)
    return oauth.redirectTo(redirectUri, { error: 'access_denied', error_description: 'The user denied access', state, iss: issuer })
  }
  const code = oauth.secretWith(oauth.CODE_PREFIX)
  await transaction(db, async (tx) => {
    const grant = await oauth.insertGrant(tx, user.companyId, { appCompanyId: client.company_id, appId: client.id, userId: user.userId, scopes }, now)
    await oauth.insertCode(tx, user.companyId, {
      appCompanyId: client.company_id,
      appId: client.id,
      userId: user.userId,
      codeHash: oauth.sha256(code),
      redirectUri: redirectUriNamed ? redirectUri : null,
      challenge,
      scopes,
      expiresAt: new Date(now.getTime() + CODE_TTL_MS),
      grantId: grant.id,
    })
    await recordAudit(tx, user.companyId, context, { action: 'oauth_consent.granted', target: { id: grant.id, label: client.name }, changes: appFields }, now)
  })
  return oauth.redirectTo(redirectUri, { code, state, iss: issuer })
}

// ---------------------------------------------------------------------------------------
// The token, revocation and introspection endpoints

export type Form = Record<string, unknown>
const field = (form: Form, name: string): string | undefined => {
  const value = form[name]
  return typeof value === 'string' ? value : undefined
}

/**
 * Authenticates the calling client (RFC 6749 §2.3) by client_secret_basic (the header's
 * credentials), by client_secret_post (client_id and client_secret in the body), or, for a
 * public client, by its client_id alone. Using two methods at once is invalid_request; anything
 * else wrong is invalid_client (401), which does not say what was wrong.
 */
export async function authenticateClient(db: Db, basic: { clientId: string; secret: string } | undefined, form: Form, now: Date): Promise<oauth.ClientRow> {
  const bodyId = field(form, 'client_id')
  const bodySecret = field(form, 'client_secret')
  if (basic && bodySecret !== undefined) throw new oauth.OAuthError('invalid_request', 'use one client authentication method, not two')
  if (basic && bodyId !== undefined && bodyId !== basic.clientId) throw new oauth.OAuthError('invalid_request', 'client_id differs from the Authorization header')
  const clientId = basic?.clientId ?? bodyId
  const secret = basic?.secret ?? bodySecret
  const refused = new oauth.OAuthError('invalid_client', 'client authentication failed', 401)
  if (clientId === undefined || clientId === '' || clientId.length > CLIENT_ID_MAX) throw refused
  const client = await oauth.clientById(db, clientId)
  if (!client) throw refused
  if (client.secret_hash === null) {
    if (secret !== undefined && secret !== '') throw refused // a public client has no secret to send
    return client
  }
  if (secret === undefined || secret === '') throw refused
  const hash = oauth.sha256(secret)
  const current = oauth.sameSecret(hash, client.secret_hash)
  const previous =
    client.previous_secret_hash !== null &&
    client.previous_secret_expires_at !== null &&
    client.previous_secret_expires_at.getTime() > now.getTime() &&
    oauth.sameSecret(hash, client.previous_secret_hash)
  if (!current && !previous) throw refused
  return client
}

export interface TokenResponse {
  access_token: string
  token_type: 'Bearer'
  expires_in: number
  refresh_token: string
  scope: string
}

async function issueTokens(tx: Db, companyId: CompanyId, grant: { id: number; userId: number }, scopes: Scope[], client: oauth.ClientRow, now: Date): Promise<TokenResponse> {
  const access = oauth.secretWith(oauth.ACCESS_TOKEN_PREFIX)
  const refresh = oauth.secretWith(oauth.REFRESH_TOKEN_PREFIX)
  await insertAccessToken(
    tx,
    companyId,
    {
      userId: grant.userId,
      tokenHash: oauth.sha256(access),
      prefix: access.slice(0, 12),
      label: client.name.slice(0, 255),
      scopes,
      expiresAt: new Date(now.getTime() + ACCESS_TOKEN_TTL_S * 1000),
      grantId: grant.id,
    },
    now,
  )
  await oauth.insertRefreshToken(tx, companyId, grant.id, oauth.sha256(refresh), new Date(now.getTime() + REFRESH_TOKEN_TTL_MS), now)
  return { access_token: access, token_type: 'Bearer', expires_in: ACCESS_TOKEN_TTL_S, refresh_token: refresh, scope: scopes.join(' ') }
}

/**
 * Ends a grant in its transaction: it revokes the grant and its access tokens, and announces the
 * revocation to every server's cache.
 */
async function endGrant(tx: Db, companyId: CompanyId, grantId: number, now: Date) {
  const grant = await oauth.revokeGrant(tx, companyId, grantId, now)
  await revokeGrantTokens(tx, companyId, grantId, now)
  await announceGrantRevoked(tx, grantId)
  return grant
}

const belongsTo = (row: { app_company_id: number; app_id: number }, client: oauth.ClientRow) => row.app_company_id === client.company_id && row.app_id === client.id

/**
 * Runs a token grant's steps in one transaction. The steps return a refusal instead of throwing
 * it, so that what they wrote commits (a reused code or refresh token ends its grant), and the
 * refusal is thrown after the commit.
 */
async function grantTransaction(db: Db, steps: (tx: Db) => Promise<TokenResponse | oauth.OAuthError>): Promise<TokenResponse> {
  const result = await transaction(db, steps)
  if (result instanceof oauth.OAuthError) throw result
  return result
}

/**
 * Exchanges a code for tokens (grant_type=authorization_code, RFC 6749 §4.1.3, RFC 7636 §4.6).
 * A code works once, within 60 seconds, for the client it was issued to, with the same
 * redirect_uri and the verifier of its challenge. A second use of a code ends the grant it made
 * (RFC 6749 §4.1.2).
 */
export async function exchangeCode(db: Db, client: oauth.ClientRow, form: Form, now: Date): Promise<TokenResponse> {
  const code = field(form, 'code')
  const verifier = field(form, 'code_verifier')
  const redirectUri = field(form, 'redirect_uri')
  if (code === undefined || code === '') throw new oauth.OAuthError('invalid_request', 'code is required')
  if (verifier === undefined || verifier === '') throw new oauth.OAuthError('invalid_request', 'code_verifier is required (PKCE)')
  if (!oauth.VERIFIER.test(verifier)) throw new oauth.OAuthError('invalid_request', 'code_verifier must be 43 to 128 characters of A-Z a-z 0-9 - . _ ~')
  return grantTransaction(db, async (tx) => {
    const row = await oauth.lockCode(tx, oauth.sha256(code))
    const invalidGrant = new oauth.OAuthError('invalid_grant', 'the code is invalid, expired, used or was issued to another client')
    if (!row || !belongsTo(row, client)) return invalidGrant
    const companyId = asCompanyId(row.company_id)
    if (row.used_at !== null) {
      await endGrant(tx, companyId, row.grant_id, now)
      return invalidGrant
    }
    if (row.expires_at.getTime() <= now.getTime() || row.grant_revoked_at !== null || !row.user_active) return invalidGrant
    // When the authorization request named no redirect_uri, the token request may omit it or name the URI used then.
    const sameUri = row.redirect_uri === null ? redirectUri === undefined || (client.redirect_uris.length === 1 && redirectUri === client.redirect_uris[0]) : redirectUri === row.redirect_uri
    if (!sameUri) return new oauth.OAuthError('invalid_grant', 'redirect_uri differs from the authorization request')
    if (!oauth.pkceMatches(verifier, row.code_challenge)) return new oauth.OAuthError('invalid_grant', 'code_verifier does not match the code_challenge')
    await oauth.useCode(tx, companyId, row.id, now)
    return issueTokens(tx, companyId, { id: row.grant_id, userId: row.user_id }, row.scopes, client, now)
  })
}

/**
 * Exchanges a refresh token for new tokens (grant_type=refresh_token, RFC 6749 §6, RFC 9700
 * §4.14.2). A refresh token works once, and the answer carries the next one. Presenting one that
 * was already used ends the whole grant, because one of its two holders is not the app. An
 * optional `scope` narrows only the new access token.
 */
export async function refreshTokens(db: Db, acting: Acting, client: oauth.ClientRow, form: Form): Promise<TokenResponse> {
  const { now, audit: context } = acting
  const token = field(form, 'refresh_token')
  if (token === undefined || token === '') throw new oauth.OAuthError('invalid_request', 'refresh_token is required')
  const asked = field(form, 'scope')
  return grantTransaction(db, async (tx) => {
    const row = await oauth.lockRefreshToken(tx, oauth.sha256(token))
    const invalidGrant = new oauth.OAuthError('invalid_grant', 'the refresh token is invalid, expired, revoked or was issued to another client')
    if (!row || !belongsTo(row, client)) return invalidGrant
    const companyId = asCompanyId(row.company_id)
    if (row.grant_revoked_at !== null) return invalidGrant
    if (row.used_at !== null) {
      await endGrant(tx, companyId, row.grant_id, now)
      await recordAudit(tx, companyId, forGrantOf(context, row.user_id), { action: 'oauth_grant.refresh_token_reused', target: { id: row.grant_id, label: client.name }, changes: { revoked: [false, true] } }, now)
      return invalidGrant
    }
    if (row.expires_at.getTime() <= now.getTime() || !row.user_active) return invalidGrant
    const scopes = asked === undefined ? row.scopes : oauth.parseScope(asked, row.scopes)
    if (!scopes) return new oauth.OAuthError('invalid_scope', 'scope must be a subset of the scopes the user granted')
    await oauth.useRefreshToken(tx, companyId, row.id, now)
    return issueTokens(tx, companyId, { id: row.grant_id, userId: row.user_id }, scopes, client, now)
  })
}

/**
 * Revokes a token of the client (RFC 7009): an access token is revoked alone, while a refresh
 * token ends its whole grant and the grant's access tokens. A token that is unknown, already
 * revoked or another client's changes nothing, and the answer does not tell it apart: it is
 * 200 either way.
 */
export async function revokeOAuthToken(db: Db, acting: Acting, client: oauth.ClientRow, form: Form): Promise<void> {
  const { now, audit: context } = acting
  const token = field(form, 'token')
  if (token === undefined || token === '') throw new oauth.OAuthError('invalid_request', 'token is required')
  const hint = field(form, 'token_type_hint')
  const hash = oauth.sha256(token)
  const asRefresh = async () => {
    const row = await oauth.findRefreshToken(db, hash)
    if (!row || !belongsTo(row, client) || row.grant_revoked_at !== null) return row !== undefined
    await transaction(db, async (tx) => {
      const grant = await endGrant(tx, asCompanyId(row.company_id), row.grant_id, now)
      if (grant) await recordAudit(tx, asCompanyId(row.company_id), forGrantOf(context, row.user_id), { action: 'oauth_consent.revoked', target: { id: grant.id, label: client.name } }, now)
    })
    return true
  }
  const asAccess = async () => {
    const row = await findAccessToken(db, hash)
    if (!row || !belongsTo(row, client) || row.revoked_at !== null) return row !== undefined
    await transaction(db, async (tx) => {
      const revoked = await revokeAccessToken(tx, asCompanyId(row.company_id), row.id, now)
      if (revoked) await announceRevoked(tx, hash)
    })
    return true
  }
  // The hint only orders the look-ups (RFC 7009 §2.1).
  if (hint === 'refresh_token') {
    if (!(await asRefresh())) await asAccess()
  } else if (!(await asAccess())) await asRefresh()
}

/** Describes a token of the calling client (RFC 7662), and answers `{active: false}` for anything else. */
export async function introspect(db: Db, client: oauth.ClientRow, form: Form, now: Date): Promise<Record<string, unknown>> {
  const token = field(form, 'token')
  if (token === undefined || token === '') throw new oauth.OAuthError('invalid_request', 'token is required')
  const hash = oauth.sha256(token)
  const seconds = (at: Date) => Math.floor(at.getTime() / 1000)
  const common = (row: { user_id: number; user_email: string; company_id: number }) => ({
    client_id: client.client_id,
    username: row.user_email,
    sub: String(row.user_id),
    company_id: row.company_id,
  })
  const access = await findAccessToken(db, hash)
  if (access) {
    const live = belongsTo(access, client) && access.revoked_at === null && access.grant_revoked_at === null && access.user_active && access.expires_at.getTime() > now.getTime()
    if (!live) return { active: false }
    return { active: true, scope: access.scopes.join(' '), token_type: 'Bearer', exp: seconds(access.expires_at), iat: seconds(access.created_at), ...common(access) }
  }
  const refresh = await oauth.findRefreshToken(db, hash)
  if (refresh) {
    const live = belongsTo(refresh, client) && refresh.used_at === null && refresh.grant_revoked_at === null && refresh.user_active && refresh.expires_at.getTime() > now.getTime()
    if (!live) return { active: false }
    return { active: true, scope: refresh.scopes.join(' '), token_type: 'refresh_token', exp: seconds(refresh.expires_at), iat: seconds(refresh.created_at), ...common(refresh) }
  }
  return { active: false }
}

/**
 * Returns the authorization server's issuer identifier (RFC 8414 §2, RFC 9207): PUBLIC_URL, else
 * the address this machine guesses. It never uses a request's Host header, because a client
 * chooses that.
 */
export const issuerOf = (config: Pick<Config, 'publicUrl' | 'port'>) => publicBaseUrl(config)

/** Builds the RFC 8414 metadata, in which `issuer` is the service's public address. */
export function metadata(issuer: string) {
  return {
    issuer,
    authorization_response_iss_parameter_supported: true,
    authorization_endpoint: `${issuer}/oauth/authorize`,
    token_endpoint: `${issuer}/oauth/token`,
    revocation_endpoint: `${issuer}/oauth/revoke`,
    introspection_endpoint: `${issuer}/oauth/introspect`,
    response_types_supported: ['code'],
    response_modes_supported: ['query'],
    grant_types_supported: ['authorization_code', 'refresh_token'],
    code_challenge_methods_supported: ['S256'],
    token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post', 'none'],
    revocation_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post', 'none'],
    introspection_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post', 'none'],
    scopes_supported: [...SCOPES],
    service_documentation: `${issuer}/docs/v1`,
  }
}

// ---------------------------------------------------------------------------------------
// Settings → Integrations: the apps a user authorised

export async function listAuthorisedApps(db: Db, companyId: CompanyId, userId: number) {
  return oauth.authorisedApps(db, companyId, userId)
}

/** The user ends one of their grants: every token of it answers 401 at once, on every server. */
export async function revokeAuthorisedApp(db: Db, acting: Pick<Caller, 'companyId' | 'userId'> & Acting, grantId: number) {
  const { companyId, userId, now, audit: context } = acting
  const grant = await transaction(db, async (tx) => {
    const row = await oauth.revokeGrantOfUser(tx, companyId, userId, grantId, now)
    if (!row) return undefined
    await revokeGrantTokens(tx, companyId, grantId, now)
    await announceGrantRevoked(tx, row.id)
    const app = await findAppName(tx, row.app_company_id, row.app_id)
    await recordAudit(tx, companyId, context, { action: 'oauth_consent.revoked', target: { id: row.id, label: app } }, now)
    return row
  })
  if (!grant) throw notFound()
  return grant
}

async function findAppName(db: Db, appCompanyId: number, appId: number): Promise<string | null> {
  const app = await oauth.companyApp(db, asCompanyId(appCompanyId), appId)
  return app?.name ?? null
}
