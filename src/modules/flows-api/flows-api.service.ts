import { transaction, type Db } from '../../db/db.js'
import { uniqueViolation } from '../../db/pg-errors.js'
import { ApiError, invalid, notFound, refused, type ErrorDetails } from '../../errors.js'
import { readPage } from '../../http/pagination.js'
import { validate } from '../../http/validation.js'
import type { Caller, CompanyId } from '../../tenancy.js'
import { recordContactEvent } from '../events/index.js'
import type { Acting } from '../../acting.js'
import { recordAudit } from '../audit/index.js'
import { findUser } from '../users/index.js'
import { requireCompany } from '../users-api/index.js'
import { shareLockLiveContact } from '../contacts/index.js'
import { addDays, dayIn, type TaskContactRecord, type TaskRecord } from '../tasks/index.js'
import { createTasks } from '../tasks-api/index.js'
import { recordApiEvents } from '../outbox/index.js'
import * as flows from '../flows/index.js'
import { FlowStepInput, MAX_STEPS, type Enrollment, type Flow, type FlowCreateBody, type FlowCreateInput, type FlowUpdateBody, type FlowsListQuery } from '../flows/index.js'

/** Reads a page of flows with their steps and contact counts in one statement, whatever the page size. */
export function flowsPage(db: Db, caller: Caller, query: FlowsListQuery) {
  return readPage(query, (window) => flows.flowsPageWithTotal(db, caller.companyId, { userId: query.user_id, search: query.search_term }, window))
}

/**
 * Enrolls a contact in a flow in the caller's transaction. It writes the enrollment, one task
 * per step (due `enrolledOn` plus the step's day, assigned to the contact's owner, with its
 * status as of `enrolledOn`, the caller's today), the `added_to_flow` event, and last the flow's
 * contacts_count, so that its counter row stays locked only from then until COMMIT. A second
 * active enrollment throws its unique violation.
 */
export async function enroll(
  tx: Db,
  companyId: CompanyId,
  e: { flow: Pick<flows.FlowForEnrollment, 'id' | 'name' | 'steps'>; contact: TaskContactRecord; enrolledOn: string; at: Date; userId: number | null; count?: boolean },
): Promise<{ enrollment: flows.EnrollmentRecord; tasks: TaskRecord[] }> {
  const enrollment = await flows.insertEnrollment(tx, companyId, { flowId: e.flow.id, contactId: e.contact.id, addedAt: e.at })
  const tasks = await createTasks(
    tx,
    companyId,
    e.contact,
    e.flow.steps.map((step) => ({
      kind: step.kind,
      title: step.title,
      dueDate: addDays(e.enrolledOn, step.day),
      flowId: e.flow.id,
      enrollmentId: enrollment.id,
    })),
    { today: e.enrolledOn, at: e.at },
  )
  await recordContactEvent(tx, companyId, {
    contactId: e.contact.id,
    kind: 'added_to_flow',
    userId: e.userId,
    data: { flow_id: e.flow.id, flow_name: e.flow.name, enrollment_id: enrollment.id, task_ids: tasks.map((t) => t.id) },
    occurredAt: e.at,
  })
  // Several enrollments in one transaction count once, at its end (`count: false`).
  if (e.count !== false) await flows.countEnrollment(tx, companyId, e.flow.id)
  return { enrollment, tasks }
}

/** Adds one contact to a flow, for PUT /flows/:id/add_contact. */
export async function addContact(db: Db, caller: Caller, flowId: number, contactId: number): Promise<Enrollment> {
  const { companyId, now } = caller
  // The flow is read before the transaction: its steps change only as a whole (changeFlow), so
  // an enrollment that races an edit gets the steps of just before it, as if it came first.
  const flow = await flows.findFlowForEnrollment(db, companyId, flowId)
  if (!flow) throw notFound()
  const today = dayIn(now, caller.timezone)
  try {
    return await transaction(db, async (tx) => {
      const contact = await shareLockLiveContact(tx, companyId, contactId)
      const problems: ErrorDetails = {}
      if (flow.status === 'paused') problems.base = ['flow is paused']
      if (!contact) problems.contact_id = ['does not exist']
      if (!contact || flow.status === 'paused') throw contact ? refused(problems) : invalid(problems)
      const { enrollment, tasks: apiTasks } = await enroll(tx, companyId, { flow, contact, enrolledOn: today, at: now, userId: caller.userId })
      const { created_at, updated_at, ...head } = enrollment
      // The record is rebuilt in the API's key order, because Enrollment puts the tasks before the timestamps.
      const record: Enrollment = { ...head, tasks: apiTasks, created_at, updated_at }
      // Its webhook events are written last, after the flow's counter, in one statement for all of them.
      await recordApiEvents(tx, companyId, [
        { type: 'contact.added_to_flow', data: record },
        ...apiTasks.map((task) => ({ type: 'task.created' as const, data: task })),
      ], now)
      return record
    })
  } catch (err) {
    if (uniqueViolation(err) === 'flow_enrollments_active_key') {
      throw invalid({ contact_id: ['is already active in this flow'] })
    }
    throw err
  }
}

/** Says what adding several contacts to a flow did: the enrollments it made, and the contacts that were already in the flow. */
export interface AddedContacts {
  added: Enrollment[]
  /** These contacts were already active in the flow and are left as they were. */
  already: number[]
}

/**
 * Adds up to 100 contacts to a flow in one transaction, for the workspace's Add to flow. Each
 * is added exactly as PUT /flows/:id/add_contact adds one (tasks, event, webhook events), except
 * that a contact already active in the flow is skipped and reported rather than refused. A
 * contact that is not one of the company's live contacts refuses the whole request with 422,
 * and nothing is added.
 */
export async function addContacts(db: Db, caller: Caller, flowId: number, contactIds: number[]): Promise<AddedContacts> {
  const { companyId, now } = caller
  const ids = [...new Set(contactIds)].sort((a, b) => a - b)
  if (ids.length === 0 || ids.length > 100) throw invalid({ contact_ids: ['must name 1 to 100 contacts'] })
  const flow = await flows.findFlowForEnrollment(db, companyId, flowId)
  if (!flow) throw invalid({ flow_id: ['does not exist'] })
  if (flow.status === 'paused') throw refused({ base: ['flow is paused'] })
  const today = dayIn(now, caller.timezone)
  return transaction(db, async (tx) => {
    // The contacts are locked in id order, as every writer of several contacts locks them, so that
    // two writers never wait on each other.
    const contacts: TaskContactRecord[] = []
    for (const id of ids) {
      const contact = await shareLockLiveContact(tx, companyId, id)
      if (!contact) throw invalid({ contact_ids: [`${String(id)} does not exist`] })
      contacts.push(contact)
    }
    const active = await flows.activeContactsIn(tx, companyId, flow.id, ids)
    const added: Enrollment[] = []
    const apiEvents: Parameters<typeof recordApiEvents>[2] = []
    for (const contact of contacts.filter((c) => !active.has(c.id))) {
      const { enrollment, tasks: apiTasks } = await enroll(tx, companyId, { flow, contact, enrolledOn: today, at: now, userId: caller.userId, count: false })
      const { created_at, updated_at, ...head } = enrollment
      const record: Enrollment = { ...head, tasks: apiTasks, created_at, updated_at }
      added.push(record)
      apiEvents.push({ type: 'contact.added_to_flow', data: record }, ...apiTasks.map((task) => ({ type: 'task.created' as const, data: task })))
    }
    if (added.length > 0) {
      await flows.countEnrollment(tx, companyId, flow.id, added.length)
      await recordApiEvents(tx, companyId, apiEvents, now)
    }
    return { added, already: ids.filter((id) => active.has(id)) }
  })
}

/**
 * Parses the --steps content, a JSON array of {day, kind, title}, and checks it step by step so
 * that an error names the step at fault.
 */
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

/** Returns a flow of the caller's company with its steps, for GET /flows/:id. */
export async function getFlow(db: Db, caller: Pick<Caller, 'companyId'>, id: number): Promise<Flow> {
  const flow = await flows.findFlow(db, caller.companyId, id)
  if (!flow) throw notFound()
  return flow
}

const numbered = (steps: FlowStepInput[]): Flow['steps'] => steps.map((s, i) => ({ position: i + 1, day: s.day, kind: s.kind, title: s.title }))

/**
 * Creates a flow of the company owned by `acting.userId`, for POST /flows, `flow create` and
 * the workspace's New flow. It writes the `flow.created` audit record.
 */
export async function createFlow(db: Db, acting: Pick<Caller, 'companyId' | 'userId'> & Acting, input: FlowCreateBody): Promise<Flow> {
  const { companyId, now, audit: context } = acting
  return transaction(db, async (tx) => {
    const flow = await flows.insertFlow(tx, companyId, { userId: acting.userId, name: input.name, status: input.status ?? 'active' }, numbered(input.steps))
    await recordAudit(tx, companyId, context, {
      action: 'flow.created',
      target: { id: flow.id, label: flow.name },
      changes: { name: [null, flow.name], user_id: [null, flow.user_id], status: [null, flow.status], steps: [null, flow.steps.length] },
    }, now)
    return flow
  })
}

/**
 * Changes the name, the status and the steps given (the steps as a whole), for PUT /flows/:id
 * and the workspace's flow edit. Contacts already in the flow keep the tasks they have, and
 * contacts added later get the new steps. It writes the `flow.changed` audit record when
 * anything changed.
 */
export async function changeFlow(db: Db, acting: Pick<Caller, 'companyId'> & Acting, id: number, input: FlowUpdateBody): Promise<Flow> {
  const { companyId, now, audit: context } = acting
  return transaction(db, async (tx) => {
    if (!(await flows.lockFlow(tx, companyId, id))) throw notFound()
    const before = await flows.findFlow(tx, companyId, id)
    if (!before) throw notFound()
    const steps = input.steps === undefined ? undefined : numbered(input.steps)
    const changes: Record<string, [unknown, unknown]> = {}
    if (input.name !== undefined && input.name !== before.name) changes.name = [before.name, input.name]
    if (input.status !== undefined && input.status !== before.status) changes.status = [before.status, input.status]
    if (steps !== undefined && JSON.stringify(steps) !== JSON.stringify(before.steps)) changes.steps = [before.steps.length, steps.length]
    if (Object.keys(changes).length === 0) return before
    await flows.updateFlow(tx, companyId, id, { name: input.name, status: input.status, at: now })
    if (changes.steps && steps) await flows.replaceSteps(tx, companyId, id, steps)
    const after = await flows.findFlow(tx, companyId, id)
    if (!after) throw new Error('flow vanished inside its transaction')
    await recordAudit(tx, companyId, context, { action: 'flow.changed', target: { id, label: after.name }, changes }, now)
    return after
  })
}

/**
 * Runs `createFlow` for the `flow create` command, in the company it names, for a flow owned by one
 * of that company's users.
 */
export async function createFlowCommand(db: Db, acting: Acting, input: FlowCreateInput, steps: FlowStepInput[]): Promise<Flow> {
  const companyId = await requireCompany(db, input.company)
  if (!(await findUser(db, companyId, input.user))) throw invalid({ user: ['is not a user of the company'] })
  const body: FlowCreateBody = { name: input.name, steps }
  if (input.status !== undefined) body.status = input.status
  return createFlow(db, { ...acting, companyId, userId: input.user }, body)
}
