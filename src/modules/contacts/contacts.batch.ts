// POST /contacts/batch: up to 100 contacts, each matched by email (case-insensitive) among
// the live contacts of the company, created when new and updated when known, in order, with
// exactly the records, contact events, lead links, counters and webhook events the same
// items would give as single POST /contacts and PUT /contacts/:id requests one after the
// other. Items are independent: one that fails answers 422 in its slot and changes nothing.
//
// The fast path is one transaction of six round trips whatever the number of items:
// BEGIN; the emails' lead-link locks; the contacts of the emails locked; one read of
// everything the items name (tags, custom fields, users, those contacts with their tags and
// custom values as the locks left them, and ids for the new ones); the items
// applied in memory, in order, by the rules of the single requests (planBatch); one
// statement that writes it all; COMMIT. Should that statement break a constraint (a
// writer that takes no email lock created one of the emails, a tag was deleted meanwhile),
// the batch runs again item by item, each in its own savepoint, through the single
// requests' own code.
import { transaction, type Db } from '../../db/db.js'
import { foreignKeyViolation, uniqueViolation } from '../../db/pg-errors.js'
import { ApiError, detailCodes } from '../../errors.js'
import { validate } from '../../http/validation.js'
import type { Static, TSchema } from 'typebox'
import type { Writer } from '../../tenancy.js'
import { ContactBatchEmail, ContactBatchUpdate } from './contacts.batch.schemas.js'
import { contactWriteTransaction, findLiveContactByEmail, lockBatchContacts, lockBatchEmails, resolveLocked, writeBatch } from './contacts.batch.sql.js'
import { changeContact } from './contacts.change.js'
import { planBatch, type BatchItem, type BatchResult, type Checked } from './contacts.plan.js'
import { createContact } from './contacts.create.js'
import { ContactCreateBody } from './contacts.schemas.js'
import { fieldNames } from './contacts.service.js'

export type { BatchResult } from './contacts.plan.js'

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

function check<T extends TSchema>(schema: T, item: unknown): Checked<Static<T>> {
  try {
    return { input: validate(schema, item) }
  } catch (err) {
    if (err instanceof ApiError) return { error: err }
    throw err
  }
}


/** Applies the items in order; one result per item, in the same order. */
export async function upsertContacts(db: Db, caller: Writer, items: unknown[]): Promise<BatchResult[]> {
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
    const applied = await apply(db, caller, matched.map((m) => m.item))
    matched.forEach((m, i) => {
      const result = applied[i]
      if (!result) throw new Error('a batch item has no result')
      results[m.index] = result
    })
  }
  return results
}


async function apply(db: Db, caller: Writer, items: BatchItem[]): Promise<BatchResult[]> {
  try {
    return await transaction(db, (tx) => applyTogether(tx, caller, items), contactWriteTransaction)
  } catch (err) {
    if (uniqueViolation(err) === undefined && foreignKeyViolation(err) === undefined) throw err
  }
  return transaction(db, (tx) => applyOneByOne(tx, caller, items), contactWriteTransaction)
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

async function applyTogether(tx: Db, caller: Writer, items: BatchItem[]): Promise<BatchResult[]> {
  const { companyId } = caller
  await lockBatchEmails(tx, companyId, items.map((item) => item.email))
  const emails = distinct(items.map((item) => item.email.toLowerCase()))
  const contactIds = await lockBatchContacts(tx, companyId, emails)
  const names = items.map(named)
  const references = await resolveLocked(tx, companyId, {
    contactIds,
    newIds: emails.length - contactIds.length, // a live contact per email at most
    tagIds: distinct(names.flatMap((n) => n.tags)),
    fieldNames: distinct(names.flatMap((n) => n.fields)),
    userIds: distinct(names.flatMap((n) => n.users)),
  })
  const { results, write } = planBatch(caller, references, items, caller.now)
  if (write) await writeBatch(tx, companyId, caller.userId, caller.now, write)
  return results
}

/** The slow path: each item through the single requests' code, in a savepoint of its own. */
async function applyOneByOne(tx: Db, caller: Writer, items: BatchItem[]): Promise<BatchResult[]> {
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
        results.push({ status: 200, id: (await changeContact(tx, caller, found.id, { ...input, business })).id })
      } else if ('input' in item.create) {
        results.push({ status: 201, id: (await createContact(tx, caller, item.create.input)).id })
      }
    } catch (err) {
      if (!(err instanceof ApiError) || err.statusCode !== 422) throw err
      results.push({ status: 422, error: err })
    }
  }
  return results
}

