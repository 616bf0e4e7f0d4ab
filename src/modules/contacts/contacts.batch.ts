// POST /contacts/batch: up to 100 contacts, each matched by email (case-insensitive) among
// the live contacts of the company, created when new and updated when known, in order, with
// exactly the records, contact events, lead links, counters and webhook events the same
// items would give as single POST /contacts and PUT /contacts/:id requests one after the
// other. Items are independent: one that fails answers 422 in its slot and changes nothing.
//
// The fast path is one transaction of five round trips whatever the number of items:
// BEGIN; the emails' lead-link locks; one read of everything the items name (tags, custom
// fields, users, the contacts of the emails, locked, and ids for the new ones); the items
// applied in memory, in order, by the rules of the single requests (planBatch); one
// statement that writes it all; COMMIT. Should that statement break a constraint (a
// writer that takes no email lock created one of the emails, a tag was deleted meanwhile),
// the batch runs again item by item, each in its own savepoint, through the single
// requests' own code.
import type { Database } from '../../db/client.js'
import { foreignKeyViolation, retryingDeadlocks, uniqueViolation } from '../../db/errors.js'
import { ApiError, detailCodes, invalid, type ErrorDetails } from '../../errors.js'
import { validate } from '../../http/validation.js'
import type { Static, TSchema } from 'typebox'
import type { Caller } from '../../tenancy.js'
import type { ContactRow } from './contacts.repository.js'
import { ContactBatchEmail, ContactBatchUpdate } from './contacts.batch.schemas.js'
import { ContactCreateBody } from './contacts.schemas.js'
import {
  findLiveContactByEmail,
  lockBatchEmails,
  resolveBatch,
  writeBatch,
  type BatchContact,
  type BatchWrite,
  type ContactColumns,
} from './contacts.batch.sql.js'
import {
  changeContact,
  checkCustomValues,
  checkTags,
  contactColumns,
  COLUMNS,
  CONTACTS_BY_USER_COUNTER,
  CONTACTS_COUNTER,
  createContact,
  fieldNames,
  hasText,
  newContactColumns,
  requestedColumns,
  toContact,
  type Column,
} from './contacts.service.js'

export type BatchResult = { status: 201 | 200; id: number } | { status: 422; error: ApiError }

/** The results as the API shows them: a refused item carries the contract's error body, with the batch's request id. */
export const toBatchResponse = (results: BatchResult[], requestId: string) => ({
  results: results.map((result) => {
    if (result.status !== 422) return result
    const { error } = result
    return {
      status: result.status,
      error: {
        status: error.statusCode,
        message: error.message,
        code: error.code,
        ...(error.details ? { details: error.details, detail_codes: detailCodes(error.details) } : {}),
        request_id: requestId,
      },
    }
  }),
})

type Checked<T> = { input: T } | { error: ApiError }

function check<T extends TSchema>(schema: T, item: unknown): Checked<Static<T>> {
  try {
    return { input: validate(schema, item) }
  } catch (err) {
    if (err instanceof ApiError) return { error: err }
    throw err
  }
}

/**
 * An item with a valid email, checked both ways: as a create (POST /contacts: `user_id`
 * ignored) and as an update (PUT /contacts/:id, `business` optional); which one applies is
 * known once the email is looked up.
 */
export interface BatchItem {
  email: string
  create: Checked<ContactCreateBody>
  update: Checked<ContactBatchUpdate>
}

/** Applies the items in order; one result per item, in the same order. */
export async function upsertContacts(db: Database, caller: Caller, items: unknown[], now: Date): Promise<BatchResult[]> {
  const results = new Array<BatchResult>(items.length)
  const matched: { index: number; item: BatchItem }[] = []
  items.forEach((item, index) => {
    const create = check(ContactCreateBody, item)
    const email = check(ContactBatchEmail, item)
    // Without a valid email there is nothing to match: refused as the create would be.
    if ('error' in email) results[index] = { status: 422, error: 'error' in create ? create.error : email.error }
    else matched.push({ index, item: { email: email.input.email, create, update: check(ContactBatchUpdate, item) } })
  })
  if (matched.length > 0) {
    const applied = await retryingDeadlocks(() => apply(db, caller, matched.map((m) => m.item), now))
    matched.forEach((m, i) => {
      const result = applied[i]
      if (!result) throw new Error('a batch item has no result')
      results[m.index] = result
    })
  }
  return results
}


async function apply(db: Database, caller: Caller, items: BatchItem[], now: Date): Promise<BatchResult[]> {
  try {
    return await db.transaction((tx) => applyTogether(tx, caller, items, now))
  } catch (err) {
    if (uniqueViolation(err) === undefined && foreignKeyViolation(err) === undefined) throw err
  }
  return db.transaction((tx) => applyOneByOne(tx, caller, items, now))
}

const distinct = <T>(values: T[]) => [...new Set(values)]

/** What an item names, from whichever check it passed (tags and custom fields are the same in both). */
function named(item: BatchItem) {
  const input = 'input' in item.update ? item.update.input : 'input' in item.create ? item.create.input : undefined
  return {
    tags: input?.tags ?? [],
    fields: fieldNames(input?.custom_fields ?? []),
    users: 'input' in item.update && item.update.input.user_id !== undefined ? [item.update.input.user_id] : [],
  }
}

async function applyTogether(tx: Database, caller: Caller, items: BatchItem[], now: Date): Promise<BatchResult[]> {
  const { companyId } = caller
  await lockBatchEmails(tx, companyId, items.map((item) => item.email))
  const names = items.map(named)
  const references = await resolveBatch(tx, companyId, {
    emails: distinct(items.map((item) => item.email.toLowerCase())),
    tagIds: distinct(names.flatMap((n) => n.tags)),
    fieldNames: distinct(names.flatMap((n) => n.fields)),
    userIds: distinct(names.flatMap((n) => n.users)),
  })
  const { results, write } = planBatch(caller, references, items, now)
  if (write) await writeBatch(tx, companyId, caller.userId, now, write)
  return results
}

/** The slow path: each item through the single requests' code, in a savepoint of its own. */
async function applyOneByOne(tx: Database, caller: Caller, items: BatchItem[], now: Date): Promise<BatchResult[]> {
  await lockBatchEmails(tx, caller.companyId, items.map((item) => item.email))
  const results: BatchResult[] = []
  for (const item of items) {
    const found = await findLiveContactByEmail(tx, caller.companyId, item.email)
    const checked = found ? item.update : item.create
    if ('error' in checked) {
      results.push({ status: 422, error: checked.error })
      continue
    }
    try {
      if (found && 'input' in item.update) {
        const input = item.update.input
        const business = input.business === undefined ? found.business : input.business
        results.push({ status: 200, id: (await changeContact(tx, caller, found.id, { ...input, business }, now)).id })
      } else if ('input' in item.create) {
        results.push({ status: 201, id: (await createContact(tx, caller, item.create.input, now)).id })
      }
    } catch (err) {
      if (!(err instanceof ApiError) || err.statusCode !== 422) throw err
      results.push({ status: 422, error: err })
    }
  }
  return results
}

type References = Awaited<ReturnType<typeof resolveBatch>>
type Tag = BatchContact['tags'][number]

/** A contact as the batch leaves it so far. */
interface State {
  row: ContactRow
  tags: Tag[]
  /** custom field id → its name and value, for the fields with a value */
  values: Map<number, { field: string; value: string }>
  created: boolean
  dirty: boolean
  businessChanged: boolean
  /** What is stored now (known contacts): the write sends the difference. */
  stored: { tagIds: Set<number>; values: Map<number, string> }
}

const valueList = (values: State['values']) =>
  [...values.entries()].sort((a, b) => a[0] - b[0]).map(([, v]) => ({ field: v.field, value: v.value }))

const record = (state: State) => toContact(state.row, state.tags, valueList(state.values))

function columns(row: ContactRow): ContactColumns {
  return Object.assign(contactColumns(row), { business_name: hasText(row.business) ? row.business : null }) // see toContact
}

/**
 * The items applied in memory, in order, by the rules of createContact and changeContact
 * (contacts.service.ts): each item's result, and everything to write (undefined: nothing).
 * A later item with the email of an earlier one updates what the earlier one left.
 */
export function planBatch(caller: Caller, references: References, items: BatchItem[], now: Date) {
  const states = new Map<string, State>()
  for (const contact of references.contacts) {
    states.set(contact.row.email.toLowerCase(), {
      row: contact.row,
      tags: contact.tags,
      values: new Map(contact.values.map((v) => [v.id, { field: v.field, value: v.value }])),
      created: false,
      dirty: false,
      businessChanged: false,
      stored: { tagIds: new Set(contact.tags.map((t) => t.id)), values: new Map(contact.values.map((v) => [v.id, v.value])) },
    })
  }
  const newIds = [...references.newIds]
  const write: BatchWrite = {
    businessNames: [],
    created: [],
    changed: [],
    tagsAdded: [],
    tagsRemoved: [],
    valuesSet: [],
    valuesCleared: [],
    events: [],
    counters: [],
    apiEvents: [],
    links: [],
  }
  /** Where in apiEvents a created contact's contact.created is, while the statement is to write its payload. */
  const createdEvents = new Map<State, number>()
  const tagsOf = (ids: number[], problems: ErrorDetails) =>
    checkTags(ids, references.tags.filter((tag) => ids.includes(tag.id)), problems)
  const event = (contactId: number, kind: string, data: unknown = {}) => write.events.push({ contact_id: contactId, kind, data })

  function create(input: ContactCreateBody): BatchResult {
    const problems: ErrorDetails = {}
    const tags = tagsOf(input.tags ?? [], problems)
    const values = checkCustomValues(input.custom_fields ?? [], references.customFields, problems)
    if (Object.keys(problems).length > 0) return { status: 422, error: invalid(problems) }
    const id = newIds.shift()
    if (id === undefined) throw new Error('no id left for a new contact')
    const row: ContactRow = Object.assign(newContactColumns(caller.userId, input), {
      companyId: caller.companyId,
      id,
      businessId: null,
      deletedAt: null,
      searchText: null,
      createdAt: now,
      updatedAt: now,
    })
    const state: State = {
      row,
      tags,
      values: new Map(values.flatMap((v) => (v.value === null ? [] : [[v.definition.id, { field: v.definition.field, value: v.value }]]))),
      created: true,
      dirty: true,
      businessChanged: false,
      stored: { tagIds: new Set(), values: new Map() },
    }
    states.set(input.email.toLowerCase(), state)
    if (hasText(input.business)) write.businessNames.push(input.business)
    event(id, 'contact_created')
    write.counters.push({ list: CONTACTS_COUNTER, key: 0, delta: 1 }, { list: CONTACTS_BY_USER_COUNTER, key: caller.userId, delta: 1 })
    // Its payload is written by the statement from the inserted row, unless a later item
    // changes the contact (update() then fills it in with the contact as created).
    createdEvents.set(state, write.apiEvents.push({ type: 'contact.created', contact_id: id }) - 1)
    write.links.push({ contactId: id, email: input.email, eventOrd: write.apiEvents.length })
    return { status: 201, id }
  }

  function update(state: State, input: ContactBatchUpdate): BatchResult {
    const current = state.row
    const problems: ErrorDetails = {}
    if (input.user_id !== undefined && input.user_id !== current.userId && !references.users.has(input.user_id)) {
      problems.user_id = ['does not exist']
    }
    const tags = input.tags === undefined ? undefined : tagsOf(input.tags ?? [], problems)
    const values = checkCustomValues(input.custom_fields ?? [], references.customFields, problems)
    if (Object.keys(problems).length > 0) return { status: 422, error: invalid(problems) }

    // Field changes: only what differs from the contact as it is now.
    const set: Partial<ContactRow> = {}
    const changes: Record<string, [unknown, unknown]> = {}
    for (const [column, value] of Object.entries(requestedColumns(input)) as [Column, unknown][]) {
      if (current[column] === value) continue
      Object.assign(set, { [column]: value })
      changes[COLUMNS[column]] = [current[column], value]
    }

    // Custom fields: set or clear the named ones.
    const toSet = values.filter((v) => v.value !== null && state.values.get(v.definition.id)?.value !== v.value)
    const toClear = values.filter((v) => v.value === null && state.values.has(v.definition.id))
    const newValues = new Map(state.values)
    for (const v of toSet) newValues.set(v.definition.id, { field: v.definition.field, value: v.value ?? '' })
    for (const v of toClear) newValues.delete(v.definition.id)
    if (toSet.length > 0 || toClear.length > 0) changes.custom_fields = [valueList(state.values), valueList(newValues)]

    // Tags: the given set replaces the current one.
    const tagIds = new Set(tags?.map((tag) => tag.id))
    const added = tags?.filter((tag) => !state.tags.some((t) => t.id === tag.id)) ?? []
    const removed = tags === undefined ? [] : state.tags.filter((tag) => !tagIds.has(tag.id))

    if (Object.keys(changes).length === 0 && added.length === 0 && removed.length === 0) return { status: 200, id: current.id }

    const created = createdEvents.get(state)
    if (created !== undefined) {
      write.apiEvents[created] = { type: 'contact.created', data: record(state) }
      createdEvents.delete(state)
    }
    state.row = { ...current, ...set, updatedAt: now }
    state.values = newValues
    if (tags !== undefined) state.tags = tags
    state.dirty = true
    if (set.business !== undefined) {
      state.businessChanged = true
      if (hasText(set.business)) write.businessNames.push(set.business)
    }
    if (Object.keys(changes).length > 0) event(current.id, 'contact_updated', { changes })
    if (set.stage !== undefined) event(current.id, 'stage_changed', { from: current.stage, to: set.stage })
    for (const tag of added) event(current.id, 'tag_added', { tag_id: tag.id, name: tag.name })
    for (const tag of removed) event(current.id, 'tag_removed', { tag_id: tag.id, name: tag.name })
    if (set.userId !== undefined) {
      write.counters.push(
        { list: CONTACTS_BY_USER_COUNTER, key: current.userId, delta: -1 },
        { list: CONTACTS_BY_USER_COUNTER, key: set.userId, delta: 1 },
      )
    }
    const contact = record(state)
    write.apiEvents.push({ type: 'contact.updated', data: contact })
    if (added.length > 0) write.apiEvents.push({ type: 'contact.tagged', data: contact })
    if (removed.length > 0) write.apiEvents.push({ type: 'contact.untagged', data: contact })
    return { status: 200, id: current.id }
  }

  const results = items.map((item): BatchResult => {
    const state = states.get(item.email.toLowerCase())
    if (state) return 'input' in item.update ? update(state, item.update.input) : { status: 422, error: item.update.error }
    return 'input' in item.create ? create(item.create.input) : { status: 422, error: item.create.error }
  })

  for (const state of states.values()) {
    if (!state.dirty) continue
    const id = state.row.id
    if (state.created) write.created.push(columns(state.row))
    else write.changed.push(Object.assign(columns(state.row), { business_changed: state.businessChanged }))
    const tagIds = new Set(state.tags.map((tag) => tag.id))
    for (const tagId of state.stored.tagIds) if (!tagIds.has(tagId)) write.tagsRemoved.push({ contactId: id, tagId })
    for (const tagId of tagIds) if (!state.stored.tagIds.has(tagId)) write.tagsAdded.push({ contactId: id, tagId })
    for (const [fieldId, stored] of state.stored.values) {
      if (!state.values.has(fieldId)) write.valuesCleared.push({ contactId: id, fieldId })
      else if (state.values.get(fieldId)?.value !== stored) write.valuesSet.push({ contactId: id, fieldId, value: state.values.get(fieldId)?.value ?? '' })
    }
    for (const [fieldId, v] of state.values) if (!state.stored.values.has(fieldId)) write.valuesSet.push({ contactId: id, fieldId, value: v.value })
  }
  write.created.sort((a, b) => a.id - b.id)
  const dirty = write.created.length > 0 || write.changed.length > 0
  return { results, write: dirty ? write : undefined }
}
