// PUT /contacts/:id, by the batch upsert's rules and statements (a batch's update of a known
// contact and a PUT are the same change): BEGIN; the contact locked (contacts.changeLock);
// then, with a snapshot taken under that lock, the contact with its tags, custom values and
// the tags, fields and user the request names (contacts.resolveLocked); the change
// planned in memory (planChange); when the email changes, the new email's lead-link lock
// (after the contact, before the email is written and before any counter: docs/reliability.md);
// one statement that writes it all, counters and webhook events last, and answers the contact
// as planned as JSON text (contacts.batchWrite); COMMIT. A PUT that changes nothing reads the
// contact instead (contacts.jsonById).
import { transaction, type Db } from '../../db/db.js'
import { notFound } from '../../errors.js'
import type { Writer } from '../../tenancy.js'
import { lockLeadEmail } from '../leads/index.js'
import { contactWriteTransaction, lockContactForChange, resolveLocked, writeBatch } from './contacts.batch.sql.js'
import { findContactJson } from './contacts.repository.js'
import { planChange } from './contacts.plan.js'
import type { ContactUpdateBody } from './contacts.schemas.js'
import { fieldNames, rethrow, type ContactAnswer } from './contacts.service.js'

export async function changeContact(db: Db, caller: Writer, id: number, input: ContactUpdateBody): Promise<ContactAnswer> {
  const { companyId, now } = caller
  try {
    return await transaction(db, async (tx) => {
      if (!(await lockContactForChange(tx, companyId, id))) throw notFound()
      const references = await resolveLocked(tx, companyId, {
        contactIds: [id],
        newIds: 0,
        tagIds: input.tags ?? [],
        fieldNames: fieldNames(input.custom_fields ?? []),
        userIds: input.user_id === undefined ? [] : [input.user_id],
      })
      const [contact] = references.contacts
      if (!contact) throw notFound()
      const plan = planChange(caller, references, contact, input, now)
      if ('error' in plan) throw plan.error
      if (plan.newEmail !== undefined) await lockLeadEmail(tx, companyId, plan.newEmail)
      const json = plan.write
        ? await writeBatch(tx, companyId, caller.userId, now, plan.write, true)
        : await findContactJson(tx, companyId, id)
      if (json == null) throw notFound() // the contact is locked: not reached
      return { id, json }
    }, contactWriteTransaction)
  } catch (err) {
    return rethrow(err, db, companyId, input)
  }
}
