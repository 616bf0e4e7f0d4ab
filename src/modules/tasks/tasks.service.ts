import { transaction, type Db } from '../../db/db.js'
import { ApiError, invalid } from '../../errors.js'
import { pageWindow, readPage, type ListPage, type PageRequest } from '../../http/pagination.js'
import { walkPage, withoutSyncAt, type WalkRequest } from '../../http/sync.js'
import { exclusiveFlags } from '../../http/validation.js'
import { asCompanyId, type Caller, type CompanyId } from '../../tenancy.js'
import { findCompany, findUser } from '../users/users.repository.js'
import { recordEvent as recordApiEvent } from '../webhooks/outbox.js'
import type { Acting } from '../audit/audit.context.js'
import { recordAudit } from '../audit/audit.service.js'
import { counterPlan, type TaskFilter } from './task-counters.js'
import { addDays, dayIn } from './task-dates.js'
import {
  completeTask as markDone,
  findLiveContactAnyCompany,
  findTaskAnyCompany,
  insertTasks,
  lockLiveContact,
  tasksPageWithTotal,
  tasksWalkPage,
  type TaskContact,
  type TaskRow,
} from './tasks.repository.js'
import type { OpenStatus, Task, TaskCompleteInput, TaskCreateInput, TaskKind, TasksListQuery } from './tasks.schemas.js'

export function taskStatus(task: { done: boolean; dueDate: string }, today: string): Task['status'] {
  if (task.done) return 'done'
  if (task.dueDate < today) return 'overdue'
  return task.dueDate === today ? 'today' : 'future'
}

/**
 * A written task (as the write statements return it) in its API shape; `today` is the
 * company's day (for `status`). Reads come out of the database in this shape already.
 */
export const toTask = (row: TaskRow, today: string): Task => ({
  id: row.id,
  kind: row.kind,
  title: row.title,
  due_date: row.dueDate,
  done: row.done,
  done_at: row.doneAt,
  status: taskStatus(row, today),
  assigned_to_id: row.assignedToId,
  flow_id: row.flowId,
  contact_id: row.contactId,
  created_at: row.createdAt,
  updated_at: row.updatedAt,
})

const STATUS_DAYS: Record<OpenStatus, (today: string) => { dueFrom?: string; dueTo?: string }> = {
  today: (today) => ({ dueFrom: today, dueTo: today }),
  overdue: (today) => ({ dueTo: addDays(today, -1) }),
  future: (today) => ({ dueFrom: addDays(today, 1) }),
}

const later = (a: string | undefined, b: string | undefined) => (a === undefined ? b : b === undefined || a > b ? a : b)
const earlier = (a: string | undefined, b: string | undefined) => (a === undefined ? b : b === undefined || a < b ? a : b)

/**
 * The list parameters as one filter: `status` is open tasks in a due-date range, a done-date
 * bound implies done. Undefined when the parameters contradict each other (nothing matches).
 */
export function taskFilter(query: TasksListQuery, today: string): TaskFilter | undefined {
  const byDoneDate = query.start_done_date !== undefined || query.end_done_date !== undefined
  let done = query.done ? true : query.undone ? false : undefined
  if (query.status !== undefined || byDoneDate) {
    const wanted = query.status === undefined
    if (done === !wanted || (query.status !== undefined && byDoneDate)) return undefined
    done = wanted
  }
  const status = query.status === undefined ? {} : STATUS_DAYS[query.status](today)
  const dueFrom = later(query.start_due_date, status.dueFrom)
  const dueTo = earlier(query.end_due_date, status.dueTo)
  return {
    assignedToId: query.assigned_to_id,
    flowId: query.flow_id,
    contactId: query.contact_id,
    kind: query.kind,
    done,
    dueFrom,
    dueTo,
    doneFrom: query.start_done_date,
    doneTo: query.end_done_date,
  }
}

/** A page of an updated_since walk of the tasks (src/http/sync.ts); `status` as of the request's day. */
export function tasksWalk(db: Db, caller: Caller, walk: WalkRequest) {
  const today = dayIn(walk.now, caller.timezone)
  return walkPage(db, { ...walk, resource: 'tasks', companyId: caller.companyId }, (window) =>
    tasksWalkPage(db, caller.companyId, window, today), withoutSyncAt)
}

/** One page of the caller's tasks, and the total: one statement. */
export async function tasksPage(db: Db, caller: Caller, query: TasksListQuery & PageRequest): Promise<ListPage> {
  exclusiveFlags(query, 'done', 'undone')
  const today = dayIn(caller.now, caller.timezone)
  const filter = taskFilter(query, today)
  if (!filter) return { window: pageWindow(query), total: 0, data: [] }
  return readPage(query, (window) => tasksPageWithTotal(db, caller.companyId, filter, counterPlan(filter), today, window))
}

export interface PlannedTask {
  kind: TaskKind
  title: string
  dueDate: string
  flowId?: number
  enrollmentId?: number
}

/**
 * Open tasks about `contact`, in the caller's transaction; assigned to the contact's owner
 * unless `assignedToId` says otherwise, created `at` (default: the database's now).
 */
export function createTasks(
  tx: Db,
  companyId: CompanyId,
  contact: TaskContact,
  planned: PlannedTask[],
  options: { assignedToId?: number | undefined; at?: Date } = {},
): Promise<TaskRow[]> {
  return insertTasks(
    tx,
    companyId,
    planned.map((p) => ({
      kind: p.kind,
      title: p.title,
      dueDate: p.dueDate,
      assignedToId: options.assignedToId ?? contact.userId,
      flowId: p.flowId ?? null,
      enrollmentId: p.enrollmentId ?? null,
      contactId: contact.id,
    })),
    options.at,
  )
}

/**
 * Completes an open task at `at` (done_on: that instant's day in the company zone) and
 * writes `task_completed` on its contact, in one statement; undefined if it was done already.
 */
export function completeOpenTask(
  tx: Db,
  companyId: CompanyId,
  taskId: number,
  at: Date,
  timezone: string,
  userId: number | null,
): Promise<TaskRow | undefined> {
  return markDone(tx, companyId, taskId, at, dayIn(at, timezone), userId)
}

const DEFAULT_TITLE: Record<TaskKind, string> = {
  phonecall: 'Call',
  email: 'Email',
  linkedin: 'LinkedIn message to',
  social: 'Social touch with',
  meeting: 'Meeting with',
}

/** "Call Ana Souza": the title of a task created without one, at most 255 characters. */
export function defaultTitle(kind: TaskKind, contact: Pick<TaskContact, 'firstName' | 'lastName'>): string {
  const name = [contact.firstName, contact.lastName].filter((part) => part).join(' ')
  // Code points, as the contract counts string lengths.
  return Array.from(`${DEFAULT_TITLE[kind]} ${name}`).slice(0, 255).join('')
}

async function companyZone(db: Db, companyId: CompanyId): Promise<string> {
  return (await findCompany(db, companyId))?.timezone ?? 'UTC'
}

/** `task create`: one task outside any flow, in the contact's company. */
export async function createStandaloneTask(db: Db, acting: Acting, input: TaskCreateInput): Promise<Task> {
  const { now, audit: context } = acting
  const found = await findLiveContactAnyCompany(db, input.contact)
  if (!found) throw invalid({ contact: ['does not exist'] })
  const companyId = asCompanyId(found.companyId)
  const assignee = input['assigned-to']
  if (assignee !== undefined && !(await findUser(db, companyId, assignee))) {
    throw invalid({ 'assigned-to': ['is not a user of the contact company'] })
  }
  const today = dayIn(now, await companyZone(db, companyId))
  return transaction(db, async (tx) => {
    const contact = await lockLiveContact(tx, companyId, found.id)
    if (!contact) throw invalid({ contact: ['does not exist'] })
    const title = input.title ?? defaultTitle(input.kind, contact)
    const [created] = await createTasks(tx, companyId, contact, [{ kind: input.kind, title, dueDate: input.due }], {
      assignedToId: assignee,
      at: now,
    })
    if (!created) throw new Error('insert returned no row')
    const task = toTask(created, today)
    await recordApiEvent(tx, companyId, 'task.created', task, now)
    await recordAudit(tx, companyId, context, {
      action: 'task.created',
      target: { id: task.id, label: task.title },
      changes: { contact_id: [null, task.contact_id], kind: [null, task.kind], due_date: [null, task.due_date], assigned_to_id: [null, task.assigned_to_id] },
    }, now)
    return task
  })
}

/** `task complete`: done now; refused for a task that is done already. */
export async function completeTaskCommand(db: Db, acting: Acting, input: TaskCompleteInput): Promise<Task> {
  const { now, audit: context } = acting
  const task = await findTaskAnyCompany(db, input.id)
  if (!task) throw new ApiError(404, `task ${input.id} not found`)
  const companyId = asCompanyId(task.companyId)
  const timezone = await companyZone(db, companyId)
  // The completion, then its webhook event (recorded in the outbox, outbox.ts).
  return transaction(db, async (tx) => {
    const row = await completeOpenTask(tx, companyId, task.id, now, timezone, null)
    if (!row) throw new ApiError(422, `task ${input.id} is already done`)
    const done = toTask(row, dayIn(now, timezone))
    await recordApiEvent(tx, companyId, 'task.completed', done, now)
    await recordAudit(tx, companyId, context, { action: 'task.completed', target: { id: done.id, label: done.title }, changes: { done: [false, true] } }, now)
    return done
  })
}
