// What signing in needs of users (their password hash and active flag) and the invite links
// (table user_invites). The users table's other columns and queries are the users module's.
import type { Db } from '../../db/db.js'
import { defineQuery, run, runOne, runSingle } from '../../db/query.js'
import { companyOfRow, selectUsers, updateUserSet, USER_RECORD, userOfRow, type UserRecord } from '../users/index.js'
import type { CompanyId } from '../../tenancy.js'

export interface SignInCandidate {
  company_id: number
  id: number
  name: string
  active: boolean
  password_hash: string
}

/** Accounts of one email (in different companies) whose password a sign-in tries, oldest first. */
export const MAX_CANDIDATES = 5

// Emails are unique per company only: every user with a password and this email, whatever
// the company (users_email_idx on lower(email)); deactivated ones too, so that a refused
// sign-in can say so in the audit log (they never sign in).
const candidates = defineQuery<SignInCandidate>(
  'auth.signInCandidates',
  `${selectUsers('company_id, id, name, active, password_hash')}
    where lower(email) = lower($1) and password_hash is not null
    order by company_id, id
    limit ${String(MAX_CANDIDATES)}`,
)

export async function signInCandidates(db: Db, email: string): Promise<SignInCandidate[]> {
  return run(db, candidates, [email])
}

// The password is no field of the API's user: updated_at stays as it is. Primary key.
const setPasswordHash = defineQuery<{ id: number }>(
  'auth.setPassword',
  `${updateUserSet('password_hash = $3', '$1', '$2')} returning id`,
)

export async function updatePasswordHash(db: Db, companyId: CompanyId, userId: number, passwordHash: string) {
  return runOne(db, setPasswordHash, [companyId, userId, passwordHash])
}

const setActive = defineQuery<UserRecord>(
  'auth.setActive',
  `${updateUserSet('active = $3, updated_at = $4', '$1', '$2')}
   returning ${USER_RECORD.columns('')}`,
)

export async function updateActive(db: Db, companyId: CompanyId, userId: number, active: boolean, at: Date) {
  return runOne(db, setActive, [companyId, userId, active, at])
}

// A new invite replaces the user's unused ones (user_invites_company_user_idx).
const deleteUnused = defineQuery<never>(
  'auth.deleteUnusedInvites',
  'delete from user_invites where company_id = $1 and user_id = $2 and used_at is null',
)

const insertInviteRow = defineQuery<{ id: number; expires_at: Date }>(
  'auth.insertInvite',
  `insert into user_invites (company_id, user_id, token_hash, expires_at, created_at)
   values ($1, $2, $3, $4, $5)
   returning id, expires_at`,
)

export async function replaceInvite(
  db: Db,
  companyId: CompanyId,
  userId: number,
  values: { tokenHash: string; expiresAt: Date; at: Date },
) {
  await run(db, deleteUnused, [companyId, userId])
  return runSingle(db, insertInviteRow, [companyId, userId, values.tokenHash, values.expiresAt, values.at])
}

export interface InviteRow {
  company_id: number
  id: number
  user_id: number
  name: string
  email: string
  company_name: string
}

// An unused, unexpired invite of an active user (user_invites_token_hash_key, then primary keys).
const inviteByHash = defineQuery<InviteRow>(
  'auth.inviteByHash',
  `select i.company_id, i.id, i.user_id, u.name, u.email, c.name as company_name
     from user_invites i
     join ${userOfRow('i')}
     join ${companyOfRow('i')}
    where i.token_hash = $1 and i.used_at is null and i.expires_at > $2 and u.active`,
)

export async function findUsableInvite(db: Db, tokenHash: string, now: Date) {
  return runOne(db, inviteByHash, [tokenHash, now])
}

// Used once: the condition makes two simultaneous uses of one link succeed only once.
const useInvite = defineQuery<{ id: number }>(
  'auth.useInvite',
  'update user_invites set used_at = $3 where company_id = $1 and id = $2 and used_at is null returning id',
)

export async function markInviteUsed(db: Db, companyId: CompanyId, id: number, at: Date) {
  return runOne(db, useInvite, [companyId, id, at])
}
