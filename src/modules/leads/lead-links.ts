// A lead is linked to the live contact of its company with the same email
// (case-insensitive): when the lead is created, and when such a contact is created later
// (or takes that email); unlinked when that contact is deleted or changes its email.
// The contacts service calls these inside its transactions.
//
// Both directions take one transaction-scoped advisory lock per (company, lower(email)),
// so a lead and a contact with the same email created at the same moment still meet:
// whichever commits second sees the other. The per-user count of linked leads (a counter,
// see leads.repository.ts) moves in the same statement as the links.
import { sql } from 'drizzle-orm'
import { rawRows, type Database } from '../../db/client.js'
import { contacts, counters, leads } from '../../db/schema.js'
import type { CompanyId } from '../../tenancy.js'

/** Counter list of the leads of a user (key: user id) that have a contact. */
export const LINKED_LEADS = 'leads_linked'

export async function lockLeadEmail(db: Database, companyId: CompanyId, email: string): Promise<void> {
  await db.execute(sql`select pg_advisory_xact_lock(hashtextextended('lead-link:' || ${companyId} || ':' || lower(${email}), 0))`)
}

/**
 * The live contact with this email, share-locked so that a concurrent delete waits for the
 * linking transaction (and then unlinks what it linked) instead of slipping past it.
 */
export async function liveContactIdForEmail(db: Database, companyId: CompanyId, email: string): Promise<number | undefined> {
  const [row] = await rawRows<{ id: string }>(db, sql`
    select ${contacts.id} as id from ${contacts}
    where ${contacts.companyId} = ${companyId} and lower(${contacts.email}) = lower(${email}) and ${contacts.deletedAt} is null
    for share`)
  return row ? Number(row.id) : undefined
}

export async function linkLeadsToContact(db: Database, companyId: CompanyId, contactId: number, email: string) {
  await lockLeadEmail(db, companyId, email)
  await db.execute(sql`
    with linked as (
      update ${leads} set contact_id = ${contactId}, updated_at = now()
      where ${leads.companyId} = ${companyId} and lower(${leads.email}) = lower(${email}) and ${leads.contactId} is null
      returning ${leads.userId} as user_id
    )
    insert into ${counters} (company_id, list, key, value)
    select ${companyId}, ${LINKED_LEADS}, user_id, count(*) from linked group by user_id
    on conflict (company_id, list, key) do update set value = ${counters.value} + excluded.value`)
}

export async function unlinkLeadsFromContact(db: Database, companyId: CompanyId, contactId: number) {
  await db.execute(sql`
    with unlinked as (
      update ${leads} set contact_id = null, updated_at = now()
      where ${leads.companyId} = ${companyId} and ${leads.contactId} = ${contactId}
      returning ${leads.userId} as user_id
    )
    insert into ${counters} (company_id, list, key, value)
    select ${companyId}, ${LINKED_LEADS}, user_id, -count(*) from unlinked group by user_id
    on conflict (company_id, list, key) do update set value = ${counters.value} + excluded.value`)
}
