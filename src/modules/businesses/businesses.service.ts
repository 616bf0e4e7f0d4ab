import type { BusinessRow } from './businesses.repository.js'

export const toBusiness = (row: BusinessRow, contactsCount: number) => ({
  id: row.id,
  name: row.name,
  linkedin_url: row.linkedinUrl,
  sector: row.sector,
  colaborators_count: row.colaboratorsCount,
  telephone: row.telephone,
  contacts_count: contactsCount,
  created_at: row.createdAt,
  updated_at: row.updatedAt,
})
