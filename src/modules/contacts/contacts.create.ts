// POST /contacts, by the batch upsert's rules and statements (contacts.batch.ts): one new
// contact is a batch of one, written by the same statement as a PUT (contacts.change.ts).
import { transaction, type Db } from '../../db/db.js'
import type { Writer } from '../../tenancy.js'
import { contactWriteTransaction, resolveLocked, writeBatch } from './contacts.batch.sql.js'
import { planCreate } from './contacts.plan.js'
import type { ContactCreateBody } from './contacts.schemas.js'
import { fieldNames, rethrow, type ContactAnswer } from './contacts.service.js'

/**
 * POST /contacts, a batch of one by the batch's rules and statements (contacts.batch.ts):
 * BEGIN; the email's lead-link lock, the tags, custom fields and a new id (resolveLocked); the
 * create planned in memory (planCreate); one statement that writes everything, counters last,
 * and answers the contact as JSON text (contacts.createWrite); COMMIT. A taken email
 * breaks the live-email key at that write (rethrow).
 */
export async function createContact(db: Db, caller: Writer, input: ContactCreateBody): Promise<ContactAnswer> {
  const { companyId, now } = caller
  try {
    return await transaction(db, async (tx) => {
      const references = await resolveLocked(tx, companyId, {
        contactIds: [],
        newIds: 1,
        tagIds: input.tags ?? [],
        fieldNames: fieldNames(input.custom_fields ?? []),
        userIds: [],
        lockEmails: [input.email],
      })
      const plan = planCreate(caller, references, input, now)
      if ('error' in plan) throw plan.error
      const json = await writeBatch(tx, companyId, caller.userId, now, plan.write, true)
      if (json === null) throw new Error('the write answered no contact')
      return { id: plan.id, json }
    }, contactWriteTransaction)
  } catch (err) {
    return rethrow(err, db, companyId, input)
  }
}
