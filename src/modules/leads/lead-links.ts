// A lead is linked to the live contact of its company with the same email
// (case-insensitive): when the lead is created, and when such a contact is created later
// (or takes that email); unlinked when that contact is deleted or changes its email.
// The contacts service calls these inside its transactions.
//
// Both directions take one transaction-scoped advisory lock per (company, lower(email)),
// so a lead and a contact with the same email created at the same moment still meet:
// whichever commits second sees the other. The per-user count of linked leads (a counter,
// see leads.repository.ts) moves in the same statement as the links.
import type { Database } from '../../db/client.js'
import { defineQuery, run } from '../../db/query.js'
import type { CompanyId } from '../../tenancy.js'
import { leadJson, type Lead } from './leads.repository.js'

/** Counter list of the leads of a user (key: user id) that have a contact. */
export const LINKED_LEADS = 'leads_linked'

// The same key as contacts.referencesLockingEmail (contacts.repository.ts).
const lockEmail = defineQuery<{ locked: unknown }>(
  'leads.lockEmail',
  `select pg_advisory_xact_lock(hashtextextended('lead-link:' || $1::bigint || ':' || lower($2::text), 0)) as locked`,
)

export async function lockLeadEmail(db: Database, companyId: CompanyId, email: string): Promise<void> {
  await run(db, lockEmail, [companyId, email])
}

// The leads of the email without a contact, through leads_company_email_idx (company_id,
// lower(email)); the counter rows last, in key order. Answers the linked leads as the API
// shows them (their lead.linked events' data).
const linkStatement = defineQuery<{ lead: Lead }>(
  'leads.linkToContact',
  `with linked as (
     update leads set contact_id = $2, updated_at = now()
      where company_id = $1 and lower(email) = lower($3) and contact_id is null
     returning *
   ), counted as (
     insert into counters (company_id, list, key, value)
     select $1, '${LINKED_LEADS}', user_id, count(*) from linked group by user_id order by user_id
     on conflict (company_id, list, key) do update set value = counters.value + excluded.value
   )
   select ${leadJson('linked')} as lead from linked order by id`,
)

/**
 * Links the contact's email's unlinked leads to it. Call holding the email's lead-link lock
 * (lockLeadEmail), taken before any counter row of the transaction (docs/reliability.md).
 * Answers the leads it linked, as the API shows them.
 */
export async function linkLeadsToContact(db: Database, companyId: CompanyId, contactId: number, email: string): Promise<Lead[]> {
  return (await run(db, linkStatement, [companyId, contactId, email])).map((row) => row.lead)
}

// The contact's leads through leads_company_contact_idx (company_id, contact_id).
const unlinkStatement = defineQuery<never>(
  'leads.unlinkFromContact',
  `with unlinked as (
     update leads set contact_id = null, updated_at = now()
      where company_id = $1 and contact_id = $2
     returning user_id
   )
   insert into counters (company_id, list, key, value)
   select $1, '${LINKED_LEADS}', user_id, -count(*) from unlinked group by user_id order by user_id
   on conflict (company_id, list, key) do update set value = counters.value + excluded.value`,
)

export async function unlinkLeadsFromContact(db: Database, companyId: CompanyId, contactId: number) {
  await run(db, unlinkStatement, [companyId, contactId])
}
