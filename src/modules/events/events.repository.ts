// Contact events are written by the service that makes the change, inside its transaction.
import { and, count, desc, eq } from 'drizzle-orm'
import type { Database } from '../../db/client.js'
import { contactEvents } from '../../db/schema.js'
import type { CompanyId } from '../../tenancy.js'

export type ContactEventKind = (typeof contactEvents.$inferInsert)['kind']
export type ContactEventRow = typeof contactEvents.$inferSelect

export interface NewContactEvent {
  contactId: number
  kind: ContactEventKind
  /** Who caused it; null for the admin command line. */
  userId: number | null
  data?: Record<string, unknown>
  occurredAt?: Date
}

export async function recordEvents(db: Database, companyId: CompanyId, events: NewContactEvent[]): Promise<void> {
  if (events.length === 0) return
  await db.insert(contactEvents).values(
    events.map((event) => ({
      companyId,
      contactId: event.contactId,
      kind: event.kind,
      userId: event.userId,
      data: event.data ?? {},
      ...(event.occurredAt ? { occurredAt: event.occurredAt } : {}),
    })),
  )
}

export const recordEvent = (db: Database, companyId: CompanyId, event: NewContactEvent) =>
  recordEvents(db, companyId, [event])

/** A page of a contact's events, newest first (id descending), through contact_events_contact_idx. */
export async function listContactEvents(
  db: Database,
  companyId: CompanyId,
  contactId: number,
  page: { limit: number; offset: number },
): Promise<ContactEventRow[]> {
  return db
    .select()
    .from(contactEvents)
    .where(and(eq(contactEvents.companyId, companyId), eq(contactEvents.contactId, contactId)))
    .orderBy(desc(contactEvents.id))
    .limit(page.limit)
    .offset(page.offset)
}

export async function countContactEvents(db: Database, companyId: CompanyId, contactId: number): Promise<number> {
  const [row] = await db
    .select({ n: count() })
    .from(contactEvents)
    .where(and(eq(contactEvents.companyId, companyId), eq(contactEvents.contactId, contactId)))
  return row?.n ?? 0
}
