// Demo data for a fresh database: one company with a few users, one printed token and the
// admin's printed password for the web application, extended by each resource's seeder (they run in order, in one transaction, and find
// what earlier seeders made by reading the database).
import { transaction, type Db } from '../db/db.js'
import type { DemoContext, DemoSeeder } from './seeder.js'
import { systemActing } from '../acting.js'
import { setPassword, createToken } from '../modules/auth/index.js'
import { seedContacts } from '../modules/contacts/index.js'
import { seedFlows } from '../modules/flows-api/index.js'
import { seedLeads } from '../modules/leads-api/index.js'
import { seedMeetTranscriptions } from '../modules/meet-transcriptions/index.js'
import { seedWhatsapp } from '../modules/whatsapp/index.js'
import { hasAnyCompany, insertCompany, insertUser } from '../modules/users/index.js'
import { asCompanyId } from '../tenancy.js'

export type { DemoContext, DemoSeeder } from './seeder.js'

const seeders: DemoSeeder[] = [seedContacts, seedFlows, seedLeads, seedMeetTranscriptions, seedWhatsapp]

function mulberry32(seed: number): () => number {
  let a = seed
  return () => {
    a = (a + 0x6d2b79f5) | 0
    let t = Math.imul(a ^ (a >>> 15), 1 | a)
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

/** Loads the demo company when the database has no company yet; returns its admin's token and password. */
export async function seedDemoIfEmpty(
  db: Db,
  now = new Date(),
): Promise<{ token: string; userId: number; email: string; password: string } | undefined> {
  if (await hasAnyCompany(db)) return undefined
  return transaction(db, async (tx) => {
    const company = await insertCompany(tx, { name: 'Acme Sales', timezone: 'America/Sao_Paulo' })
    const companyId = asCompanyId(company.id)
    const people = [
      { name: 'Ana Souza', email: 'ana@acme.example', role: 'admin' as const },
      { name: 'Bruno Lima', email: 'bruno@acme.example', role: 'member' as const },
      { name: 'Carla Mendes', email: 'carla@acme.example', role: 'member' as const },
    ]
    const userIds: number[] = []
    for (const person of people) userIds.push((await insertUser(tx, companyId, person)).id)
    const ctx: DemoContext = { db: tx, companyId, userIds, now, random: mulberry32(20261122) }
    for (const seed of seeders) await seed(ctx)
    const [adminId] = userIds
    if (adminId === undefined) throw new Error('demo company has no user')
    const { token } = await createToken(tx, systemActing(), adminId)
    // A generated password (printed once at first start), never a fixed one: demo data may end up reachable.
    const { email, password } = await setPassword(tx, systemActing(), adminId, { generate: true })
    if (password === undefined) throw new Error('no password was generated')
    return { token, userId: adminId, email, password }
  })
}
