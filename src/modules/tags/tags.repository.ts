import { columns } from '../../db/columns.js'
import type { Db } from '../../db/db.js'
import { defineQuery, run, runOne, runSingle } from '../../db/query.js'
import type { CompanyId } from '../../tenancy.js'
import { recordSql, type Row } from '../../db/records.js'
import { outboxCtes } from '../outbox/index.js'
import { Tag } from './tags.schemas.js'


const TAG_RECORD = recordSql(Tag, 'tags t')
const TAG = TAG_RECORD.columns('')
// A written tag as its webhook event's data: the API record, built from the RETURNING row `t`.
const TAG_JSON = TAG_RECORD.json('t')

// The primary key (company_id, id), in order.
const listStatement = defineQuery<Row<typeof Tag>>('tags.list', `select ${TAG} from tags where company_id = $1 order by id`, { pipelined: true })

export function listTags(db: Db, companyId: CompanyId): Promise<Row<typeof Tag>[]> {
  return run(db, listStatement, [companyId])
}

// tags_company_name_key refuses a name the company has (case-insensitive). The tag.created
// event in the same statement (outbox.ts): one round trip, no transaction needed.
const insertStatement = defineQuery<Row<typeof Tag>>(
  'tags.insert',
  `with t as (
     insert into tags (company_id, name, color, created_at, updated_at) values ($1, $2, $3, $4, $4) returning ${TAG}
   ), event as (
     select 1 as ord, 'tag.created' as type, ${TAG_JSON} as data from t
   ), ${outboxCtes('event', '$1::bigint', '$4::timestamptz')}
   select ${TAG} from t`,
)

export async function insertTag(db: Db, companyId: CompanyId, values: { name: string; color: string; now: Date }): Promise<Row<typeof Tag>> {
  return runSingle(db, insertStatement, [companyId, values.name, values.color, values.now])
}

// Demo data: many tags in one statement, in the given order.
const insertManyStatement = defineQuery<{ id: number; name: string }>(
  'tags.insertMany',
  `insert into tags (company_id, name, color, created_at, updated_at)
   select $1, t.name, t.color, $4, $4
     from unnest($2::text[], $3::text[]) with ordinality as t(name, color, n)
    order by t.n
   returning id, name`,
)

/** Many tags in one statement (demo data), in the given order. */
export async function insertTags(
  db: Db,
  companyId: CompanyId,
  values: { name: string; color: string }[],
  now: Date,
): Promise<{ id: number; name: string }[]> {
  if (values.length === 0) return []
  const rows = await run(db, insertManyStatement, [companyId, ...columns(values, ['name', 'color']), now])
  return rows.sort((a, b) => a.id - b.id)
}

// With its tag.updated event (none when there is no such tag).
const updateStatement = defineQuery<Row<typeof Tag>>(
  'tags.update',
  `with t as (
     update tags set name = $3, color = $4, updated_at = $5 where company_id = $1 and id = $2 returning ${TAG}
   ), event as (
     select 1 as ord, 'tag.updated' as type, ${TAG_JSON} as data from t
   ), ${outboxCtes('event', '$1::bigint', '$5::timestamptz')}
   select ${TAG} from t`,
)

export function updateTag(
  db: Db,
  companyId: CompanyId,
  id: number,
  values: { name: string; color: string; now: Date },
): Promise<Row<typeof Tag> | undefined> {
  return runOne(db, updateStatement, [companyId, id, values.name, values.color, values.now])
}

// Locked first, in a statement of its own: a contact write adding the tag meanwhile (its
// foreign key check shares the row's lock) has committed before the next statement looks
// at contact_tags, so its contact gets its event too.
const lockStatement = defineQuery<{ id: number }>(
  'tags.lock',
  'select id from tags where company_id = $1 and id = $2 for update',
)

/** Locks the company's tag until the transaction ends, before it is deleted (deleteTagWithEvents of the contacts module); false when there is no such tag. */
export async function lockTag(tx: Db, companyId: CompanyId, id: number): Promise<boolean> {
  return (await runOne(tx, lockStatement, [companyId, id])) !== undefined
}

// ---- lent to other modules' statements (src/db/owners.ts) ----------------------------------

/** The company's tags among an array, as `tags t` for a from clause (`company`, `ids`: SQL expressions). */
export const tagsAmong = (company: string, ids: string) => `tags t where t.company_id = ${company} and t.id = any(${ids})`

/** The tag `id` of `company`, as `tags t` for a join (`company`, `id`: SQL expressions). */
export const tagJoin = (company: string, id: string) => `tags t on t.company_id = ${company} and t.id = ${id}`

/** The company's tags among an array share-locked in id order, so that none is deleted before the writer commits. */
export const keyShareTagsAmong = (company: string, ids: string) => `select id from tags where company_id = ${company} and id = any(${ids}) order by id for key share`

/** Deletes the company's tag, returning its id and name (`company`, `id`: SQL expressions). */
export const deleteTagReturning = (company: string, id: string) => `delete from tags where company_id = ${company} and id = ${id} returning id, name`
