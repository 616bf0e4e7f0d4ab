import { and, asc, eq, inArray, sql } from 'drizzle-orm'
import type { Database } from '../../db/client.js'
import { contactEvents, contacts, contactTags, tags } from '../../db/schema.js'
import type { CompanyId } from '../../tenancy.js'

export type TagRow = typeof tags.$inferSelect

export async function listTags(db: Database, companyId: CompanyId): Promise<TagRow[]> {
  return db.select().from(tags).where(eq(tags.companyId, companyId)).orderBy(asc(tags.id))
}

export async function findTag(
  db: Database,
  companyId: CompanyId,
  id: number,
  options: { forUpdate?: boolean } = {},
): Promise<TagRow | undefined> {
  const query = db.select().from(tags).where(and(eq(tags.companyId, companyId), eq(tags.id, id)))
  const [row] = await (options.forUpdate ? query.for('update') : query)
  return row
}

/** The tags of the company among `ids`, id ascending. */
export async function findTagsByIds(db: Database, companyId: CompanyId, ids: number[]): Promise<TagRow[]> {
  if (ids.length === 0) return []
  return db
    .select()
    .from(tags)
    .where(and(eq(tags.companyId, companyId), inArray(tags.id, ids)))
    .orderBy(asc(tags.id))
}

export async function insertTag(
  db: Database,
  companyId: CompanyId,
  values: { name: string; color: string; now: Date },
): Promise<TagRow> {
  const [row] = await db
    .insert(tags)
    .values({ companyId, name: values.name, color: values.color, createdAt: values.now, updatedAt: values.now })
    .returning()
  if (!row) throw new Error('insert returned no row')
  return row
}

/** Many tags in one statement (demo data), in the given order. */
export async function insertTags(
  db: Database,
  companyId: CompanyId,
  values: { name: string; color: string }[],
  now: Date,
): Promise<TagRow[]> {
  if (values.length === 0) return []
  return db
    .insert(tags)
    .values(values.map((v) => ({ companyId, name: v.name, color: v.color, createdAt: now, updatedAt: now })))
    .returning()
}

export async function updateTag(
  db: Database,
  companyId: CompanyId,
  id: number,
  values: { name: string; color: string; now: Date },
): Promise<TagRow | undefined> {
  const [row] = await db
    .update(tags)
    .set({ name: values.name, color: values.color, updatedAt: values.now })
    .where(and(eq(tags.companyId, companyId), eq(tags.id, id)))
    .returning()
  return row
}

/** Deletes the tag; the foreign key cascade takes it off every contact. */
export async function deleteTag(db: Database, companyId: CompanyId, id: number): Promise<void> {
  await db.delete(tags).where(and(eq(tags.companyId, companyId), eq(tags.id, id)))
}

/** One `tag_removed` event per live contact carrying the tag, in one statement. */
export async function recordTagRemovedFromAll(
  db: Database,
  companyId: CompanyId,
  tag: TagRow,
  userId: number | null,
  now: Date,
): Promise<void> {
  await db.execute(sql`
    insert into ${contactEvents} (company_id, contact_id, kind, user_id, data, occurred_at)
    select ${contactTags.companyId}, ${contactTags.contactId}, 'tag_removed', ${userId}::bigint,
      jsonb_build_object('tag_id', ${tag.id}::bigint, 'name', ${tag.name}::text, 'reason', 'tag_deleted'),
      ${now.toISOString()}::timestamptz
    from ${contactTags}
    join ${contacts} on ${contacts.companyId} = ${contactTags.companyId} and ${contacts.id} = ${contactTags.contactId}
    where ${contactTags.companyId} = ${companyId} and ${contactTags.tagId} = ${tag.id} and ${contacts.deletedAt} is null
    order by ${contactTags.contactId}`)
}
