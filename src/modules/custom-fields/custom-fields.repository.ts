import type { Db } from '../../db/db.js'
import { recordSql, type Row } from '../../db/records.js'
import { defineQuery, run, runOne, runSingle } from '../../db/query.js'
import type { CompanyId } from '../../tenancy.js'
import { isoInstant } from '../../db/json-sql.js'
import { outboxCtes } from '../outbox/index.js'
import { CustomField, type CustomFieldKind } from './custom-fields.schemas.js'

export type CustomFieldRow = Row<typeof CustomField>

export interface CustomFieldValues {
  field: string
  kind: CustomFieldKind
  options: { name: string }[]
  now: Date
}

// options is jsonb [{name}], written only by this module in exactly that shape.
const FIELD_RECORD = recordSql(CustomField, 'custom_fields f')
const FIELD = FIELD_RECORD.columns('')

// A written definition as its webhook event's data: the API record, from the RETURNING row `f`.
const FIELD_JSON = FIELD_RECORD.json('f')

/** The write's CTE `f` (RETURNING the record) with its event of `type` in the same statement (outbox.ts). */
const withEvent = (write: string, type: string, at: string) =>
  `with f as (
     ${write}
   ), event as (
     select 1 as ord, '${type}' as type, ${FIELD_JSON} as data from f
   ), ${outboxCtes('event', '$1::bigint', at)}
   select ${FIELD} from f`

// The primary key (company_id, id), in order.
const listStatement = defineQuery<CustomFieldRow>(
  'customFields.list',
  `select ${FIELD} from custom_fields where company_id = $1 order by id`,
  { pipelined: true },
)

export function listCustomFields(db: Db, companyId: CompanyId): Promise<CustomFieldRow[]> {
  return run(db, listStatement, [companyId])
}

const existsStatement = defineQuery<{ id: number }>(
  'customFields.exists',
  'select id from custom_fields where company_id = $1 and id = $2',
)

export async function customFieldExists(db: Db, companyId: CompanyId, id: number): Promise<boolean> {
  return (await runOne(db, existsStatement, [companyId, id])) !== undefined
}

// custom_fields_company_field_key refuses a field name the company has (case-insensitive).
const insertStatement = defineQuery<CustomFieldRow>(
  'customFields.insert',
  withEvent(
    `insert into custom_fields (company_id, field, kind, options, created_at, updated_at)
     values ($1, $2, $3, $4::jsonb, $5, $5)
     returning ${FIELD}`,
    'custom_field.created',
    '$5::timestamptz',
  ),
)

export async function insertCustomField(db: Db, companyId: CompanyId, values: CustomFieldValues): Promise<CustomFieldRow> {
  return runSingle(db, insertStatement, [companyId, values.field, values.kind, JSON.stringify(values.options), values.now])
}

// Demo data: many definitions in one statement, from a JSON array, in the given order.
const insertManyStatement = defineQuery<{ id: number; field: string }>(
  'customFields.insertMany',
  `insert into custom_fields (company_id, field, kind, options, created_at, updated_at)
   select $1, v.field, v.kind, v.options, v.now, v.now
     from rows from (json_to_recordset($2::json)
            as (field text, kind custom_field_kind, options jsonb, now timestamptz))
          with ordinality as v
    order by v.ordinality
   returning id, field`,
)

/** Many definitions in one statement (demo data), in the given order. */
export async function insertCustomFields(db: Db, companyId: CompanyId, values: CustomFieldValues[]): Promise<{ id: number; field: string }[]> {
  if (values.length === 0) return []
  return (await run(db, insertManyStatement, [companyId, JSON.stringify(values)])).sort((a, b) => a.id - b.id)
}

// Options null ($5) keep the current ones: a dropdown then needs some, else nothing is
// changed (no row: the caller tells a missing field from that refusal).
const updateStatement = defineQuery<CustomFieldRow>(
  'customFields.update',
  withEvent(
    `update custom_fields
        set field = $3, kind = $4, options = coalesce($5::jsonb, options), updated_at = $6
      where company_id = $1 and id = $2
        and ($5::jsonb is not null or $4::custom_field_kind <> 'dropdown' or jsonb_array_length(options) > 0)
     returning ${FIELD}`,
    'custom_field.updated',
    '$6::timestamptz',
  ),
)

/**
 * Changes the definition; `options` undefined keeps the current ones. Undefined when there
 * is no such field, or when it would be a dropdown without options.
 */
export function updateCustomField(
  db: Db,
  companyId: CompanyId,
  id: number,
  values: Omit<CustomFieldValues, 'options'> & { options: { name: string }[] | undefined },
): Promise<CustomFieldRow | undefined> {
  const options = values.options === undefined ? null : JSON.stringify(values.options)
  return runOne(db, updateStatement, [companyId, id, values.field, values.kind, options, values.now])
}

// With its custom_field.deleted event ({id, deleted_at}); none for contacts losing a value.
const deleteStatement = defineQuery<{ id: number }>(
  'customFields.delete',
  `with gone as (
     delete from custom_fields where company_id = $1 and id = $2 returning id
   ), event as (
     select 1 as ord, 'custom_field.deleted' as type,
            json_build_object('id', gone.id, 'deleted_at', ${isoInstant('$3::timestamptz')}) as data
       from gone
   ), ${outboxCtes('event', '$1::bigint', '$3::timestamptz')}
   select id from gone`,
)

/** Deletes the definition (the foreign key cascade deletes its values on contacts) with its event. */
export async function deleteCustomField(db: Db, companyId: CompanyId, id: number, now: Date): Promise<boolean> {
  return (await runOne(db, deleteStatement, [companyId, id, now])) !== undefined
}

// ---- lent to other modules' statements (src/db/owners.ts) ----------------------------------

/** The company's custom fields named among an array of lower-cased names, as `custom_fields f` for a from clause. */
export const fieldsNamedAmong = (company: string, names: string) => `custom_fields f where f.company_id = ${company} and lower(f.field) = any(${names})`

/** The custom field `id` of `company`, as `custom_fields f` for a join (`company`, `id`: SQL expressions). */
export const fieldJoin = (company: string, id: string) => `custom_fields f on f.company_id = ${company} and f.id = ${id}`

/** The company's custom fields among an array share-locked in id order, so that none is deleted before the writer commits. */
export const keyShareFieldsAmong = (company: string, ids: string) =>
  `select id from custom_fields where company_id = ${company} and id = any(${ids}) order by id for key share`
