import { and, asc, count, eq, ilike, inArray, type SQL } from 'drizzle-orm'
import type { Database } from '../../db/client.js'
import { adjustCounter, readCounters } from '../../db/counters.js'
import { flowEnrollments, flows, flowSteps } from '../../db/schema.js'
import type { CompanyId } from '../../tenancy.js'

export type FlowRow = typeof flows.$inferSelect
export type FlowStepRow = typeof flowSteps.$inferSelect
export type EnrollmentRow = typeof flowEnrollments.$inferSelect

/** Active enrollments per flow, key = flow id: `contacts_count`. */
const FLOW_CONTACTS = 'flows.contacts'

export interface FlowFilter {
  userId?: number | undefined
  search?: string | undefined
}

const escapeLike = (text: string) => text.replace(/[\\%_]/g, '\\$&')

function flowWhere(companyId: CompanyId, f: FlowFilter): SQL | undefined {
  return and(
    eq(flows.companyId, companyId),
    f.userId !== undefined ? eq(flows.userId, f.userId) : undefined,
    // ILIKE '%term%' is served by the trigram index flows_name_trgm_idx.
    f.search !== undefined ? ilike(flows.name, `%${escapeLike(f.search)}%`) : undefined,
  )
}

export async function listFlows(db: Database, companyId: CompanyId, f: FlowFilter, page: { limit: number; offset: number }) {
  return db.select().from(flows).where(flowWhere(companyId, f)).orderBy(asc(flows.id)).limit(page.limit).offset(page.offset)
}

/** Flows are few per company (a handful to thousands): an exact count is cheap. */
export async function countFlows(db: Database, companyId: CompanyId, f: FlowFilter): Promise<number> {
  const [row] = await db.select({ n: count() }).from(flows).where(flowWhere(companyId, f))
  return row?.n ?? 0
}

export async function findFlow(db: Database, companyId: CompanyId, id: number): Promise<FlowRow | undefined> {
  const [row] = await db.select().from(flows).where(and(eq(flows.companyId, companyId), eq(flows.id, id)))
  return row
}

/** The steps of several flows in one query, by flow then position. */
export async function stepsOfFlows(db: Database, companyId: CompanyId, flowIds: number[]): Promise<FlowStepRow[]> {
  if (flowIds.length === 0) return []
  return db
    .select()
    .from(flowSteps)
    .where(and(eq(flowSteps.companyId, companyId), inArray(flowSteps.flowId, flowIds)))
    .orderBy(asc(flowSteps.flowId), asc(flowSteps.position))
}

/** Active contacts per flow (0 when none), from the counter kept with the enrollments. */
export function contactCounts(db: Database, companyId: CompanyId, flowIds: number[]): Promise<Map<number, number>> {
  return readCounters(db, companyId, FLOW_CONTACTS, flowIds)
}

export async function insertFlow(
  db: Database,
  companyId: CompanyId,
  values: { userId: number; name: string; status: FlowRow['status'] },
  steps: Omit<FlowStepRow, 'companyId' | 'flowId'>[],
): Promise<{ flow: FlowRow; steps: FlowStepRow[] }> {
  const [flow] = await db.insert(flows).values({ companyId, ...values }).returning()
  if (!flow) throw new Error('insert returned no row')
  const stepRows = steps.length === 0
    ? []
    : await db.insert(flowSteps).values(steps.map((s) => ({ ...s, companyId, flowId: flow.id }))).returning()
  return { flow, steps: stepRows.sort((a, b) => a.position - b.position) }
}

/**
 * An active enrollment, counted in the flow's contacts_count; in the caller's transaction.
 * The partial unique index flow_enrollments_active_key refuses a second active one.
 */
export async function insertEnrollment(
  db: Database,
  companyId: CompanyId,
  values: { flowId: number; contactId: number; addedAt: Date },
): Promise<EnrollmentRow> {
  const [row] = await db
    .insert(flowEnrollments)
    .values({ companyId, ...values, status: 'active', createdAt: values.addedAt, updatedAt: values.addedAt })
    .returning()
  if (!row) throw new Error('insert returned no row')
  await adjustCounter(db, companyId, FLOW_CONTACTS, values.flowId, 1)
  return row
}

/**
 * Ends the active enrollments of a contact that is being deleted (in the caller's
 * transaction), so it leaves its flows' contacts_count; its tasks stay as history.
 */
export async function removeContactFromFlows(db: Database, companyId: CompanyId, contactId: number, at: Date) {
  const ended = await db
    .update(flowEnrollments)
    .set({ status: 'removed', updatedAt: at })
    .where(and(eq(flowEnrollments.companyId, companyId), eq(flowEnrollments.contactId, contactId), eq(flowEnrollments.status, 'active')))
    .returning({ flowId: flowEnrollments.flowId })
  for (const { flowId } of ended) await adjustCounter(db, companyId, FLOW_CONTACTS, flowId, -1)
}
