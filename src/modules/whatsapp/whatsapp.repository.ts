import { and, count, eq, getTableColumns, inArray, isNull, sql, sum } from 'drizzle-orm'
import type { AnyPgColumn } from 'drizzle-orm/pg-core'
import type { Database } from '../../db/client.js'
import { exactInstant } from '../../db/instants.js'
import { contacts, users, whatsappChats, whatsappMessages } from '../../db/schema.js'
import type { PageWindow } from '../../http/pagination.js'
import type { CompanyId } from '../../tenancy.js'

export type MessageRow = typeof whatsappMessages.$inferSelect
export type ChatRow = typeof whatsappChats.$inferSelect

export interface NewMessage {
  contactId: number
  userId: number
  direction: MessageRow['direction']
  status: MessageRow['status']
  body: string
  /** An instant of the years 0001-9999 UTC (src/http/dates.ts), as ISO 8601. */
  sentAt: string
}

// Instants read exactly (any year 0001-9999), not through drizzle's Date parsing.
const messageColumns = { ...getTableColumns(whatsappMessages), sentAt: exactInstant(whatsappMessages.sentAt) }
const chatColumns = { ...getTableColumns(whatsappChats), lastMessageAt: exactInstant(whatsappChats.lastMessageAt) }

const BATCH = 1000
type Page = Pick<PageWindow, 'limit' | 'offset'>

// The schema's `.desc()` indexes are DESC NULLS LAST, and a plain `order by x desc` means
// NULLS FIRST: spelled out, so the planner reads the index in order instead of sorting.
const newestFirst = (column: AnyPgColumn) => sql`${column} desc nulls last`

/** Of `ids`, those of live contacts of the company. */
export async function liveContactIds(db: Database, companyId: CompanyId, ids: number[]): Promise<Set<number>> {
  const found = new Set<number>()
  for (let i = 0; i < ids.length; i += BATCH) {
    const rows = await db
      .select({ id: contacts.id })
      .from(contacts)
      .where(and(eq(contacts.companyId, companyId), inArray(contacts.id, ids.slice(i, i + BATCH)), isNull(contacts.deletedAt)))
    for (const row of rows) found.add(row.id)
  }
  return found
}

/** Of `ids`, those of users of the company. */
export async function companyUserIds(db: Database, companyId: CompanyId, ids: number[]): Promise<Set<number>> {
  const found = new Set<number>()
  for (let i = 0; i < ids.length; i += BATCH) {
    const rows = await db
      .select({ id: users.id })
      .from(users)
      .where(and(eq(users.companyId, companyId), inArray(users.id, ids.slice(i, i + BATCH))))
    for (const row of rows) found.add(row.id)
  }
  return found
}

interface ChatDelta {
  contactId: number
  userId: number
  count: number
  lastId: number
  lastAt: Date
}

/**
 * Inserts the messages in multi-row batches and folds them into their chats (count and
 * latest message by sent_at, then id). Call it inside a transaction.
 */
export async function importMessages(db: Database, companyId: CompanyId, messages: NewMessage[]): Promise<number> {
  const chats = new Map<string, ChatDelta>()
  for (let i = 0; i < messages.length; i += BATCH) {
    const inserted = await db
      .insert(whatsappMessages)
      .values(
        messages.slice(i, i + BATCH).map((m) => ({
          companyId,
          contactId: m.contactId,
          userId: m.userId,
          direction: m.direction,
          status: m.status,
          body: m.body,
          sentAt: sql`${m.sentAt}::timestamptz`,
        })),
      )
      .returning({ id: whatsappMessages.id, contactId: whatsappMessages.contactId, userId: whatsappMessages.userId, sentAt: messageColumns.sentAt })
    for (const row of inserted) {
      const key = `${row.contactId}:${row.userId}`
      const chat = chats.get(key)
      if (!chat) {
        chats.set(key, { contactId: row.contactId, userId: row.userId, count: 1, lastId: row.id, lastAt: row.sentAt })
        continue
      }
      chat.count += 1
      if (row.sentAt > chat.lastAt || (row.sentAt.getTime() === chat.lastAt.getTime() && row.id > chat.lastId)) {
        chat.lastId = row.id
        chat.lastAt = row.sentAt
      }
    }
  }
  // A fixed order, so concurrent imports lock chat rows in the same order (no deadlock).
  const deltas = [...chats.values()].sort((a, b) => a.contactId - b.contactId || a.userId - b.userId)
  for (let i = 0; i < deltas.length; i += BATCH) {
    await db
      .insert(whatsappChats)
      .values(
        deltas.slice(i, i + BATCH).map((d) => ({
          companyId,
          contactId: d.contactId,
          userId: d.userId,
          messagesCount: d.count,
          lastMessageId: d.lastId,
          lastMessageAt: d.lastAt,
        })),
      )
      .onConflictDoUpdate({
        target: [whatsappChats.companyId, whatsappChats.contactId, whatsappChats.userId],
        set: {
          messagesCount: sql`${whatsappChats.messagesCount} + excluded.messages_count`,
          lastMessageId: sql`case
            when (excluded.last_message_at, excluded.last_message_id) > (${whatsappChats.lastMessageAt}, ${whatsappChats.lastMessageId})
            then excluded.last_message_id else ${whatsappChats.lastMessageId} end`,
          lastMessageAt: sql`greatest(excluded.last_message_at, ${whatsappChats.lastMessageAt})`,
        },
      })
  }
  return messages.length
}

function chatFilter(companyId: CompanyId, contactId: number, userId: number | undefined) {
  return and(
    eq(whatsappChats.companyId, companyId),
    eq(whatsappChats.contactId, contactId),
    userId === undefined ? undefined : eq(whatsappChats.userId, userId),
  )
}

export async function listMessages(
  db: Database,
  companyId: CompanyId,
  contactId: number,
  userId: number | undefined,
  page: Page,
): Promise<MessageRow[]> {
  return db
    .select(messageColumns)
    .from(whatsappMessages)
    .where(and(
      eq(whatsappMessages.companyId, companyId),
      eq(whatsappMessages.contactId, contactId),
      userId === undefined ? undefined : eq(whatsappMessages.userId, userId),
    ))
    .orderBy(newestFirst(whatsappMessages.sentAt), newestFirst(whatsappMessages.id))
    .limit(page.limit)
    .offset(page.offset)
}

/** The messages of a contact (with one user): summed from its chats, not counted. */
export async function countMessages(db: Database, companyId: CompanyId, contactId: number, userId: number | undefined) {
  const [row] = await db.select({ n: sum(whatsappChats.messagesCount).mapWith(Number) }).from(whatsappChats).where(chatFilter(companyId, contactId, userId))
  return row?.n ?? 0
}

export async function listChats(
  db: Database,
  companyId: CompanyId,
  contactId: number,
  userId: number | undefined,
  page: Page,
): Promise<{ chat: ChatRow; message: MessageRow }[]> {
  return db
    .select({ chat: chatColumns, message: messageColumns })
    .from(whatsappChats)
    .innerJoin(whatsappMessages, and(
      eq(whatsappMessages.companyId, whatsappChats.companyId),
      eq(whatsappMessages.id, whatsappChats.lastMessageId),
    ))
    .where(chatFilter(companyId, contactId, userId))
    .orderBy(newestFirst(whatsappChats.lastMessageAt), newestFirst(whatsappChats.lastMessageId))
    .limit(page.limit)
    .offset(page.offset)
}

export async function countChats(db: Database, companyId: CompanyId, contactId: number, userId: number | undefined) {
  const [row] = await db.select({ n: count() }).from(whatsappChats).where(chatFilter(companyId, contactId, userId))
  return row?.n ?? 0
}
