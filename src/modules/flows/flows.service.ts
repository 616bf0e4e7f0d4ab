import type { Database } from '../../db/client.js'
import { uniqueViolation } from '../../db/errors.js'
import { ApiError, invalid, notFound, refused, type ErrorDetails } from '../../errors.js'
import type { PageWindow } from '../../http/pagination.js'
import { validate } from '../../http/validation.js'
import type { Caller, CompanyId } from '../../tenancy.js'
import { recordEvent } from '../events/events.repository.js'
import { findUser } from '../users/users.repository.js'
import { requireCompany } from '../users/users.service.js'
import { addDays, dayIn } from '../tasks/task-dates.js'
import { lockLiveContact, type TaskContact, type TaskRow } from '../tasks/tasks.repository.js'
import { createTasks, toTask } from '../tasks/tasks.service.js'
import {
  contactCounts,
  countFlows,
  findFlow,
  insertEnrollment,
  insertFlow,
  listFlows,
  stepsOfFlows,
  type EnrollmentRow,
  type FlowRow,
  type FlowStepRow,
} from './flows.repository.js'
import {
  FlowStepInput,
  MAX_STEPS,
  type Enrollment,
  type Flow,
  type FlowCreateInput,
  type FlowsListQuery,
} from './flows.schemas.js'

/** The one row → API mapping of a flow. */
export const toFlow = (row: FlowRow, steps: FlowStepRow[], contactsCount: number): Flow => ({
  id: row.id,
  name: row.name,
  user_id: row.userId,
  status: row.status,
  steps: steps.map((s) => ({ position: s.position, day: s.day, kind: s.kind, title: s.title })),
  contacts_count: contactsCount,
  created_at: row.createdAt,
  updated_at: row.updatedAt,
})

export const toEnrollment = (row: EnrollmentRow, tasks: TaskRow[], today: string): Enrollment => ({
  id: row.id,
  flow_id: row.flowId,
  contact_id: row.contactId,
  status: row.status,
  added_at: row.addedAt,
  tasks: tasks.map((t) => toTask(t, today)),
  created_at: row.createdAt,
  updated_at: row.updatedAt,
})

/** A page of flows with their steps and contact counts: three queries whatever the page size. */
export async function flowsPage(db: Database, companyId: CompanyId, query: FlowsListQuery, window: PageWindow) {
  const filter = { userId: query.user_id, search: query.search_term }
  const total = await countFlows(db, companyId, filter)
  const rows = window.offset < total ? await listFlows(db, companyId, filter, window) : []
  const ids = rows.map((r) => r.id)
  const [steps, counts] = await Promise.all([stepsOfFlows(db, companyId, ids), contactCounts(db, companyId, ids)])
  const data = rows.map((row) => toFlow(row, steps.filter((s) => s.flowId === row.id), counts.get(row.id) ?? 0))
  return { total, data }
}

/**
 * Enrolls a contact in a flow, in the caller's transaction: the enrollment, one task per
 * step (due `enrolledOn` + step day, assigned to the contact's owner) and the
 * `added_to_flow` event. Throws the unique violation of a second active enrollment.
 */
export async function enroll(
  tx: Database,
  companyId: CompanyId,
  e: { flow: FlowRow; steps: FlowStepRow[]; contact: TaskContact; enrolledOn: string; at: Date; userId: number | null },
) {
  const enrollment = await insertEnrollment(tx, companyId, { flowId: e.flow.id, contactId: e.contact.id, addedAt: e.at })
  const tasks = await createTasks(
    tx,
    companyId,
    e.contact,
    e.steps.map((step) => ({
      kind: step.kind,
      title: step.title,
      dueDate: addDays(e.enrolledOn, step.day),
      flowId: e.flow.id,
      enrollmentId: enrollment.id,
    })),
    { at: e.at },
  )
  await recordEvent(tx, companyId, {
    contactId: e.contact.id,
    kind: 'added_to_flow',
    userId: e.userId,
    data: { flow_id: e.flow.id, flow_name: e.flow.name, enrollment_id: enrollment.id, task_ids: tasks.map((t) => t.id) },
    occurredAt: e.at,
  })
  return { enrollment, tasks }
}

/** PUT /flows/:id/add_contact. */
export async function addContact(db: Database, caller: Caller, flowId: number, contactId: number, now: Date) {
  const { companyId } = caller
  const flow = await findFlow(db, companyId, flowId)
  if (!flow) throw notFound()
  const today = dayIn(now, caller.timezone)
  try {
    const { enrollment, tasks } = await db.transaction(async (tx) => {
      const contact = await lockLiveContact(tx, companyId, contactId)
      const problems: ErrorDetails = {}
      if (flow.status === 'paused') problems.base = ['flow is paused']
      if (!contact) problems.contact_id = ['does not exist']
      if (!contact || flow.status === 'paused') throw contact ? refused(problems) : invalid(problems)
      const steps = await stepsOfFlows(tx, companyId, [flow.id])
      return enroll(tx, companyId, { flow, steps, contact, enrolledOn: today, at: now, userId: caller.userId })
    })
    return toEnrollment(enrollment, tasks, today)
  } catch (err) {
    if (uniqueViolation(err) === 'flow_enrollments_active_key') {
      throw invalid({ contact_id: ['is already active in this flow'] })
    }
    throw err
  }
}

/** The --steps file's content: a JSON array of {day, kind, title}, checked step by step. */
export function parseSteps(text: string): FlowStepInput[] {
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch {
    throw invalid({ steps: ['is not valid JSON'] })
  }
  if (!Array.isArray(parsed)) throw invalid({ steps: ['must be a JSON array of {day, kind, title}'] })
  if (parsed.length === 0) throw invalid({ steps: ['must have at least 1 item'] })
  if (parsed.length > MAX_STEPS) throw invalid({ steps: [`must have at most ${MAX_STEPS} items`] })
  return parsed.map((step: unknown, i) => {
    try {
      return validate(FlowStepInput, step)
    } catch (err) {
      if (!(err instanceof ApiError) || !err.details) throw err
      const details = Object.entries(err.details).map(([field, problems]) => [`steps[${i}].${field}`, problems])
      throw invalid(Object.fromEntries(details) as ErrorDetails)
    }
  })
}

/** `flow create`: a flow of a company, owned by one of its users. */
export async function createFlow(db: Database, input: FlowCreateInput, steps: FlowStepInput[]): Promise<Flow> {
  const companyId = await requireCompany(db, input.company)
  if (!(await findUser(db, companyId, input.user))) throw invalid({ user: ['is not a user of the company'] })
  const created = await db.transaction((tx) =>
    insertFlow(
      tx,
      companyId,
      { userId: input.user, name: input.name, status: input.status ?? 'active' },
      steps.map((s, i) => ({ position: i + 1, day: s.day, kind: s.kind, title: s.title })),
    ),
  )
  return toFlow(created.flow, created.steps, 0)
}
