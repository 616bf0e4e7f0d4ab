import { transaction, type Db } from '../../db/db.js'
import { ApiError, invalid, notFound } from '../../errors.js'
import { pageWindow, type ListPage, type PageRequest } from '../../http/pagination.js'
import { rethrowTaken } from '../../http/unique-violations.js'
import { asCompanyId, type Caller, type CompanyId, type TokenAccess } from '../../tenancy.js'
import type { Acting } from '../../acting.js'
import { changesOf, recordAudit } from '../audit/index.js'
import {
  allCompanies,
  type CompanyCreateInput,
  type CompanySetTimezoneInput,
  allUsersOf,
  findAuthorizationJson,
  findCompany,
  findUser,
  hasAnyCompany,
  insertCompany,
  insertUser,
  lockCompany,
  updateCompanyTimezone,
  type UserCreateInput,
  usersPageJson,
} from '../users/index.js'

/** Checks that a company's zone is one the runtime knows (IANA, Area/City), and answers 422 otherwise. */
function checkTimeZone(zone: string): void {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone })
  } catch {
    throw invalid({ timezone: ['is not a known IANA time zone (Area/City)'] })
  }
}

export async function createCompany(db: Db, acting: Acting, input: CompanyCreateInput) {
  const timezone = input.timezone ?? 'UTC'
  checkTimeZone(timezone)
  return transaction(db, async (tx) => {
    const company = await insertCompany(tx, { name: input.name, timezone })
    await recordAudit(tx, asCompanyId(company.id), acting.audit, {
      action: 'company.created',
      target: { id: company.id, label: company.name },
      changes: { name: [null, company.name], timezone: [null, company.timezone] },
    }, acting.now)
    return company
  })
}

/** Returns the company an admin command names, after checking that it exists. */
export async function requireCompany(db: Db, id: number): Promise<CompanyId> {
  const companyId = asCompanyId(id)
  if (!(await findCompany(db, companyId))) throw new ApiError(404, `company ${id} not found`)
  return companyId
}

/** Returns user `id` of the company for a command that acts as them, and answers 404 unless that user exists and is active. */
export async function requireActiveUser(db: Db, companyId: CompanyId, id: number): Promise<number> {
  const user = await findUser(db, companyId, id)
  if (!user || !user.active) throw new ApiError(404, `no active user ${id} in company ${companyId}`)
  return user.id
}

export async function createUser(db: Db, acting: Acting, input: UserCreateInput) {
  const companyId = await requireCompany(db, input.company)
  try {
    return await transaction(db, async (tx) => {
      const row = await insertUser(tx, companyId, { name: input.name, email: input.email, role: input.role ?? 'member' })
      await recordAudit(tx, companyId, acting.audit, {
        action: 'user.created',
        target: { id: row.id, label: row.name },
        changes: { name: [null, row.name], email: [null, row.email], role: [null, row.role] },
      }, acting.now)
      return row
    })
  } catch (err) {
    return rethrowTaken(err, 'users_company_email_key', 'email')
  }
}

/** Lists every company with the number of its users, for `company list`. */
export async function listCompanies(db: Db) {
  return { data: await allCompanies(db) }
}

/** Lists every user of a company, active or not, for `user list`. */
export async function listUsers(db: Db, company: number) {
  return { data: await allUsersOf(db, await requireCompany(db, company)) }
}

/**
 * Tells whether the database is fresh, without any company yet, because the server loads the demo
 * data into such a database.
 */
export async function isFreshDatabase(db: Db): Promise<boolean> {
  return !(await hasAnyCompany(db))
}

/** Reads a page of the caller's company's users as a JSON array (text), with the company's user count. */
export async function usersPage(db: Db, caller: Caller, query: PageRequest): Promise<ListPage> {
  const window = pageWindow(query)
  const { total, data } = await usersPageJson(db, caller.companyId, window)
  return { window, total, json: data }
}

/** Answers authorize_api as JSON text: the caller's user and company, and the token it used. */
export async function authorization(db: Db, caller: Caller): Promise<string> {
  const json = await findAuthorizationJson(db, caller.companyId, caller.userId)
  if (json === undefined) throw notFound()
  return withToken(json, caller.access)
}

/**
 * Adds to authorize_api's `{user, company}` JSON text, which PostgreSQL wrote, the `token` that
 * the caller's lookup already carries, so that answering needs no query for the token. The
 * result holds the bytes the serializer would write for the Authorization schema, with
 * TokenInfo's keys in order.
 */
export function withToken(json: string, access: TokenAccess): string {
  const token = { scopes: access.scopes ?? ['*'], kind: access.kind, expires_at: access.expiresAt, app: access.app && { id: access.app.id, name: access.app.name } }
  return `${json.slice(0, -1)},"token":${JSON.stringify(token)}}`
}

/**
 * Builds an audit record's target and changes for one setting of a user or a company: the
 * target names the record, and the changes hold the setting's old and new values.
 */
function settingChanged<Row extends { id: number; name: string }>(setting: keyof Row & string, was: Partial<Row>, row: Row) {
  return { target: { id: row.id, label: row.name }, changes: changesOf(was, row, [setting]) }
}

/**
 * Changes a company's time zone, which decides "today" for tasks and done dates, for the
 * `company set-timezone` command. Servers' cached tokens carry the old zone until their cache
 * entry expires (TOKEN_CACHE_TTL_MS, 10 s). Setting the same zone again changes and records nothing.
 */
export async function setCompanyTimezone(db: Db, acting: Acting, input: CompanySetTimezoneInput) {
  const { now, audit: context } = acting
  checkTimeZone(input.timezone)
  const companyId = asCompanyId(input.company)
  return transaction(db, async (tx) => {
    const was = await lockCompany(tx, companyId)
    if (!was) throw new ApiError(404, `company ${String(input.company)} not found`)
    if (was.timezone === input.timezone) return was
    const row = await updateCompanyTimezone(tx, companyId, input.timezone, now)
    await recordAudit(tx, companyId, context, { action: 'company.settings_changed', ...settingChanged('timezone', was, row) }, now)
    return row
  })
}
