import type { Db } from '../../db/db.js'
import { retryingDeadlocks } from '../../db/pg-errors.js'
import { invalid, notFound } from '../../errors.js'
import { rethrowTaken } from '../../http/unique-violations.js'
import type { Caller } from '../../tenancy.js'
import {
  customFieldExists,
  deleteCustomField,
  insertCustomField,
  listCustomFields,
  updateCustomField,
  type CustomFieldRow,
} from './custom-fields.repository.js'
import type { CustomFieldBody } from './custom-fields.schemas.js'

const NO_OPTIONS = 'must have at least 1 item for a dropdown'

/** A dropdown's options as given, checked: at least one, names non-blank and unique. */
function checkedOptions(options: { name?: string | undefined }[]): { options: { name: string }[]; problems: string[] } {
  const problems: string[] = []
  if (options.length === 0) problems.push(NO_OPTIONS)
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
  return { options: names, problems }
}

/**
 * The options to store: a dropdown's as given (null: none), checked; other kinds keep none;
 * undefined for a dropdown whose options are not given (the current ones stay).
 */
function optionsToStore(input: CustomFieldBody): { options: { name: string }[] | undefined; problems: string[] } {
  if (input.kind !== 'dropdown') return { options: [], problems: [] }
  if (input.options === undefined) return { options: undefined, problems: [] }
  return checkedOptions(input.options ?? [])
}

export async function customFieldsOfCompany(db: Db, caller: Pick<Caller, 'companyId'>) {
  const rows = await listCustomFields(db, caller.companyId)
  return { data: rows, meta: { total_count: rows.length } }
}

export async function createCustomField(db: Db, caller: Pick<Caller, 'companyId' | 'now'>, input: CustomFieldBody) {
  const { now } = caller
  const { options = [], problems } = optionsToStore({ ...input, options: input.options ?? null })
  if (problems.length > 0) throw invalid({ options: problems })
  try {
    return await insertCustomField(db, caller.companyId, { field: input.field, kind: input.kind, options, now })
  } catch (err) {
    return rethrowTaken(err, 'custom_fields_company_field_key', 'field')
  }
}

/**
 * Existing values on contacts are kept as they are when the kind or the options change.
 * One statement; a missing field (404) is told apart from refused options (422) only when
 * the change fails.
 */
export async function changeCustomField(db: Db, caller: Caller, id: number, input: CustomFieldBody) {
  const { companyId, now } = caller
  const { options, problems } = optionsToStore(input)
  const refuse = async (list: string[]): Promise<never> => {
    if (!(await customFieldExists(db, companyId, id))) throw notFound()
    throw invalid({ options: list })
  }
  if (problems.length > 0) return refuse(problems)
  let row: CustomFieldRow | undefined
  try {
    row = await updateCustomField(db, companyId, id, { field: input.field, kind: input.kind, options, now })
  } catch (err) {
    // A name clash on a missing field cannot happen: no row was changed.
    return rethrowTaken(err, 'custom_fields_company_field_key', 'field')
  }
  return row ?? refuse([NO_OPTIONS])
}

export async function removeCustomField(db: Db, caller: Caller, id: number): Promise<void> {
  const { now } = caller
  if (!(await retryingDeadlocks(() => deleteCustomField(db, caller.companyId, id, now)))) throw notFound()
}
