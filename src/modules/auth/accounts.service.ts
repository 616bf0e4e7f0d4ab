// Accounts of the web application: signing in (email and password), server-side sessions,
// invite links, passwords, (de)activation and roles. Session ids and invite tokens are random and
// stored only as SHA-256 hashes, like api tokens.
import { randomBytes } from 'node:crypto'
import { transaction, type Db } from '../../db/db.js'
import { ApiError } from '../../errors.js'
import { NO_ORIGIN, type Acting, type AuditContext, type Origin } from '../../acting.js'
import { changesOf, recordAudit, type FailureReason } from '../audit/index.js'
import { asCompanyId, type CompanyId } from '../../tenancy.js'
import { findUserAnyCompany, lockUserAnyCompany, updateUserRole, type UserSetRoleInput } from '../users/index.js'
import { findUsableInvite, markInviteUsed, replaceInvite, signInCandidates, updateActive, updatePasswordHash, type SignInCandidate } from './accounts.repository.js'
import { dummyHash, generatePassword, hashPassword, passwordProblem, verifyPassword } from './passwords.js'
import {
  deleteExpiredSessionsOf,
  deleteSessionByHash,
  deleteSessionsOfUser,
  findLiveSession,
  insertSession,
  touchSessionRow,
} from './sessions.repository.js'
import { revokeGrantsOfUser } from '../oauth/index.js'
import { revokeOAuthTokensOfUser } from '../api-tokens/index.js'
import { hashToken } from './tokens.service.js'
import { announceUserRevoked } from '../../revocations.js'

export const SESSION_IDLE_MS = 12 * 60 * 60_000
export const SESSION_ABSOLUTE_MS = 30 * 24 * 60 * 60_000
export const INVITE_VALID_MS = 7 * 24 * 60 * 60_000
/** last_seen_at is written at most this often per session. */
const SESSION_TOUCH_MS = 60_000

/** The signed-in user, as every page of the web application needs it. */
export interface Account {
  sessionId: number
  companyId: CompanyId
  userId: number
  name: string
  email: string
  role: 'admin' | 'member'
  companyName: string
  timezone: string
}

const newSecret = () => randomBytes(32).toString('base64url')

function cutoffs(now: Date) {
  return { idle: new Date(now.getTime() - SESSION_IDLE_MS), absolute: new Date(now.getTime() - SESSION_ABSOLUTE_MS) }
}

/** Opens a session for the user (sweeping the user's expired ones); returns the cookie's secret. */
async function openSession(db: Db, companyId: CompanyId, userId: number, now: Date): Promise<string> {
  const secret = newSecret()
  const { idle, absolute } = cutoffs(now)
  await deleteExpiredSessionsOf(db, companyId, userId, idle, absolute)
  await insertSession(db, companyId, userId, hashToken(secret), now)
  return secret
}

/** Audit records of a refused sign-in, written once the answer is sent (see `signIn`). */
export type RefusalRecords = () => Promise<void>

export type SignInResult = { ok: true; session: string } | { ok: false; reason: 'invalid' | 'ambiguous'; records: RefusalRecords }

const NOTHING_TO_RECORD: RefusalRecords = () => Promise.resolve()

/**
 * Emails are unique per company, not globally: the password is tried against every active
 * account with the email (oldest first, at most a few), and signing in succeeds only when it
 * opens exactly one. An unknown email still costs one argon2 verification (of a dummy hash),
 * so it takes as long as a wrong password; and a refusal's audit records are returned for the
 * caller to write after answering, so a known email is not told by the time of their insert.
 */
export async function signIn(db: Db, email: string, password: string, now: Date, origin: Origin = NO_ORIGIN): Promise<SignInResult> {
  const candidates = await signInCandidates(db, email)
  if (candidates.length === 0) {
    await verifyPassword(await dummyHash(), password)
    return { ok: false, reason: 'invalid', records: NOTHING_TO_RECORD }
  }
  const matches: SignInCandidate[] = []
  for (const candidate of candidates) {
    if (await verifyPassword(candidate.password_hash, password)) matches.push(candidate)
  }
  const live = matches.filter((candidate) => candidate.active)
  const [match] = live
  if (!match) {
    // A deactivated account is refused like a wrong password: the page says the same.
    const refused = candidates.map((c) => ({ candidate: c, reason: matches.includes(c) ? 'deactivated' as const : 'wrong_password' as const }))
    return { ok: false, reason: 'invalid', records: () => recordRefused(db, refused, origin, now) }
  }
  if (live.length > 1) return { ok: false, reason: 'ambiguous', records: NOTHING_TO_RECORD }
  const companyId = asCompanyId(match.company_id)
  const session = await transaction(db, async (tx) => {
    const secret = await openSession(tx, companyId, match.id, now)
    await recordAudit(tx, companyId, actingUser(origin, match), { action: 'user.signed_in', target: { id: match.id, label: match.name } }, now)
    return secret
  })
  return { ok: true, session }
}

/** The account a sign-in names acts (it is the actor of its own sign-in, refused or not). */
const actingUser = (origin: Origin, user: { id: number; name: string }): AuditContext => ({ ...origin, actor: { type: 'user', id: user.id, label: user.name } })

/** One `user.sign_in_refused` per account the email names (a company each; an unknown email names none). */
async function recordRefused(db: Db, refused: { candidate: SignInCandidate; reason: FailureReason }[], origin: Origin, now: Date) {
  for (const { candidate, reason } of refused) {
    await recordAudit(db, asCompanyId(candidate.company_id), actingUser(origin, candidate), {
      action: 'user.sign_in_refused',
      target: { id: candidate.id, label: candidate.name },
      failure: reason,
    }, now)
  }
}

/**
 * A sign-in refused before any password check (over the rate limit): the records for the
 * accounts of the email, to write after answering (as `signIn`'s refusals).
 */
export async function signInRateLimited(db: Db, email: string, origin: Origin, now: Date): Promise<RefusalRecords> {
  const candidates = await signInCandidates(db, email)
  if (candidates.length === 0) return NOTHING_TO_RECORD
  return () => recordRefused(db, candidates.map((candidate) => ({ candidate, reason: 'rate_limited' as const })), origin, now)
}

/** The account of a session cookie's secret, when the session is live and its user active. */
export async function findAccount(db: Db, secret: string, now: Date): Promise<Account | undefined> {
  const { idle, absolute } = cutoffs(now)
  const row = await findLiveSession(db, hashToken(secret), idle, absolute)
  if (!row) return undefined
  const companyId = asCompanyId(row.company_id)
  if (now.getTime() - row.last_seen_at.getTime() >= SESSION_TOUCH_MS) await touchSessionRow(db, companyId, row.id, now)
  return {
    sessionId: row.id,
    companyId,
    userId: row.user_id,
    name: row.name,
    email: row.email,
    role: row.role,
    companyName: row.company_name,
    timezone: row.timezone,
  }
}

/** Ends the session; `context` (an explicit sign-out) records it, a session replaced by a new sign-in is not. */
export async function signOut(db: Db, secret: string, context?: AuditContext): Promise<void> {
  if (!context) {
    await deleteSessionByHash(db, hashToken(secret))
    return
  }
  await transaction(db, async (tx) => {
    const ended = await deleteSessionByHash(tx, hashToken(secret))
    if (ended) {
      await recordAudit(tx, asCompanyId(ended.company_id), context, { action: 'user.signed_out', target: { id: ended.user_id, label: context.actor.label } })
    }
  })
}

async function requireUser(db: Db, userId: number) {
  const user = await findUserAnyCompany(db, userId)
  if (!user) throw new ApiError(404, `user ${String(userId)} not found`)
  return user
}

/**
 * `user set-password`: a new password (or a generated one, returned this once). The user's
 * sessions end: whoever was signed in with the old password signs in again.
 */
export async function setPassword(db: Db, acting: Acting, userId: number, given: { password: string } | { generate: true }) {
  const user = await requireUser(db, userId)
  const password = 'password' in given ? given.password : generatePassword()
  const problem = passwordProblem(password)
  if (problem) throw new ApiError(422, problem)
  const passwordHash = await hashPassword(password)
  const companyId = asCompanyId(user.company_id)
  await transaction(db, async (tx) => {
    await updatePasswordHash(tx, companyId, user.id, passwordHash)
    await deleteSessionsOfUser(tx, companyId, user.id)
    await recordAudit(tx, companyId, acting.audit, { action: 'user.password_set', target: { id: user.id, label: user.name } })
  })
  return 'generate' in given ? { user_id: user.id, email: user.email, password } : { user_id: user.id, email: user.email, password_set: true }
}

/** `user invite`: a one-time link, valid 7 days, where the user chooses a password. */
export async function inviteUser(db: Db, acting: Acting, userId: number, baseUrl: string) {
  const { now, audit: context } = acting
  const user = await requireUser(db, userId)
  if (!user.active) throw new ApiError(422, `user ${String(userId)} is deactivated; activate it first`)
  const token = newSecret()
  const companyId = asCompanyId(user.company_id)
  const row = await transaction(db, async (tx) => {
    const invite = await replaceInvite(tx, companyId, user.id, {
      tokenHash: hashToken(token),
      expiresAt: new Date(now.getTime() + INVITE_VALID_MS),
      at: now,
    })
    await recordAudit(tx, companyId, context, {
      action: 'user.invite_created',
      target: { id: user.id, label: user.name },
      changes: { invite_expires_at: [null, invite.expires_at] },
    }, now)
    return invite
  })
  return { user_id: user.id, email: user.email, url: `${baseUrl}/invite/${token}`, expires_at: row.expires_at }
}

/** Whose an invite link is, while it can still be used. */
export async function findInvite(db: Db, token: string, now: Date) {
  const row = await findUsableInvite(db, hashToken(token), now)
  return row && { name: row.name, email: row.email, companyName: row.company_name }
}

export type AcceptResult = { ok: true; session: string } | { ok: false; reason: 'gone' } | { ok: false; reason: 'password'; problem: string }

/** Sets the password chosen on an invite link, uses the link up and signs the user in. */
export async function acceptInvite(db: Db, token: string, password: string, now: Date, origin: Origin = NO_ORIGIN): Promise<AcceptResult> {
  const problem = passwordProblem(password)
  if (problem) return { ok: false, reason: 'password', problem }
  const passwordHash = await hashPassword(password)
  return transaction(db, async (tx): Promise<AcceptResult> => {
    const invite = await findUsableInvite(tx, hashToken(token), now)
    const companyId = invite && asCompanyId(invite.company_id)
    if (!invite || !companyId || !(await markInviteUsed(tx, companyId, invite.id, now))) return { ok: false, reason: 'gone' }
    await updatePasswordHash(tx, companyId, invite.user_id, passwordHash)
    await deleteSessionsOfUser(tx, companyId, invite.user_id)
    const session = await openSession(tx, companyId, invite.user_id, now)
    const user = { id: invite.user_id, name: invite.name }
    await recordAudit(tx, companyId, actingUser(origin, user), { action: 'user.invite_used', target: { id: user.id, label: user.name } }, now)
    return { ok: true, session }
  })
}

/**
 * `user deactivate`: at once, the user cannot sign in, every session ends (they are looked up
 * with the user's active flag, and deleted here) and every api token answers 401 on every
 * server (the cached ones are dropped through REVOKE_CHANNEL), and every OAuth grant of theirs ends.
 */
export function deactivateUser(db: Db, acting: Acting, userId: number) {
  return setActive(db, acting, userId, false)
}

/** `user activate`: the user may sign in again, and the tokens still live work again. */
export function activateUser(db: Db, acting: Acting, userId: number) {
  return setActive(db, acting, userId, true)
}

async function setActive(db: Db, acting: Acting, userId: number, active: boolean) {
  const { now, audit: context } = acting
  const user = await requireUser(db, userId)
  const companyId = asCompanyId(user.company_id)
  const row = await transaction(db, async (tx) => {
    const updated = await updateActive(tx, companyId, user.id, active, now)
    if (!active) {
      await deleteSessionsOfUser(tx, companyId, user.id)
      // Their OAuth grants end for good (refresh tokens stop; reactivating does not revive them).
      await revokeGrantsOfUser(tx, companyId, user.id, now)
      await revokeOAuthTokensOfUser(tx, companyId, user.id, now)
      await announceUserRevoked(tx, user.id)
    }
    const action = active ? 'user.reactivated' : 'user.deactivated'
    await recordAudit(tx, companyId, context, { action, target: { id: user.id, label: user.name }, changes: { active: [user.active, active] } }, now)
    return updated
  })
  if (!row) throw new ApiError(404, `user ${String(userId)} not found`)
  return row
}

/**
 * `user set-role`: an admin or a member from now on. Every server forgets the user's cached
 * tokens at once (the role travels with a cached token), as for a deactivation. The same role
 * again changes and records nothing.
 */
export async function setUserRole(db: Db, acting: Acting, input: UserSetRoleInput) {
  const { now, audit: context } = acting
  return transaction(db, async (tx) => {
    const locked = await lockUserAnyCompany(tx, input.user)
    if (!locked) throw new ApiError(404, `user ${String(input.user)} not found`)
    const { company_id: companyOfUser, ...was } = locked
    if (was.role === input.role) return was
    const companyId = asCompanyId(companyOfUser)
    const row = await updateUserRole(tx, companyId, was.id, input.role, now)
    await announceUserRevoked(tx, row.id)
    await recordAudit(tx, companyId, context, { action: 'user.changed', target: { id: row.id, label: row.name }, changes: changesOf(was, row, ['role']) }, now)
    return row
  })
}
