// Rows the leads, transcriptions and WhatsApp tests need from other modules (contacts,
// tasks), inserted directly, plus WhatsApp messages through the import code.
import { transaction, type Db } from '../../src/db/db.js'
import { contacts, tasks } from '../../src/db/schema.js'
import { importMessages } from '../../src/modules/whatsapp/whatsapp.repository.js'
import type { CompanyId } from '../../src/tenancy.js'
import { orm } from './orm.js'

let sequence = 0
const next = () => ++sequence

export async function addContact(
  db: Db,
  companyId: CompanyId,
  userId: number,
  options: { email?: string; firstName?: string; deleted?: boolean } = {},
) {
  const n = next()
  const [row] = await orm(db)
    .insert(contacts)
    .values({
      companyId,
      userId,
      firstName: options.firstName ?? `Contact ${n}`,
      email: options.email ?? `contact${n}@example.com`,
      deletedAt: options.deleted ? new Date() : null,
    })
    .returning()
  if (!row) throw new Error('no contact')
  return row
}

export async function addTask(
  db: Db,
  companyId: CompanyId,
  options: { contactId: number; assignedToId: number; title?: string },
) {
  const [row] = await orm(db)
    .insert(tasks)
    .values({
      companyId,
      kind: 'meeting',
      title: options.title ?? `Task ${next()}`,
      dueDate: '2026-11-22',
      assignedToId: options.assignedToId,
      contactId: options.contactId,
    })
    .returning()
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
