import type { Database } from '../../db/client.js'
import { uniqueViolation } from '../../db/errors.js'
import { invalid, notFound } from '../../errors.js'
import type { Caller } from '../../tenancy.js'
import {
  deleteCustomField,
  findCustomField,
  insertCustomField,
  listCustomFields,
  updateCustomField,
  type CustomFieldRow,
} from './custom-fields.repository.js'
import type { CustomFieldBody } from './custom-fields.schemas.js'

export const toCustomField = (row: CustomFieldRow) => ({
  id: row.id,
  field: row.field,
  kind: row.kind,
  options: row.options.map((option) => ({ name: option.name })),
  created_at: row.createdAt,
  updated_at: row.updatedAt,
})

/**
 * The options to store: a dropdown's (given, else the current ones on update), checked;
 * other kinds keep none.
 */
function dropdownOptions(input: CustomFieldBody, current: { name: string }[]): { name: string }[] {
  if (input.kind !== 'dropdown') return []
  const options = input.options === undefined ? current : (input.options ?? [])
  const problems: string[] = []
  if (options.length === 0) problems.push('must have at least 1 item for a dropdown')
  const seen = new Set<string>()
  const names: { name: string }[] = []
  for (const option of options) {
    const name = option.name ?? ''
    if (!/\S/.test(name)) {
      if (!problems.includes("name can't be blank")) problems.push("name can't be blank")
      continue
    }
    const key = name.toLowerCase()
    if (seen.has(key)) problems.push(`name "${name}" is given more than once`)
    seen.add(key)
    names.push({ name })
  }
  if (problems.length > 0) throw invalid({ options: problems })
  return names
}

function fieldTaken(err: unknown): never {
  if (uniqueViolation(err) === 'custom_fields_company_field_key') throw invalid({ field: ['has already been taken'] })
  throw err
}

export async function customFieldsOfCompany(db: Database, caller: Caller) {
  const rows = await listCustomFields(db, caller.companyId)
  return { data: rows.map(toCustomField), meta: { total_count: rows.length } }
}

export async function createCustomField(db: Database, caller: Caller, input: CustomFieldBody, now: Date) {
  const options = dropdownOptions(input, [])
  try {
    return toCustomField(await insertCustomField(db, caller.companyId, { field: input.field, kind: input.kind, options, now }))
  } catch (err) {
    return fieldTaken(err)
  }
}

/** Existing values on contacts are kept as they are when the kind or the options change. */
export async function changeCustomField(db: Database, caller: Caller, id: number, input: CustomFieldBody, now: Date) {
  const current = await findCustomField(db, caller.companyId, id)
  if (!current) throw notFound()
  const options = dropdownOptions(input, current.options)
  let row: CustomFieldRow | undefined
  try {
    row = await updateCustomField(db, caller.companyId, id, { field: input.field, kind: input.kind, options, now })
  } catch (err) {
    return fieldTaken(err)
  }
  if (!row) throw notFound()
  return toCustomField(row)
}

export async function removeCustomField(db: Database, caller: Caller, id: number): Promise<void> {
  if (!(await deleteCustomField(db, caller.companyId, id))) throw notFound()
}
