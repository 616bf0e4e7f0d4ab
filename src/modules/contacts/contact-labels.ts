// What a page shows of contacts another record names (a task's, an enrollment's): the name
// and email of a handful of contacts by id, deleted ones included (their tasks and
// enrollments stay listed), for the workspace's lists.
import { Type } from 'typebox'
import type { Db } from '../../db/db.js'
import { defineQuery, run } from '../../db/query.js'
import { recordSql, type Row } from '../../db/records.js'
import { Nullable } from '../../http/schemas.js'
import type { CompanyId } from '../../tenancy.js'

/** A contact as a page names it: never an API record, so its schema lives here, beside its one statement. */
export const ContactLabel = Type.Object(
  {
    id: Type.Integer(),
    first_name: Type.String(),
    last_name: Nullable(Type.String()),
    email: Nullable(Type.String()),
    deleted: Type.Boolean({ description: 'deleted_at is set: the page says so' }),
  },
  { $id: 'ContactLabel' },
)

/** A contact's label as the statement returns it: the ContactLabel schema's row. */
export type ContactLabelRecord = Row<typeof ContactLabel>

const LABEL = recordSql(ContactLabel, 'contacts c', { deleted: (c) => `${c}deleted_at is not null` }).columns('')

// By primary key (company_id, id): `id = any($2)`, one index probe per id (at most a page).
const labels = defineQuery<ContactLabelRecord>(
  'contacts.labels',
  `select ${LABEL}
     from contacts
    where company_id = $1 and id = any($2::bigint[])`,
  { pipelined: true },
)

/** The contacts of the company among `ids`, by id; ids of no contact of the company are absent. */
export async function contactLabels(db: Db, companyId: CompanyId, ids: readonly number[]): Promise<Map<number, ContactLabelRecord>> {
  const unique = [...new Set(ids)]
  if (unique.length === 0) return new Map()
  const rows = await run(db, labels, [companyId, unique])
  return new Map(rows.map((row) => [row.id, row]))
}

/** "Ana Souza": the name a page shows. */
export const labelName = (label: Pick<ContactLabelRecord, 'first_name' | 'last_name'>) => [label.first_name, label.last_name].filter(Boolean).join(' ')
