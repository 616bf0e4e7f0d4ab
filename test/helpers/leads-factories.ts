// Rows the leads, transcriptions and WhatsApp tests need from other modules (contacts,
// tasks), inserted directly, plus WhatsApp messages through the import code.
import { Type } from 'typebox'
import { transaction, type Db } from '../../src/db/db.js'
import { recordSql, type Row } from '../../src/db/records.js'
import { Nullable, Timestamp } from '../../src/http/schemas.js'
import { importMessages } from '../../src/modules/whatsapp/whatsapp.repository.js'
import type { CompanyId } from '../../src/tenancy.js'
import { rawRows, sql } from './sql.js'

/** The columns of a contact row the tests read: the AddedContact schema's row. */
const AddedContact = Type.Object({
  id: Type.Integer(),
  company_id: Type.Integer(),
  user_id: Type.Integer(),
  first_name: Type.String(),
  last_name: Nullable(Type.String()),
  email: Type.String(),
  deleted_at: Nullable(Timestamp),
}, { $id: 'AddedContact' })
export type AddedContact = Row<typeof AddedContact>
export const ADDED_CONTACT = sql.raw(recordSql(AddedContact, 'contacts c').columns(''))

/** The columns of a task row the tests read: the AddedTask schema's row. */
const AddedTask = Type.Object({
  id: Type.Integer(),
  contact_id: Type.Integer(),
  assigned_to_id: Type.Integer(),
  title: Type.String(),
}, { $id: 'AddedTask' })
type AddedTask = Row<typeof AddedTask>
const ADDED_TASK = sql.raw(recordSql(AddedTask, 'tasks t').columns(''))

let sequence = 0
const next = () => ++sequence

export async function addContact(
  db: Db,
  companyId: CompanyId,
  userId: number,
  options: { email?: string; firstName?: string; deleted?: boolean } = {},
) {
  const n = next()
  const [row] = await rawRows<AddedContact>(db, sql`
    insert into contacts (company_id, user_id, first_name, email, deleted_at)
    values (${companyId}, ${userId}, ${options.firstName ?? `Contact ${n}`}, ${options.email ?? `contact${n}@example.com`},
      ${options.deleted ? new Date() : null})
    returning ${ADDED_CONTACT}`)
  if (!row) throw new Error('no contact')
  return row
}

export async function addTask(
  db: Db,
  companyId: CompanyId,
  options: { contactId: number; assignedToId: number; title?: string },
) {
  const [row] = await rawRows<AddedTask>(db, sql`
    insert into tasks (company_id, kind, title, due_date, assigned_to_id, contact_id)
    values (${companyId}, 'meeting', ${options.title ?? `Task ${next()}`}, '2026-11-22', ${options.assignedToId}, ${options.contactId})
    returning ${ADDED_TASK}`)
  if (!row) throw new Error('no task')
  return row
}

export interface MessageSpec {
  contactId: number
  userId: number
  sentAt: string
  direction?: 'inbound' | 'outbound'
  status?: 'sent' | 'delivered' | 'read' | 'failed' | 'received'
  body?: string
}

/** Messages as the import command stores them (chats included). */
export async function addMessages(db: Db, companyId: CompanyId, specs: MessageSpec[]) {
  return transaction(db, (tx) =>
    importMessages(
      tx,
      companyId,
      specs.map((m) => ({
        contactId: m.contactId,
        userId: m.userId,
        direction: m.direction ?? 'outbound',
        status: m.status ?? 'sent',
        body: m.body ?? `message ${next()}`,
        sentAt: m.sentAt,
      })),
    ),
  )
}
