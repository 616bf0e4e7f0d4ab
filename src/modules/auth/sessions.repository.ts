// Web application sessions (table web_sessions). The cookie's random id is looked up by its
// SHA-256 through the global unique key web_sessions_token_hash_key; everything else goes
// by (company_id, user_id) or the primary key.
import type { Db } from '../../db/db.js'
import { defineQuery, run, runOne, runSingle } from '../../db/query.js'
import type { CompanyId } from '../../tenancy.js'
import { companyOfRow, userOfRow } from '../users/index.js'

/** A live session with its user and company: what every signed-in page needs, in one round trip. */
export interface SessionRow {
  company_id: number
  id: number
  user_id: number
  last_seen_at: Date
  name: string
  email: string
  role: 'admin' | 'member'
  company_name: string
  timezone: string
}

// Joined with the user's active flag, so a deactivated user's sessions end at once; idle and
// absolute expiry are the two cutoffs. web_sessions_token_hash_key, then users and companies
// by primary key.
const sessionByHash = defineQuery<SessionRow>(
  'auth.sessionByHash',
  `select s.company_id, s.id, s.user_id, s.last_seen_at, u.name, u.email, u.role,
          c.name as company_name, c.timezone
     from web_sessions s
     join ${userOfRow('s')}
     join ${companyOfRow('s')}
    where s.token_hash = $1 and u.active and s.last_seen_at > $2 and s.created_at > $3`,
)

export async function findLiveSession(db: Db, tokenHash: string, idleCutoff: Date, absoluteCutoff: Date) {
  return runOne(db, sessionByHash, [tokenHash, idleCutoff, absoluteCutoff])
}

// Idle expiry counts from last_seen_at: refreshed at most once a minute per session.
const touchSession = defineQuery<never>(
  'auth.touchSession',
  `update web_sessions set last_seen_at = $3
    where company_id = $1 and id = $2 and last_seen_at < $3::timestamptz - interval '1 minute'`,
)

export async function touchSessionRow(db: Db, companyId: CompanyId, id: number, at: Date) {
  await run(db, touchSession, [companyId, id, at])
}

const insertSessionRow = defineQuery<{ id: number }>(
  'auth.insertSession',
  `insert into web_sessions (company_id, user_id, token_hash, created_at, last_seen_at)
   values ($1, $2, $3, $4, $4)
   returning id`,
)

export async function insertSession(db: Db, companyId: CompanyId, userId: number, tokenHash: string, at: Date) {
  return runSingle(db, insertSessionRow, [companyId, userId, tokenHash, at])
}

const deleteByHash = defineQuery<{ company_id: number; id: number; user_id: number }>(
  'auth.deleteSession',
  'delete from web_sessions where token_hash = $1 returning company_id, id, user_id',
)

export async function deleteSessionByHash(db: Db, tokenHash: string) {
  return runOne(db, deleteByHash, [tokenHash])
}

// Deactivation and a new password end every session of the user (api_tokens-like index
// web_sessions_company_user_idx).
const deleteOfUser = defineQuery<{ id: number }>(
  'auth.deleteSessionsOfUser',
  'delete from web_sessions where company_id = $1 and user_id = $2 returning id',
)

export async function deleteSessionsOfUser(db: Db, companyId: CompanyId, userId: number) {
  return run(db, deleteOfUser, [companyId, userId])
}

// At each sign-in the user's expired sessions are swept (web_sessions_company_user_idx), so
// the table keeps only what could still be used, without a background job.
const deleteExpired = defineQuery<never>(
  'auth.deleteExpiredSessions',
  `delete from web_sessions
    where company_id = $1 and user_id = $2 and (last_seen_at <= $3 or created_at <= $4)`,
)

export async function deleteExpiredSessionsOf(
  db: Db,
  companyId: CompanyId,
  userId: number,
  idleCutoff: Date,
  absoluteCutoff: Date,
) {
  await run(db, deleteExpired, [companyId, userId, idleCutoff, absoluteCutoff])
}
