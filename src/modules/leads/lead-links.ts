// A lead is linked to the live contact of its company with the same email
// (case-insensitive): when the lead is created, and when such a contact is created later
// (or takes that email); unlinked when that contact is deleted or changes its email.
// The contacts service calls these inside its transactions.
import { and, eq, isNull, sql } from 'drizzle-orm'
import type { Database } from '../../db/client.js'
import { leads } from '../../db/schema.js'
import type { CompanyId } from '../../tenancy.js'

export async function linkLeadsToContact(db: Database, companyId: CompanyId, contactId: number, email: string) {
  await db
    .update(leads)
    .set({ contactId, updatedAt: sql`now()` })
    .where(and(eq(leads.companyId, companyId), sql`lower(${leads.email}) = lower(${email})`, isNull(leads.contactId)))
}

export async function unlinkLeadsFromContact(db: Database, companyId: CompanyId, contactId: number) {
  await db
    .update(leads)
    .set({ contactId: null, updatedAt: sql`now()` })
    .where(and(eq(leads.companyId, companyId), eq(leads.contactId, contactId)))
}
