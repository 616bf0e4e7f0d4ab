// What a page shows of contacts another record names (a task's, an enrollment's): the name
// and email of a handful of contacts by id, deleted ones included (their tasks and
// enrollments stay listed), for the workspace's lists.
import type { Db } from '../../db/db.js'
import { defineQuery, run } from '../../db/query.js'
import type { CompanyId } from '../../tenancy.js'

export interface ContactLabel {
  id: number
  firstName: string
  lastName: string | null
  email: string | null
  deleted: boolean
}

// By primary key (company_id, id): `id = any($2)`, one index probe per id (at most a page).
const labels = defineQuery<ContactLabel>(
  'contacts.labels',
  `select id, first_name as "firstName", last_name as "lastName", email, deleted_at is not null as deleted
     from contacts
    where company_id = $1 and id = any($2::bigint[])`,
  { pipelined: true },
)

/** The contacts of the company among `ids`, by id; ids of no contact of the company are absent. */
export async function contactLabels(db: Db, companyId: CompanyId, ids: readonly number[]): Promise<Map<number, ContactLabel>> {
  const unique = [...new Set(ids)]
  if (unique.length === 0) return new Map()
  const rows = await run(db, labels, [companyId, unique])
  return new Map(rows.map((row) => [row.id, row]))
}

/** "Ana Souza": the name a page shows. */
export const labelName = (label: Pick<ContactLabel, 'firstName' | 'lastName'>) => [label.firstName, label.lastName].filter(Boolean).join(' ')
