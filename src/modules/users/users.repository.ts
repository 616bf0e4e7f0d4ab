import { and, asc, count, eq, sql } from 'drizzle-orm'
import type { Database } from '../../db/client.js'
import { companies, users } from '../../db/schema.js'
import type { CompanyId } from '../../tenancy.js'

export type UserRow = typeof users.$inferSelect
export type CompanyRow = typeof companies.$inferSelect

export async function listUsers(db: Database, companyId: CompanyId, page: { limit: number; offset: number }) {
  return db
    .select()
    .from(users)
    .where(eq(users.companyId, companyId))
    .orderBy(asc(users.id))
    .limit(page.limit)
    .offset(page.offset)
}

export async function countUsers(db: Database, companyId: CompanyId): Promise<number> {
  const [row] = await db.select({ n: count() }).from(users).where(eq(users.companyId, companyId))
  return row?.n ?? 0
}

export async function findUser(db: Database, companyId: CompanyId, id: number): Promise<UserRow | undefined> {
  const [row] = await db.select().from(users).where(and(eq(users.companyId, companyId), eq(users.id, id)))
  return row
}

// Hot path (every authorize_api call): built once per database as a named prepared statement.
const userWithCompanyQueries = new WeakMap<Database, ReturnType<typeof prepareUserWithCompany>>()

function prepareUserWithCompany(db: Database) {
  return db
    .select({ user: users, company: { id: companies.id, name: companies.name, timezone: companies.timezone } })
    .from(users)
    .innerJoin(companies, eq(companies.id, users.companyId))
    .where(and(eq(users.companyId, sql.placeholder('companyId')), eq(users.id, sql.placeholder('userId'))))
    .prepare('user_with_company')
}

/** A user with the id, name and time zone of its company, in one round trip. */
export async function findUserWithCompany(db: Database, companyId: CompanyId, userId: number) {
  let query = userWithCompanyQueries.get(db)
  if (!query) {
    query = prepareUserWithCompany(db)
    userWithCompanyQueries.set(db, query)
  }
  const [row] = await query.execute({ companyId, userId })
  return row
}

/** Admin command line only: a user by id whatever its company. */
export async function findUserAnyCompany(db: Database, id: number): Promise<UserRow | undefined> {
  const [row] = await db.select().from(users).where(eq(users.id, id))
  return row
}

export async function insertUser(
  db: Database,
  companyId: CompanyId,
  values: { name: string; email: string; role: 'admin' | 'member' },
): Promise<UserRow> {
  const [row] = await db.insert(users).values({ companyId, ...values }).returning()
  if (!row) throw new Error('insert returned no row')
  return row
}

export async function findCompany(db: Database, companyId: CompanyId): Promise<CompanyRow | undefined> {
  const [row] = await db.select().from(companies).where(eq(companies.id, companyId))
  return row
}

export async function insertCompany(db: Database, values: { name: string; timezone: string }): Promise<CompanyRow> {
  const [row] = await db.insert(companies).values(values).returning()
  if (!row) throw new Error('insert returned no row')
  return row
}
