import { transaction, type Db } from '../../db/db.js'
import { invalid, notFound } from '../../errors.js'
import { linkFilter } from '../../http/link-filter.js'
import { readPage, type PageRequest } from '../../http/pagination.js'
import { walkingList, walkPage, withoutSyncAt, type WalkRequest } from '../../http/sync.js'
import { rethrowTaken } from '../../http/unique-violations.js'
import type { Caller } from '../../tenancy.js'
import type { Acting } from '../../acting.js'
import { recordAudit, type Changes } from '../audit/index.js'
import { insertLead, linkLead } from '../contacts/index.js'
import {
  countLeads,
  findLead,
  leadsOfContact,
  leadsPageWithTotal,
  leadsWalkPage,
  lockLead,
  lockLeadEmail,
  type LeadContactBody,
  type LeadCreateBody,
  type LeadRecord,
  type LeadsCountQuery,
  LeadsPage,
  LeadsQuery,
  LeadsResponse,
} from '../leads/index.js'

/** Counts the leads of a user that match the query's link filter. */
export function leadsCount(db: Db, caller: Caller, query: LeadsCountQuery): Promise<number> {
  return countLeads(db, caller.companyId, query.user_id, linkFilter(query, 'contact'))
}

export async function getLead(db: Db, caller: Caller, id: number): Promise<LeadRecord> {
  const lead = await findLead(db, caller.companyId, id)
  if (!lead) throw notFound()
  return lead
}

/** Reads one page of an updated_since walk of the company's leads (src/http/sync.ts). */
export function leadsWalk(db: Db, caller: Caller, walk: WalkRequest) {
  const { companyId } = caller
  return walkPage(db, { ...walk, resource: 'leads', companyId }, (window) => leadsWalkPage(db, companyId, window), withoutSyncAt)
}

/** Reads one page of a user's leads and the link filter's total in a single statement. */
export function leadsPage(db: Db, caller: Caller, query: LeadsQuery & PageRequest & { user_id: number }) {
  const filter = linkFilter(query, 'contact')
  return readPage(query, (window) => leadsPageWithTotal(db, caller.companyId, query.user_id, filter, window))
}

/**
 * Creates a lead for `userId` (the creator), links it to the live contact with its email and
 * fills in its business. A company holds one lead per provider and email (case-insensitive).
 * The transaction runs two statements: it takes the lead-link lock first, so that the insert's
 * snapshot sees a contact with this email committed meanwhile, and then inserts the lead with
 * everything else.
 */
export async function createLead(db: Db, caller: Pick<Caller, 'companyId' | 'userId'>, input: LeadCreateBody): Promise<LeadRecord> {
  const { companyId, userId } = caller
  try {
    return await transaction(db, async (tx) => {
      await lockLeadEmail(tx, companyId, input.email)
      const businessName = input.business_name?.trim() ? input.business_name : null
      return insertLead(tx, companyId, userId, input, businessName)
    })
  } catch (err) {
    return rethrowTaken(err, 'leads_company_provider_email_key', 'email')
  }
}

/** Names a lead where a sentence names it, as the audit log does: by its name, or by its email when it has none. */
const leadLabel = (lead: LeadRecord) => [lead.first_name, lead.last_name].filter(Boolean).join(' ') || lead.email

/**
 * Links a lead of the company to one of its live contacts by hand, for PUT /leads/:id/contact
 * and the lead's page in the workspace. The contact's email may differ from the lead's: the lead
 * keeps its email, and the new link replaces the one it had, whether that was found by email or
 * made by hand. The email rule links only leads without a contact, so it never undoes this link
 * (docs/leads-meetings-whatsapp.md). A change writes the `lead.linked` webhook event and a
 * `lead.linked` audit record; linking a lead to the contact it already has changes nothing.
 */
export async function linkLeadToContact(
  db: Db,
  acting: Pick<Caller, 'companyId'> & Acting,
  id: number,
  input: LeadContactBody,
): Promise<LeadRecord> {
  const { companyId, now, audit } = acting
  return transaction(db, async (tx) => {
    const lead = await lockLead(tx, companyId, id)
    if (!lead) throw notFound()
    if (lead.contact_id === input.contact_id) return lead
    const linked = await linkLead(tx, companyId, id, input.contact_id, lead.contact_id !== null)
    if (!linked) throw invalid({ contact_id: ['does not exist'] })
    const changes: Changes = { contact_id: [lead.contact_id, linked.contact_id] }
    await recordAudit(tx, companyId, audit, { action: 'lead.linked', target: { id, label: leadLabel(linked) }, changes }, now)
    return linked
  })
}

/**
 * Returns the first `limit` leads linked to a contact of the company, by ascending id, for the
 * contact's page in the workspace.
 */
export function contactLeads(db: Db, caller: Pick<Caller, 'companyId'>, contactId: number, limit: number): Promise<LeadRecord[]> {
  return leadsOfContact(db, caller.companyId, contactId, limit)
}

/** GET /v1/leads: the list's pages and its `updated_since` walk (walkingListRoute). */
export const LEADS_LIST = walkingList({
  resource: 'leads', walkRefuses: ['id', 'user_id', 'with_contact', 'without_contact'], pageNeeds: ['page', 'user_id'],
  query: LeadsQuery, response: LeadsResponse, pageSchema: LeadsPage,
  walk: leadsWalk, one: getLead, page: leadsPage,
})
