// Contact events are written by the service that makes the change, inside its transaction.
import type { Database } from '../../db/client.js'
import { contactEvents } from '../../db/schema.js'
import type { CompanyId } from '../../tenancy.js'

export type ContactEventKind = (typeof contactEvents.$inferInsert)['kind']

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
