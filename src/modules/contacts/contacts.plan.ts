// Contact writes planned in memory by the rules of POST /contacts and PUT /contacts/:id, for
// the batch upsert's write statement (contacts.batch.sql.ts): planBatch applies a batch's
// items in order (contacts.batch.ts), planCreate one POST (contacts.create.ts) and planChange
// one PUT (contacts.change.ts). From what the
// resolve statement read (the contacts locked, with their tags and custom values, and the
// tags, fields and users named), each gives the results and one BatchWrite.
import { mergedDeltas } from '../../db/counters.js'
import { invalid, type ApiError, type ErrorDetails } from '../../errors.js'
import type { Writer } from '../../tenancy.js'
import type { ContactColumnsRow } from './contacts.repository.js'
import type { ContactBatchUpdate } from './contacts.batch.schemas.js'
import type { resolveLocked, BatchContact, BatchWrite, ContactColumns, ContactSnapshot, ListedBefore } from './contacts.batch.sql.js'
import type { ContactCreateBody, ContactUpdateBody } from './contacts.schemas.js'
import {
  checkCustomValues,
  checkTags,
  COLUMNS,
  CONTACTS_BY_USER_COUNTER,
  CONTACTS_COUNTER,
  hasText,
  newContactColumns,
  requestedColumns,
  type Column,
} from './contacts.service.js'

export type BatchResult = { status: 201 | 200; id: number } | { status: 422; error: ApiError }

export type Checked<T> = { input: T } | { error: ApiError }

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

type References = Awaited<ReturnType<typeof resolveLocked>>
type Tag = BatchContact['tags'][number]

/** A contact as the batch leaves it so far. */
interface State {
  row: ContactColumnsRow
  tags: Tag[]
  /** custom field id → its name and value, for the fields with a value */
  values: Map<number, { field: string; value: string }>
  dirty: boolean
  businessChanged: boolean
  /** What is stored now (known contacts): the write sends the difference. */
  stored: { tagIds: Set<number>; values: Map<number, string> }
  /** A known contact's columns as the resolve read them, by which its write lists it; none for a contact the write creates. */
  before?: ListedBefore
}

/** The values by field id, ascending (the order a contact shows them in). */
const byFieldId = (values: State['values']) => [...values.entries()].sort((a, b) => a[0] - b[0])

const valueList = (values: State['values']) => byFieldId(values).map(([, v]) => ({ field: v.field, value: v.value }))

/** The contact as the state holds it, for the write statement to write its API shape. */
const snapshot = (state: State): ContactSnapshot => ({
  row: state.row,
  tag_ids: state.tags.map((tag) => tag.id),
  values: byFieldId(state.values).map(([id, v]) => ({ field_id: id, value: v.value })),
})

/**
 * The row as the write takes it (its id and COLUMNS), with the business to find or create: the
 * row's other keys (its instants, and the search text, company and business id a known
 * contact's row was read with) are left out of the JSON the statement parses.
 */
function columns(row: ContactColumnsRow): ContactColumns {
  const picked: Record<string, unknown> = { id: row.id }
  for (const column of COLUMNS) picked[column] = row[column]
  picked.business_name = hasText(row.business) ? row.business : null
  return picked as ContactColumns
}

const knownState = (contact: BatchContact): State => ({
  row: contact.row,
  tags: contact.tags,
  values: new Map(contact.values.map((v) => [v.id, { field: v.field, value: v.value }])),
  dirty: false,
  businessChanged: false,
  stored: { tagIds: new Set(contact.tags.map((t) => t.id)), values: new Map(contact.values.map((v) => [v.id, v.value])) },
  before: contact.before,
})

/**
 * The items applied in memory, in order, by the rules of createContact (contacts.service.ts)
 * and of a PUT (the update is planChange's): each item's result, and everything to write
 * (undefined: nothing).
 * A later item with the email of an earlier one updates what the earlier one left.
 */
export function planBatch(caller: Writer, references: References, items: BatchItem[], now: Date) {
  const states = new Map(references.contacts.map((contact) => [contact.row.email.toLowerCase(), knownState(contact)]))
  const planner = contactPlanner(caller, references, now)
  const results = items.map((item): BatchResult => {
    const state = states.get(item.email.toLowerCase())
    if (state) return 'input' in item.update ? planner.update(state, item.update.input) : { status: 422, error: item.update.error }
    if (!('input' in item.create)) return { status: 422, error: item.create.error }
    const created = planner.create(item.create.input)
    if ('state' in created) {
      states.set(item.create.input.email.toLowerCase(), created.state)
      return { status: 201, id: created.state.row.id }
    }
    return created
  })
  return { results, write: planner.finish(states.values()) }
}

/**
 * PUT /contacts/:id by the batch's rules and statement (its one contact, resolved by
 * resolveLocked): the 422, or what to write (undefined: nothing changed), whose first webhook
 * event, contact.updated, carries the contact as changed (the answer), with the new email
 * whose lead-link lock the write needs.
 */
export function planChange(
  caller: Writer,
  references: References,
  contact: BatchContact,
  input: ContactUpdateBody,
  now: Date,
): { error: ApiError } | { newEmail: string | undefined; write: BatchWrite | undefined } {
  const state = knownState(contact)
  const planner = contactPlanner(caller, references, now)
  const result = planner.update(state, input)
  if (result.status === 422) return { error: result.error }
  const newEmail = state.row.email.toLowerCase() === contact.row.email.toLowerCase() ? undefined : state.row.email
  return { newEmail, write: planner.finish([state]) }
}

/**
 * POST /contacts as a batch of one (resolved by resolveLocked with one new id): the new
 * contact's id, with what to write, whose first webhook event, contact.created, carries the
 * contact as inserted (the answer), or the 422.
 */
export function planCreate(
  caller: Writer,
  references: References,
  input: ContactCreateBody,
  now: Date,
): { error: ApiError } | { id: number; write: BatchWrite } {
  const planner = contactPlanner(caller, references, now)
  const created = planner.create(input)
  if (!('state' in created)) return { error: created.error }
  const write = planner.finish([created.state])
  if (write === undefined) throw new Error('a created contact has nothing to write')
  return { id: created.state.row.id, write }
}

/** Creates and updates in memory, and the write they add up to (finish). */
function contactPlanner(caller: Writer, references: References, now: Date) {
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
    relinked: [],
  }
  /** Where in apiEvents a created contact's contact.created is, while the statement is to write its payload. */
  const createdEvents = new Map<State, number>()
  const tagsOf = (ids: number[], problems: ErrorDetails) =>
    checkTags(ids, references.tags.filter((tag) => ids.includes(tag.id)), problems)
  const event = (contactId: number, kind: string, data: unknown = {}) => write.events.push({ contact_id: contactId, kind, data })

  function create(input: ContactCreateBody): { state: State } | { status: 422; error: ApiError } {
    const problems: ErrorDetails = {}
    const tags = tagsOf(input.tags ?? [], problems)
    const values = checkCustomValues(input.custom_fields ?? [], references.customFields, problems)
    if (Object.keys(problems).length > 0) return { status: 422, error: invalid(problems) }
    const id = newIds.shift()
    if (id === undefined) throw new Error('no id left for a new contact')
    const row: ContactColumnsRow = Object.assign(newContactColumns(caller.userId, input), { id, created_at: now, updated_at: now })
    const state: State = {
      row,
      tags,
      values: new Map(values.flatMap((v) => (v.value === null ? [] : [[v.definition.id, { field: v.definition.field, value: v.value }]]))),
      dirty: true,
      businessChanged: false,
      stored: { tagIds: new Set(), values: new Map() },
    }
    if (hasText(input.business)) write.businessNames.push(input.business)
    event(id, 'contact_created')
    write.counters.push({ list: CONTACTS_COUNTER, key: 0, delta: 1 }, { list: CONTACTS_BY_USER_COUNTER, key: caller.userId, delta: 1 })
    // Its payload is written by the statement from the inserted row, unless a later item
    // changes the contact (update() then fills it in with the contact as created).
    createdEvents.set(state, write.apiEvents.push({ type: 'contact.created', contact_id: id }) - 1)
    write.links.push({ contactId: id, email: input.email, eventOrd: write.apiEvents.length })
    return { state }
  }

  function update(state: State, input: ContactBatchUpdate | ContactUpdateBody): BatchResult {
    const current = state.row
    const problems: ErrorDetails = {}
    if (input.user_id !== undefined && input.user_id !== current.user_id && !references.users.has(input.user_id)) {
      problems.user_id = ['does not exist']
    }
    const tags = input.tags === undefined ? undefined : tagsOf(input.tags ?? [], problems)
    const values = checkCustomValues(input.custom_fields ?? [], references.customFields, problems)
    if (Object.keys(problems).length > 0) return { status: 422, error: invalid(problems) }

    // Field changes: only what differs from the contact as it is now.
    const set: Partial<ContactColumnsRow> = {}
    const changes: Record<string, [unknown, unknown]> = {}
    for (const [column, value] of Object.entries(requestedColumns(input)) as [Column, unknown][]) {
      if (current[column] === value) continue
      Object.assign(set, { [column]: value })
      changes[column] = [current[column], value]
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
      write.apiEvents[created] = { type: 'contact.created', contact: snapshot(state) }
      createdEvents.delete(state)
    }
    state.row = { ...current, ...set, updated_at: now }
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
    if (set.user_id !== undefined) {
      write.counters.push(
        { list: CONTACTS_BY_USER_COUNTER, key: current.user_id, delta: -1 },
        { list: CONTACTS_BY_USER_COUNTER, key: set.user_id, delta: 1 },
      )
    }
    const contact = snapshot(state)
    write.apiEvents.push({ type: 'contact.updated', contact })
    if (added.length > 0) write.apiEvents.push({ type: 'contact.tagged', contact })
    if (removed.length > 0) write.apiEvents.push({ type: 'contact.untagged', contact })
    // A new email (only a PUT gives one: a batch finds its contacts by email): the old
    // one's leads let go, the new one's linked, their lead.linked after these events.
    if (set.email !== undefined && set.email.toLowerCase() !== current.email.toLowerCase()) {
      write.relinked.push(current.id)
      write.links.push({ contactId: current.id, email: set.email, eventOrd: write.apiEvents.length })
    }
    return { status: 200, id: current.id }
  }

  function finish(states: Iterable<State>): BatchWrite | undefined {
    for (const state of states) {
      if (!state.dirty) continue
      const id = state.row.id
      if (state.before === undefined) write.created.push(columns(state.row))
      else write.changed.push(Object.assign(columns(state.row), state.before, { business_changed: state.businessChanged }))
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
    // One row per list and key: a batch of creates sends two, not two per contact.
    write.counters = mergedDeltas(write.counters)
    return write.created.length > 0 || write.changed.length > 0 ? write : undefined
  }

  return { create, update, finish }
}
