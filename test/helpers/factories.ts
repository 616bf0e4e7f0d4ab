// Small factories: each test inserts exactly what it needs, through the service code.
import { sql, rawRows } from './sql.js'
import type { Db } from '../../src/db/db.js'
import { createToken } from '../../src/modules/auth/tokens.service.js'
import { systemActing } from '../../src/acting.js'
import { createCompany, createUser } from '../../src/modules/users-api/users-api.service.js'
import { asCompanyId, type CompanyId } from '../../src/tenancy.js'
import { rememberSecret } from './secrets.js'

let sequence = 0
const next = () => ++sequence

export interface Tenant {
  companyId: CompanyId
  userId: number
  token: string
  /** `Authorization: Bearer <token>` */
  auth: { authorization: string }
}

/** A company with one admin user and an api token for that user. */
export async function tenant(db: Db, options: { timezone?: string; name?: string } = {}): Promise<Tenant> {
  const n = next()
  const company = await createCompany(db, systemActing(), { name: options.name ?? `Company ${n}`, timezone: options.timezone ?? 'UTC' })
  const companyId = asCompanyId(company.id)
  const user = await addUser(db, companyId, { role: 'admin' })
  const { token } = await createToken(db, systemActing(), user.id)
  rememberSecret(token)
  return { companyId, userId: user.id, token, auth: { authorization: `Bearer ${token}` } }
}

export async function addUser(
  db: Db,
  companyId: CompanyId,
  options: { name?: string; email?: string; role?: 'admin' | 'member' } = {},
) {
  const n = next()
  return createUser(db, systemActing(), {
    company: companyId,
    name: options.name ?? `User ${n}`,
    email: options.email ?? `user${n}@example.com`,
    role: options.role ?? 'member',
  })
}

/**
 * A webhook subscription, inserted as a row with a placeholder secret: for tests of which
 * deliveries are made, not of posting them (test/webhooks/delivery-helpers.ts has real ones).
 */
export async function addSubscription(db: Db, companyId: number, events: string[] = ['*'], enabled = true): Promise<number> {
  const [row] = await rawRows<{ id: number }>(db, sql`
    insert into webhook_subscriptions (company_id, url, events, secret, enabled)
    values (${companyId}, 'https://hooks.example.com/in', ${`{${events.join(',')}}`}::text[], 'not-a-real-secret', ${enabled})
    returning id`)
  if (!row) throw new Error('no subscription')
  return row.id
}
