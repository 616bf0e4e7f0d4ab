import { transaction, type Db } from '../../db/db.js'
import { notFound } from '../../errors.js'
import { linkFilter } from '../../http/link-filter.js'
import { readPage, type PageRequest } from '../../http/pagination.js'
import { walkPage, withoutSyncAt, type WalkRequest } from '../../http/sync.js'
import { rethrowTaken } from '../../http/taken.js'
import type { Caller } from '../../tenancy.js'
import { lockLeadEmail } from './lead-links.js'
import type { LeadCreateBody, LeadsCountQuery, LeadsQuery } from './leads.schemas.js'
import { countLeads, findLead, insertLead, leadsPageWithTotal, leadsWalkPage, type Lead } from './leads.repository.js'

export type { Lead } from './leads.repository.js'

/** How many leads of a user match the query's link filter. */
export function leadsCount(db: Db, caller: Caller, query: LeadsCountQuery): Promise<number> {
  return countLeads(db, caller.companyId, query.user_id, linkFilter(query, 'contact'))
}

export async function getLead(db: Db, caller: Caller, id: number): Promise<Lead> {
  const lead = await findLead(db, caller.companyId, id)
  if (!lead) throw notFound()
  return lead
}

/** A page of an updated_since walk of the company's leads (src/http/sync.ts). */
export function leadsWalk(db: Db, caller: Caller, walk: WalkRequest) {
  const { companyId } = caller
  return walkPage(db, { ...walk, resource: 'leads', companyId }, (window) => leadsWalkPage(db, companyId, window), withoutSyncAt)
}

/** One page of a user's leads and the link filter's total: one statement. */
export function leadsPage(db: Db, caller: Caller, query: LeadsQuery & PageRequest & { user_id: number }) {
  const filter = linkFilter(query, 'contact')
  return readPage(query, (window) => leadsPageWithTotal(db, caller.companyId, query.user_id, filter, window))
}

/**
 * Creates a lead for `userId` (the creator), linked to the live contact with its email and
 * filling in its business. One lead per provider and email (case-insensitive) in a company.
 * Two statements in the transaction: the lead-link lock (so that the insert's snapshot sees
 * a contact with this email committed meanwhile), then the insert with everything else.
 */
export async function createLead(db: Db, caller: Pick<Caller, 'companyId' | 'userId'>, input: LeadCreateBody): Promise<Lead> {
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
