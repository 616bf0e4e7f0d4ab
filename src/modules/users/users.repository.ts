import type { Db } from '../../db/db.js'
import { jsonArrayOf } from '../../db/json-sql.js'
import { limitOffset, pageParams, type PageSlice } from '../../db/paging.js'
import { recordSql, type Row } from '../../db/records.js'
import { defineQuery, run, runOne, runSingle } from '../../db/query.js'
import type { CompanyId } from '../../tenancy.js'
import { Company, CompanyDetails, ListedCompany, User } from './users.schemas.js'

export type UserRecord = Row<typeof User>
export type CompanyRecord = Row<typeof CompanyDetails>

export const USER_RECORD = recordSql(User, 'users u')
const COMPANY_RECORD = recordSql(Company, 'companies c')
const COMPANY_DETAILS = recordSql(CompanyDetails, 'companies c')
// Each company counts its users on the primary key of users (company_id, id).
const LISTED_COMPANY = recordSql(ListedCompany, 'companies c', {
  users_count: (c) => `(select count(*)::int from users u where u.company_id = ${c}id)`,
})

// A page and the company's total in one round trip, both from the primary key (company_id,
// id): the count, and the page's users as the JSON text of their API shape (an array in id
// order, '[]' past the end; sent as it is, src/http/json-text.ts), so no row is parsed and
// no record serialized in Node.
const usersPage = defineQuery<{ total: number; data: string }>(
  'users.page',
  `select (select count(*)::int from users where company_id = $1) as total,
          coalesce((select ${jsonArrayOf(USER_RECORD.jsonColumns('u'), 'u.id')}::text
                      from (select * from users where company_id = $1 order by id ${limitOffset(pageParams(2, 3))}) u), '[]') as data`,
  { pipelined: true },
)

/** The company's user count and one page of its users as a JSON array (text). */
export async function usersPageJson(db: Db, companyId: CompanyId, page: PageSlice) {
  const row = await runOne(db, usersPage, [companyId, page.limit, page.offset])
  return { total: row?.total ?? 0, data: row?.data ?? '[]' }
}

// Every authorize_api call: the caller's user and company by primary keys, as the JSON
// text of the answer (src/db/json-sql.ts: the Authorization schema's keys in order; sent as
// it is, src/http/json-text.ts).
const authorizationJson = defineQuery<{ json: string }>(
  'users.authorizationJson',
  `select row_to_json(a)::text as json
     from (select ${USER_RECORD.json('u')} as "user",
                  ${COMPANY_RECORD.json('c')} as company
             from users u join companies c on c.id = u.company_id
            where u.company_id = $1 and u.id = $2) a`,
  { pipelined: true },
)

/** `{user, company}` of authorize_api as JSON text, or undefined. */
export async function findAuthorizationJson(db: Db, companyId: CompanyId, userId: number): Promise<string | undefined> {
  return (await runOne(db, authorizationJson, [companyId, userId]))?.json
}

// Admin command line: every user of a company, from the primary key (company_id, id).
const usersOfCompany = defineQuery<UserRecord>(
  'users.ofCompany',
  `select ${USER_RECORD.columns('')} from users where company_id = $1 order by id`,
)

export async function allUsersOf(db: Db, companyId: CompanyId): Promise<UserRecord[]> {
  return run(db, usersOfCompany, [companyId])
}

// Admin command line: every company (a handful per instance).
const companiesAll = defineQuery<Row<typeof ListedCompany>>(
  'users.companies',
  `select ${LISTED_COMPANY.columns()}
     from companies c
    order by c.id`,
)

export async function allCompanies(db: Db): Promise<Row<typeof ListedCompany>[]> {
  return run(db, companiesAll, [])
}

// Start-up: is this a fresh database (demo data to load)? One probe of the primary key.
const anyCompany = defineQuery<{ any: boolean }>('users.anyCompany', 'select exists (select 1 from companies) as any')

export async function hasAnyCompany(db: Db): Promise<boolean> {
  return (await runOne(db, anyCompany, []))?.any ?? false
}

// By primary key (company_id, id).
const userById = defineQuery<UserRecord>('users.byId', `select ${USER_RECORD.columns('')} from users where company_id = $1 and id = $2`)

export async function findUser(db: Db, companyId: CompanyId, id: number): Promise<UserRecord | undefined> {
  return runOne(db, userById, [companyId, id])
}

// Admin command line and token creation: the id alone (a scan of the few users of an instance).
const userByIdAnyCompany = defineQuery<UserRecord & { company_id: number }>(
  'users.byIdAnyCompany',
  `select company_id, ${USER_RECORD.columns('')} from users where id = $1`,
)

/** Admin command line only: a user by id whatever its company. */
export async function findUserAnyCompany(db: Db, id: number): Promise<(UserRecord & { company_id: number }) | undefined> {
  return runOne(db, userByIdAnyCompany, [id])
}

const insertUserStatement = defineQuery<UserRecord>(
  'users.insert',
  `insert into users (company_id, name, email, role)
   values ($1, $2, $3, $4)
   returning ${USER_RECORD.columns('')}`,
)

export async function insertUser(
  db: Db,
  companyId: CompanyId,
  values: { name: string; email: string; role: 'admin' | 'member' },
): Promise<UserRecord> {
  return runSingle(db, insertUserStatement, [companyId, values.name, values.email, values.role])
}

// By primary key.
const companyById = defineQuery<CompanyRecord>('users.company', `select ${COMPANY_DETAILS.columns('')} from companies where id = $1`)

export async function findCompany(db: Db, companyId: CompanyId): Promise<CompanyRecord | undefined> {
  return runOne(db, companyById, [companyId])
}

const insertCompanyStatement = defineQuery<CompanyRecord>(
  'users.insertCompany',
  `insert into companies (name, timezone) values ($1, $2) returning ${COMPANY_DETAILS.columns('')}`,
)

export async function insertCompany(db: Db, values: { name: string; timezone: string }): Promise<CompanyRecord> {
  return runSingle(db, insertCompanyStatement, [values.name, values.timezone])
}

// The admin command line's changes: the row locked first (its values before the change, for
// the audit record; a concurrent change waits), then updated, both by primary key but the
// user's lookup by id alone (the command names no company).
const userForUpdate = defineQuery<UserRecord & { company_id: number }>(
  'users.byIdForUpdate',
  `select company_id, ${USER_RECORD.columns('')} from users where id = $1 for update`,
)

export async function lockUserAnyCompany(db: Db, id: number): Promise<(UserRecord & { company_id: number }) | undefined> {
  return runOne(db, userForUpdate, [id])
}

const setRoleStatement = defineQuery<UserRecord>(
  'users.setRole',
  `update users set role = $3, updated_at = $4 where company_id = $1 and id = $2 returning ${USER_RECORD.columns('')}`,
)

/** The user locked by the caller, with its new role. */
export async function updateUserRole(db: Db, companyId: CompanyId, id: number, role: 'admin' | 'member', at: Date): Promise<UserRecord> {
  return runSingle(db, setRoleStatement, [companyId, id, role, at])
}

const companyForUpdate = defineQuery<CompanyRecord>(
  'users.companyForUpdate',
  `select ${COMPANY_DETAILS.columns('')} from companies where id = $1 for update`,
)

export async function lockCompany(db: Db, companyId: CompanyId): Promise<CompanyRecord | undefined> {
  return runOne(db, companyForUpdate, [companyId])
}

const setTimezoneStatement = defineQuery<CompanyRecord>(
  'users.setCompanyTimezone',
  `update companies set timezone = $2, updated_at = $3 where id = $1 returning ${COMPANY_DETAILS.columns('')}`,
)

/** The company locked by the caller, with its new zone. */
export async function updateCompanyTimezone(db: Db, companyId: CompanyId, timezone: string, at: Date): Promise<CompanyRecord> {
  return runSingle(db, setTimezoneStatement, [companyId, timezone, at])
}

// ---- lent to other modules' statements (src/db/owners.ts) ----------------------------------

/** The ids of the company's users among an array (`company`, `ids`: SQL expressions, `ids` a bigint[]), the table aliased or not. */
export const companyUsersAmong = (company: string, ids: string, alias = '') => {
  const a = alias === '' ? '' : `${alias}.`
  return `select ${a}id from users${alias === '' ? '' : ` ${alias}`} where ${a}company_id = ${company} and ${a}id = any(${ids})`
}

/** After a join: the user of row `alias` (its company_id and user_id) as `users u`, by primary key. */
export const userOfRow = (alias: string) => `users u on u.company_id = ${alias}.company_id and u.id = ${alias}.user_id`

/** After a join: the company of row `alias` (its company_id) as `companies c`, by primary key. */
export const companyOfRow = (alias: string) => `companies c on c.id = ${alias}.company_id`

/** Users' `columns`, a where clause following. */
export const selectUsers = (columns: string) => `select ${columns} from users`

/** The update of one user by primary key (`company`, `user`: SQL expressions); a returning clause may follow. */
export const updateUserSet = (sets: string, company: string, user: string) => `update users set ${sets} where company_id = ${company} and id = ${user}`

/** Every company as `companies c`, after `from`: a walk company by company (the audit retention's). */
export const ALL_COMPANIES = 'companies c'

/** A subquery's body: the name of user `user` of company `company` (SQL expressions), by primary key. */
export const userNameOf = (company: string, user: string) => `select u.name from users u where u.company_id = ${company} and u.id = ${user}`
