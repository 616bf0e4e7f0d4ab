import type { Database } from '../../db/client.js'
import { uniqueViolation } from '../../db/errors.js'
import { invalid, notFound } from '../../errors.js'
import type { PageWindow } from '../../http/pagination.js'
import { exclusiveFlags } from '../../http/validation.js'
import type { CompanyId } from '../../tenancy.js'
import { upsertBusiness } from '../businesses/businesses.repository.js'
import { liveContactIdForEmail, lockLeadEmail } from './lead-links.js'
import type { LeadCreateBody, LeadsCountQuery } from './leads.schemas.js'
import { countLeads, findLead, insertLead, listLeads, type LeadRow, type LinkFilter } from './leads.repository.js'

export const toLead = (row: LeadRow) => ({
  id: row.id,
  user_id: row.userId,
  contact_id: row.contactId,
  first_name: row.firstName,
  last_name: row.lastName,
  email: row.email,
  provider: row.provider,
  position: row.position,
  linkedin_url: row.linkedinUrl,
  telephone: row.telephone,
  city: row.city,
  state_province: row.stateProvince,
  country: row.country,
  degree_of_connection: row.degreeOfConnection,
  business_name: row.businessName,
  business_linkedin_url: row.businessLinkedinUrl,
  business_sector: row.businessSector,
  business_colaborators_count: row.businessColaboratorsCount,
  business_telephone: row.businessTelephone,
  created_at: row.createdAt,
  updated_at: row.updatedAt,
})
export type Lead = ReturnType<typeof toLead>

export function linkFilter(query: Pick<LeadsCountQuery, 'with_contact' | 'without_contact'>): LinkFilter {
  exclusiveFlags(query, 'with_contact', 'without_contact')
  if (query.with_contact) return 'with'
  if (query.without_contact) return 'without'
  return 'all'
}

export async function getLead(db: Database, companyId: CompanyId, id: number): Promise<Lead> {
  const row = await findLead(db, companyId, id)
  if (!row) throw notFound()
  return toLead(row)
}

export async function leadsPage(db: Database, companyId: CompanyId, userId: number, filter: LinkFilter, window: PageWindow) {
  const total = await countLeads(db, companyId, userId, filter)
  const rows = window.offset < total ? await listLeads(db, companyId, userId, filter, window) : []
  return { total, data: rows.map(toLead) }
}

/**
 * Creates a lead for `userId` (the creator), linked to the live contact with its email and
 * filling in its business. One lead per provider and email (case-insensitive) in a company.
 */
export async function createLead(db: Database, companyId: CompanyId, userId: number, input: LeadCreateBody): Promise<Lead> {
  try {
    const row = await db.transaction(async (tx) => {
      await lockLeadEmail(tx, companyId, input.email)
      const contactId = await liveContactIdForEmail(tx, companyId, input.email)
      const businessName = input.business_name?.trim() ? input.business_name : null
      const business = businessName
        ? await upsertBusiness(tx, companyId, businessName, {
            linkedinUrl: input.business_linkedin_url,
            sector: input.business_sector,
            colaboratorsCount: input.business_colaborators_count,
            telephone: input.business_telephone,
          })
        : undefined
      return insertLead(tx, companyId, {
        userId,
        contactId: contactId ?? null,
        firstName: input.first_name,
        lastName: input.last_name ?? null,
        email: input.email,
        provider: input.provider,
        position: input.position ?? null,
        linkedinUrl: input.linkedin_url ?? null,
        telephone: input.telephone ?? null,
        city: input.city ?? null,
        stateProvince: input.state_province ?? null,
        country: input.country ?? null,
        degreeOfConnection: input.degree_of_connection ?? null,
        businessName: input.business_name ?? null,
        businessLinkedinUrl: input.business_linkedin_url ?? null,
        businessSector: input.business_sector ?? null,
        businessColaboratorsCount: input.business_colaborators_count ?? null,
        businessTelephone: input.business_telephone ?? null,
        businessId: business?.id ?? null,
      })
    })
    return toLead(row)
  } catch (err) {
    if (uniqueViolation(err) === 'leads_company_provider_email_key') throw invalid({ email: ['has already been taken'] })
    throw err
  }
}
