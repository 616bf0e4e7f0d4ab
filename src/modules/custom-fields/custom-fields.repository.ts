import { and, asc, eq, inArray, sql } from 'drizzle-orm'
import type { Database } from '../../db/client.js'
import { customFields } from '../../db/schema.js'
import type { CompanyId } from '../../tenancy.js'
import type { CustomFieldKind } from './custom-fields.schemas.js'

export type CustomFieldRow = typeof customFields.$inferSelect

export interface CustomFieldValues {
  field: string
  kind: CustomFieldKind
  options: { name: string }[]
  now: Date
}

export async function listCustomFields(db: Database, companyId: CompanyId): Promise<CustomFieldRow[]> {
  return db.select().from(customFields).where(eq(customFields.companyId, companyId)).orderBy(asc(customFields.id))
}

export async function findCustomField(db: Database, companyId: CompanyId, id: number): Promise<CustomFieldRow | undefined> {
  const [row] = await db
    .select()
    .from(customFields)
    .where(and(eq(customFields.companyId, companyId), eq(customFields.id, id)))
  return row
}

/** The definitions named (case-insensitively) in `names`, through the unique (company_id, lower(field)) index. */
export async function findCustomFieldsByNames(db: Database, companyId: CompanyId, names: string[]): Promise<CustomFieldRow[]> {
  if (names.length === 0) return []
  return db
    .select()
    .from(customFields)
    .where(and(
      eq(customFields.companyId, companyId),
      inArray(sql`lower(${customFields.field})`, names.map((name) => name.toLowerCase())),
    ))
    .orderBy(asc(customFields.id))
}

export async function insertCustomField(db: Database, companyId: CompanyId, values: CustomFieldValues): Promise<CustomFieldRow> {
  const [row] = await db
    .insert(customFields)
    .values({
      companyId,
      field: values.field,
      kind: values.kind,
      options: values.options,
      createdAt: values.now,
      updatedAt: values.now,
    })
    .returning()
  if (!row) throw new Error('insert returned no row')
  return row
}

/** Many definitions in one statement (demo data). */
export async function insertCustomFields(
  db: Database,
  companyId: CompanyId,
  values: CustomFieldValues[],
): Promise<CustomFieldRow[]> {
  if (values.length === 0) return []
  return db
    .insert(customFields)
    .values(values.map((v) => ({ companyId, field: v.field, kind: v.kind, options: v.options, createdAt: v.now, updatedAt: v.now })))
    .returning()
}

export async function updateCustomField(
  db: Database,
  companyId: CompanyId,
  id: number,
  values: CustomFieldValues,
): Promise<CustomFieldRow | undefined> {
  const [row] = await db
    .update(customFields)
    .set({ field: values.field, kind: values.kind, options: values.options, updatedAt: values.now })
    .where(and(eq(customFields.companyId, companyId), eq(customFields.id, id)))
    .returning()
  return row
}

/** Deletes the definition; the foreign key cascade deletes its values on contacts. */
export async function deleteCustomField(db: Database, companyId: CompanyId, id: number): Promise<boolean> {
  const rows = await db
    .delete(customFields)
    .where(and(eq(customFields.companyId, companyId), eq(customFields.id, id)))
    .returning({ id: customFields.id })
  return rows.length > 0
}
