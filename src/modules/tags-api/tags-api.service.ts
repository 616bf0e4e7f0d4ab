import { transaction, type Db } from '../../db/db.js'
import { notFound } from '../../errors.js'
import { rethrowTaken } from '../../http/unique-violations.js'
import type { Caller } from '../../tenancy.js'
import { deleteTagWithEvents } from '../contacts/index.js'
import { insertTag, listTags, updateTag, type Tag, type TagBody } from '../tags/index.js'

export async function tagsOfCompany(db: Db, caller: Pick<Caller, 'companyId'>) {
  const rows = await listTags(db, caller.companyId)
  return { data: rows, meta: { total_count: rows.length } }
}

export async function createTag(db: Db, caller: Pick<Caller, 'companyId' | 'now'>, input: TagBody) {
  try {
    return await insertTag(db, caller.companyId, { name: input.name, color: input.color, now: caller.now })
  } catch (err) {
    return rethrowTaken(err, 'tags_company_name_key', 'name')
  }
}

export async function changeTag(db: Db, caller: Caller, id: number, input: TagBody) {
  let row: Tag | undefined
  try {
    row = await updateTag(db, caller.companyId, id, { name: input.name, color: input.color, now: caller.now })
  } catch (err) {
    return rethrowTaken(err, 'tags_company_name_key', 'name')
  }
  if (!row) throw notFound()
  return row
}

/** Removes the tag from every contact, recording a `tag_removed` event on each live one. */
export async function removeTag(db: Db, caller: Caller, id: number): Promise<void> {
  const deleted = await transaction(db, (tx) => deleteTagWithEvents(tx, caller.companyId, id, caller.userId, caller.now))
  if (!deleted) throw notFound()
}
