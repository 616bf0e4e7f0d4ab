import type { Database } from '../../db/client.js'
import { uniqueViolation } from '../../db/errors.js'
import { invalid, notFound } from '../../errors.js'
import type { Caller } from '../../tenancy.js'
import { deleteTag, findTag, insertTag, listTags, recordTagRemovedFromAll, updateTag, type TagRow } from './tags.repository.js'
import type { TagBody } from './tags.schemas.js'

export const toTag = (row: TagRow) => ({
  id: row.id,
  name: row.name,
  color: row.color,
  created_at: row.createdAt,
  updated_at: row.updatedAt,
})

function nameTaken(err: unknown): never {
  if (uniqueViolation(err) === 'tags_company_name_key') throw invalid({ name: ['has already been taken'] })
  throw err
}

export async function tagsOfCompany(db: Database, caller: Caller) {
  const rows = await listTags(db, caller.companyId)
  return { data: rows.map(toTag), meta: { total_count: rows.length } }
}

export async function createTag(db: Database, caller: Caller, input: TagBody, now: Date) {
  try {
    return toTag(await insertTag(db, caller.companyId, { name: input.name, color: input.color, now }))
  } catch (err) {
    return nameTaken(err)
  }
}

export async function changeTag(db: Database, caller: Caller, id: number, input: TagBody, now: Date) {
  let row: TagRow | undefined
  try {
    row = await updateTag(db, caller.companyId, id, { name: input.name, color: input.color, now })
  } catch (err) {
    return nameTaken(err)
  }
  if (!row) throw notFound()
  return toTag(row)
}

/** Removes the tag from every contact, recording a `tag_removed` event on each live one. */
export async function removeTag(db: Database, caller: Caller, id: number, now: Date): Promise<void> {
  await db.transaction(async (tx) => {
    const tag = await findTag(tx, caller.companyId, id, { forUpdate: true })
    if (!tag) throw notFound()
    await recordTagRemovedFromAll(tx, caller.companyId, tag, caller.userId, now)
    await deleteTag(tx, caller.companyId, id)
  })
}
