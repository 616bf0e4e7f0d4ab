// What each resource's demo seeder is given (src/demo/index.ts runs them in order, in one
// transaction). A file of its own so that the seeders, which index.ts imports, need not
// import index.ts back.
import type { Db } from '../db/db.js'
import type { CompanyId } from '../tenancy.js'

export interface DemoContext {
  db: Db
  companyId: CompanyId
  /** Users of the demo company, the first one an admin. */
  userIds: number[]
  now: Date
  /** Deterministic pseudo-random numbers in [0, 1), so every demo database is alike. */
  random: () => number
}

export type DemoSeeder = (ctx: DemoContext) => Promise<void>
