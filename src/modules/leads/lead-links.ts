// A lead is linked to the live contact of its company with the same email
// (case-insensitive): when the lead is created, and when such a contact is created later
// (or takes that email); unlinked when that contact is deleted or changes its email. The
// email rule links only leads without a contact: one linked by hand to a contact of another
// email (linkLeadToContact, leads-api.service.ts) stays so.
// A contact's create, change and delete link and unlink in their write statements
// (contacts.repository.ts, contacts.batch.sql.ts), a create and an email change under
// lockLeadEmail's key.
//
// Both directions take one transaction-scoped advisory lock per (company, lower(email)),
// so a lead and a contact with the same email created at the same moment still meet:
// whichever commits second sees the other. The per-user count of linked leads (a counter,
// see leads.repository.ts) moves in the same statement as the links.
import type { Db } from '../../db/db.js'
import { defineQuery, run } from '../../db/query.js'
import type { CompanyId } from '../../tenancy.js'

/** Counter list of the leads of a user (key: user id) that have a contact. */
export const LINKED_LEADS = 'leads_linked'

/**
 * The advisory lock key of (company, lower(email)), from SQL expressions: every statement
 * that takes the lead-link lock (here, contacts.batchLockEmails).
 */
export const leadLinkKey = (company: string, email: string) => `hashtextextended('lead-link:' || ${company} || ':' || lower(${email}), 0)`

const lockEmail = defineQuery<{ locked: unknown }>(
  'leads.lockEmail',
  `select pg_advisory_xact_lock(${leadLinkKey('$1::bigint', '$2::text')}) as locked`,
)

export async function lockLeadEmail(db: Db, companyId: CompanyId, email: string): Promise<void> {
  await run(db, lockEmail, [companyId, email])
}

// ---- lent to the contacts module's statements (src/db/owners.ts) ---------------------------

/** The update that links the leads it selects to `contact` (null: unlinks them), the table as `alias` unless ''. */
export const setLeadsContact = (contact: string, alias = 'l') => `update leads${alias === '' ? '' : ` ${alias}`} set contact_id = ${contact}, updated_at = now()`

/**
 * A probe of leads_company_contact_idx: the leads of `company` linked to `contact`, as
 * (company_id, id) for an update by primary key (OFFSET 0 keeps the probe whole).
 */
export const leadsOfContactProbe = (company: string, contact: string) => `select k.company_id, k.id from leads k
                           where k.company_id = ${company} and k.contact_id = ${contact}
                          offset 0`

/**
 * A probe of leads_company_email_idx: the leads of `company` with `email` (any case), as
 * (company_id, id, contact_id) for an update by primary key (OFFSET 0 keeps the probe whole).
 */
export const leadsOfEmailProbe = (company: string, email: string) => `select k.company_id, k.id, k.contact_id from leads k
                           where k.company_id = ${company} and lower(k.email) = lower(${email})
                          offset 0`
