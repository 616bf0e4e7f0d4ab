import { Type, type TSchema } from 'typebox'
import { counterSlotSetting } from '../../db/counters.js'
import { transaction, type Db } from '../../db/db.js'
import { foreignKeyViolation, uniqueViolation } from '../../db/pg-errors.js'
import { ApiError, invalid, notFound, type ErrorDetails } from '../../errors.js'
import { DateParam } from '../../http/schemas.js'
import { pageWindow, readPage, type ListPage, type PageRequest } from '../../http/pagination.js'
import { walkingList, walkJsonPage, type WalkRequest } from '../../http/sync.js'
import { validate } from '../../http/validation.js'
import type { Caller, CompanyId } from '../../tenancy.js'
import {
  contactsExportBatch,
  contactsPageJson,
  contactsWalkPage,
  deleteLockedContact,
  findContactBusiness,
  findContactJson,
  findContactReferences,
  readContactEventsPage,
  type ContactFilters,
  type ContactReferences,
  type NewContact,
  searchContacts,
} from './contacts.repository.js'
import type { ContactRecord, ContactColumnsRow } from './contacts.record.js'
import { lockContactForChange } from './contacts.batch.sql.js'
import { searchSlots } from './search-slots.js'
import { ContactsListQuery, ContactsListResponse, ContactsPage, PHONE_PATTERN, type ContactCreateBody, type ContactUpdateBody } from './contacts.schemas.js'

/** Counter lists (src/db/counters.ts): live contacts of the company (key 0) and per owner (key user id). */
export const CONTACTS_COUNTER = 'contacts'
export const CONTACTS_BY_USER_COUNTER = 'contacts_by_user'

export type { ContactRecord } from './contacts.record.js'

/** A written contact: its id, and its API shape as JSON text written by the statement (sent as it is, see sendJsonText). */
export interface ContactAnswer {
  id: number
  json: string
}

// The request fields stored as they come, under the Contact schema's names (also the keys of `changes`).
export const COLUMNS = [
  'first_name', 'last_name', 'email', 'business', 'position', 'telephone', 'cellphone', 'address', 'city', 'state',
  'country', 'url', 'linkedin', 'variable1', 'variable2', 'variable3', 'carousel', 'stage', 'contact_group_id', 'user_id',
] as const satisfies readonly (keyof ContactColumnsRow)[]
export type Column = (typeof COLUMNS)[number]

/** The columns a request gives (omitted ones left out); a null carousel is its default, false. */
export function requestedColumns(input: ContactCreateBody | ContactUpdateBody): Partial<Pick<ContactColumnsRow, Column>> {
  const given: Record<string, unknown> = {}
  const fields = input as Record<string, unknown>
  for (const column of COLUMNS) {
    if (fields[column] !== undefined) given[column] = fields[column]
  }
  if (given.carousel === null) given.carousel = false
  return given
}

/** A new contact's columns from a create's body, owned by `userId`: what the body omits is null (carousel: false). */
export function newContactColumns(userId: number, input: ContactCreateBody): NewContact {
  return {
    user_id: userId,
    first_name: input.first_name,
    last_name: input.last_name ?? null,
    email: input.email,
    business: input.business ?? null,
    position: input.position ?? null,
    telephone: input.telephone ?? null,
    cellphone: input.cellphone ?? null,
    address: input.address ?? null,
    city: input.city ?? null,
    state: input.state ?? null,
    country: input.country ?? null,
    url: input.url ?? null,
    linkedin: input.linkedin ?? null,
    variable1: input.variable1 ?? null,
    variable2: input.variable2 ?? null,
    variable3: input.variable3 ?? null,
    carousel: input.carousel ?? false,
    stage: input.stage ?? null,
    contact_group_id: input.contact_group_id ?? null,
  }
}

export const hasText = (value: string | null | undefined): value is string => value != null && /\S/.test(value)

/** The tags named by id (deduplicated, ascending), or a problem for ids the company has not. */
export function checkTags(ids: number[], found: ContactReferences['tags'], problems: ErrorDetails) {
  const known = new Set(found.map((tag) => tag.id))
  const missing = [...new Set(ids)].sort((a, b) => a - b).filter((id) => !known.has(id))
  if (missing.length > 0) problems.tags = [`does not exist: ${missing.join(', ')}`]
  return found
}

const fits = (schema: TSchema) => {
  const wrapped = Type.Object({ value: schema })
  return (value: string) => {
    try {
      validate(wrapped, { value })
      return true
    } catch (err) {
      if (err instanceof ApiError) return false
      throw err
    }
  }
}
const isEmail = fits(Type.String({ format: 'email' }))
const isDate = fits(DateParam)
const isPhone = fits(Type.String({ pattern: PHONE_PATTERN }))

export type CustomFieldDefinition = ContactReferences['custom_fields'][number]

/** Why `value` does not fit the definition's kind, if it does not. */
function kindProblem(definition: CustomFieldDefinition, value: string): string | undefined {
  switch (definition.kind) {
    case 'email':
      return isEmail(value) ? undefined : 'is invalid'
    case 'date':
      return isDate(value) ? undefined : 'must be a date (yyyy-mm-dd)'
    case 'telephone':
      return isPhone(value) ? undefined : 'is invalid'
    case 'dropdown':
      return definition.options.some((option) => option.name === value) ? undefined : 'is not included in the list'
    case 'input':
    case 'textarea':
      return undefined
  }
}

export interface ValueChange {
  definition: CustomFieldDefinition
  /** null clears the value. */
  value: string | null
}

type CustomValueEntry = { field?: string | undefined; value?: string | null | undefined }

/** Custom field values by definition, checked against the kinds; problems go under `custom_fields`. */
export function checkCustomValues(
  entries: CustomValueEntry[],
  definitions: CustomFieldDefinition[],
  problems: ErrorDetails,
): ValueChange[] {
  const list: string[] = []
  const add = (message: string) => {
    if (!list.includes(message)) list.push(message)
  }
  const named = entries.filter((entry) => {
    if (hasText(entry.field)) return true
    add("field can't be blank")
    return false
  })
  const byName = new Map(definitions.map((definition) => [definition.field.toLowerCase(), definition]))
  const changes = new Map<number, ValueChange>()
  for (const entry of named) {
    const name = entry.field ?? ''
    const definition = byName.get(name.toLowerCase())
    if (!definition) {
      add(`${name} does not exist`)
      continue
    }
    if (changes.has(definition.id)) {
      add(`${definition.field} is given more than once`)
      continue
    }
    const value = entry.value === undefined || entry.value === null || entry.value === '' ? null : entry.value
    const problem = value === null ? undefined : kindProblem(definition, value)
    if (problem) add(`${definition.field} ${problem}`)
    changes.set(definition.id, { definition, value })
  }
  if (list.length > 0) problems.custom_fields = list
  return [...changes.values()].sort((a, b) => a.definition.id - b.definition.id)
}

export const fieldNames = (entries: CustomValueEntry[]) => entries.flatMap((entry) => (hasText(entry.field) ? [entry.field] : []))

type ContactInput = Pick<ContactCreateBody, 'tags' | 'custom_fields'>

/**
 * A taken email becomes a 422; the database's unique index decides between concurrent writers.
 * A tag or custom field deleted between the checks and the write breaks a foreign key: the
 * transaction is gone, so the checks run again on what is committed and answer as if it had
 * never existed.
 */
export async function rethrow(err: unknown, db: Db, companyId: CompanyId, input: ContactInput): Promise<never> {
  if (uniqueViolation(err) === 'contacts_company_email_live_key') throw invalid({ email: ['has already been taken'] })
  const foreignKey = foreignKeyViolation(err)
  if (foreignKey === 'contact_tags_tag_fk' || foreignKey === 'contact_custom_values_field_fk') {
    const problems: ErrorDetails = {}
    const tagIds = input.tags ?? []
    const entries = input.custom_fields ?? []
    const references = await findContactReferences(db, companyId, tagIds, fieldNames(entries))
    checkTags(tagIds, references.tags, problems)
    checkCustomValues(entries, references.custom_fields, problems)
    if (Object.keys(problems).length === 0) problems[foreignKey === 'contact_tags_tag_fk' ? 'tags' : 'custom_fields'] = ['does not exist']
    throw invalid(problems)
  }
  throw err
}

/** A live contact as the JSON text of its API shape (sent as it is, see sendJsonText). */
export async function getContactJson(db: Db, caller: Caller, id: number): Promise<string> {
  const json = await findContactJson(db, caller.companyId, id)
  if (json === undefined) throw notFound()
  return json
}

/** The filters of a list query (the owner, the stage, one tag) as the repository takes them. */
const filtersOf = (query: Pick<ContactsListQuery, 'user_id' | 'stage' | 'tag_id'>): ContactFilters => ({
  userId: query.user_id,
  stage: query.stage,
  tagId: query.tag_id,
})

/**
 * A page of contacts. Totals come from the counters (the rows query is skipped past the
 * end), or are counted where two filters meet; a search gets its page and its total in one
 * statement, in one of the few search slots of the process (search-slots.ts).
 */
export async function contactsPage(db: Db, caller: Caller, query: ContactsListQuery & PageRequest): Promise<ListPage> {
  const { companyId } = caller
  const window = pageWindow(query)
  const filters = filtersOf(query)
  const search = query.search_term === '' ? undefined : query.search_term
  const { total, data } = search === undefined
    ? await contactsPageJson(db, companyId, filters, window)
    : await searchSlots.run(() => searchContacts(db, companyId, search, filters, window))
  return { window, total, json: data }
}

/** A page of an updated_since walk of the contacts (src/http/sync.ts): deleted ones as tombstones. */
export function contactsWalk(db: Db, caller: Caller, walk: WalkRequest) {
  return walkJsonPage(db, { ...walk, resource: 'contacts', companyId: caller.companyId }, (window) =>
    contactsWalkPage(db, caller.companyId, window))
}

/** Hides the contact (history kept, email free again) and unlinks its leads. */
export async function deleteContact(db: Db, caller: Caller, id: number): Promise<void> {
  const { companyId, now } = caller
  // Four round trips: BEGIN; the contact locked; one statement that does the rest; COMMIT.
  await transaction(db, async (tx) => {
    if (!(await lockContactForChange(tx, companyId, id))) throw notFound()
    await deleteLockedContact(tx, companyId, id, caller.userId, now)
  }, { genericPlans: true, settings: counterSlotSetting })
}

/** GET /contacts/:id/business: the live contact's business, else 404 (no contact, or none named). */
export async function contactBusiness(db: Db, caller: Caller, contactId: number) {
  const business = await findContactBusiness(db, caller.companyId, contactId)
  if (!business) throw notFound()
  return business
}

/** A live contact's events, newest first, and their total: one statement (events.contactPage). */
export function contactEventsPage(db: Db, caller: Caller, id: number, query: PageRequest) {
  return readPage(query, (window) => readContactEventsPage(db, caller.companyId, id, window))
}

/** Rows read per statement of an export. */
export const CONTACTS_EXPORT_BATCH = 1000

/**
 * Every live contact of a view of the list (its owner, stage, tag and search filters), in id
 * order, a batch at a time: run it in one snapshot (db.ts, inSnapshot) for a consistent export.
 */
export async function* contactsForExport(
  db: Db,
  companyId: CompanyId,
  filters: Pick<ContactsListQuery, 'user_id' | 'search_term' | 'stage' | 'tag_id'>,
): AsyncGenerator<ContactRecord> {
  const term = filters.search_term === '' ? undefined : filters.search_term
  let afterId = 0
  for (;;) {
    const rows = await contactsExportBatch(db, companyId, { term, ...filtersOf(filters) }, afterId, CONTACTS_EXPORT_BATCH)
    yield* rows
    const last = rows.at(-1)
    if (last === undefined || rows.length < CONTACTS_EXPORT_BATCH) return
    afterId = last.id
  }
}

/** GET /v1/contacts: the list's pages and its `updated_since` walk (walkingListRoute). */
export const CONTACTS_LIST = walkingList({
  resource: 'contacts', walkRefuses: ['user_id', 'search_term', 'stage', 'tag_id'], pageNeeds: ['page'],
  query: ContactsListQuery, response: ContactsListResponse, pageSchema: ContactsPage,
  walk: contactsWalk, page: contactsPage,
})
