import { and, asc, eq, isNull, sql } from 'drizzle-orm'
import type { Database } from '../../db/client.js'
import { adjustCounter, readSplitCounter, type SplitPart } from '../../db/counters.js'
import { contacts, leads } from '../../db/schema.js'
import type { PageWindow } from '../../http/pagination.js'
import type { CompanyId } from '../../tenancy.js'
import { LINKED_LEADS } from './lead-links.js'

export type LeadRow = typeof leads.$inferSelect
export type LeadValues = Omit<typeof leads.$inferInsert, 'companyId' | 'id' | 'createdAt' | 'updatedAt'>

/** Counter list of all the leads of a user (key: user id); LINKED_LEADS counts those with a contact. */
const USER_LEADS = 'leads'

const COUNTERS = { all: USER_LEADS, with: LINKED_LEADS }

/** Which leads of a user: all, those with a contact, or those without. */
export type LinkFilter = SplitPart

// The expression of leads_company_user_linked_idx. `= true` and `is false` keep it whole for
// the planner (`= false` would be rewritten to `contact_id is null`, which the index lacks).
const hasContact = sql`(${leads.contactId} is not null)`

export async function insertLead(db: Database, companyId: CompanyId, values: LeadValues): Promise<LeadRow> {
  const [row] = await db.insert(leads).values({ ...values, companyId }).returning()
  if (!row) throw new Error('insert returned no row')
  await adjustCounter(db, companyId, USER_LEADS, row.userId, 1)
  if (row.contactId !== null) await adjustCounter(db, companyId, LINKED_LEADS, row.userId, 1)
  return row
}

export async function findLead(db: Database, companyId: CompanyId, id: number): Promise<LeadRow | undefined> {
  const [row] = await db.select().from(leads).where(and(eq(leads.companyId, companyId), eq(leads.id, id)))
  return row
}

export async function listLeads(
  db: Database,
  companyId: CompanyId,
  userId: number,
  filter: LinkFilter,
  page: Pick<PageWindow, 'limit' | 'offset'>,
): Promise<LeadRow[]> {
  const conditions = [eq(leads.companyId, companyId), eq(leads.userId, userId)]
  if (filter === 'with') conditions.push(sql`${hasContact} = true`)
  if (filter === 'without') conditions.push(sql`${hasContact} is false`)
  return db
    .select()
    .from(leads)
    .where(and(...conditions))
    .orderBy(asc(leads.id))
    .limit(page.limit)
    .offset(page.offset)
}

/** How many leads of a user match the filter: two counter rows, never a count of leads. */
export const countLeads = (db: Database, companyId: CompanyId, userId: number, filter: LinkFilter) =>
  readSplitCounter(db, companyId, COUNTERS, userId, filter)

/** Demo data: the first live contacts of the company, to make leads that link to them. */
/** Demo data: the first live contacts, whom some demo leads describe again. */
export async function firstContacts(db: Database, companyId: CompanyId, limit: number) {
  return db
    .select({ id: contacts.id, email: contacts.email, firstName: contacts.firstName, lastName: contacts.lastName })
    .from(contacts)
    .where(and(eq(contacts.companyId, companyId), isNull(contacts.deletedAt)))
    .orderBy(asc(contacts.id))
    .limit(limit)
}
