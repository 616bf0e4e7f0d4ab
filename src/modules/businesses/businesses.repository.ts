// A business (a contact's employer) is one record per company per case-insensitive name,
// created when a contact or lead first names it. Lead business fields fill in its details.
import { and, count, eq, isNull, sql } from 'drizzle-orm'
import { rawRows, type Database } from '../../db/client.js'
import { businesses, contacts } from '../../db/schema.js'
import type { CompanyId } from '../../tenancy.js'

export type BusinessRow = typeof businesses.$inferSelect

export interface BusinessDetails {
  linkedinUrl?: string | null
  sector?: string | null
  colaboratorsCount?: number | null
  telephone?: string | null
}

/**
 * The business named `name` (case-insensitive), created if new; given non-null details
 * overwrite the stored ones. Safe under concurrency: one statement on the unique key.
 */
export async function upsertBusiness(
  db: Database,
  companyId: CompanyId,
  name: string,
  details: BusinessDetails = {},
): Promise<BusinessRow> {
  const d = {
    linkedinUrl: details.linkedinUrl ?? null,
    sector: details.sector ?? null,
    colaboratorsCount: details.colaboratorsCount ?? null,
    telephone: details.telephone ?? null,
  }
  const given = Object.values(d).some((v) => v !== null)
  // The conflict target is the expression index (company_id, lower(name)), which Drizzle's
  // builder cannot name; a no-op update on conflict still makes RETURNING yield the row.
  const [inserted] = await rawRows<{ id: string }>(db, sql`
    insert into ${businesses} (company_id, name, linkedin_url, sector, colaborators_count, telephone)
    values (${companyId}, ${name}, ${d.linkedinUrl}, ${d.sector}, ${d.colaboratorsCount}, ${d.telephone})
    on conflict (company_id, lower(name)) do update set
      linkedin_url = coalesce(excluded.linkedin_url, ${businesses.linkedinUrl}),
      sector = coalesce(excluded.sector, ${businesses.sector}),
      colaborators_count = coalesce(excluded.colaborators_count, ${businesses.colaboratorsCount}),
      telephone = coalesce(excluded.telephone, ${businesses.telephone}),
      updated_at = case when ${given} then now() else ${businesses.updatedAt} end
    returning id`)
  const id = Number(inserted?.id)
  const row = await findBusiness(db, companyId, id)
  if (!row) throw new Error('upsert returned no row')
  return row
}

export async function findBusiness(db: Database, companyId: CompanyId, id: number): Promise<BusinessRow | undefined> {
  const [row] = await db
    .select()
    .from(businesses)
    .where(and(eq(businesses.companyId, companyId), eq(businesses.id, id)))
  return row
}

/** Live contacts pointing at the business, through contacts_company_business_idx. */
export async function countBusinessContacts(db: Database, companyId: CompanyId, businessId: number): Promise<number> {
  const [row] = await db
    .select({ n: count() })
    .from(contacts)
    .where(and(eq(contacts.companyId, companyId), eq(contacts.businessId, businessId), isNull(contacts.deletedAt)))
  return row?.n ?? 0
}

/** Many new businesses in one statement (demo data, on a company without any). */
export async function insertBusinesses(
  db: Database,
  companyId: CompanyId,
  values: (BusinessDetails & { name: string; createdAt: Date })[],
): Promise<BusinessRow[]> {
  if (values.length === 0) return []
  return db
    .insert(businesses)
    .values(values.map((v) => ({ companyId, ...v, updatedAt: v.createdAt })))
    .returning()
}
