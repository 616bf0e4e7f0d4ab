import { transaction, type Db } from '../../db/db.js'
import { ApiError, invalid, notFound, refused, type ErrorDetails } from '../../errors.js'
import { pageWindow, readPage, type ListPage, type PageRequest } from '../../http/pagination.js'
import { walkingList, walkPage, withoutSyncAt, type WalkRequest } from '../../http/sync.js'
import { exclusiveFlags } from '../../http/validation.js'
import { asCompanyId, type Caller, type CompanyId } from '../../tenancy.js'
import { findCompany, findUser } from '../users/index.js'
import { recordApiEvent } from '../outbox/index.js'
import type { Acting } from '../../acting.js'
import { recordAudit } from '../audit/index.js'
import { findLiveContactAnyCompany, shareLockLiveContact } from '../contacts/index.js'
import {
  addDays,
  counterPlan,
  dayIn,
  findTask,
  findTaskAnyCompany,
  insertTasks,
  tasksPageWithTotal,
  tasksWalkPage,
  writeTaskDone,
  type OpenStatus,
  type Task,
  type TaskCompleteInput,
  type TaskContactRecord,
  type TaskCreateBody,
  type TaskCreateInput,
  type TaskFilter,
  type TaskKind,
  type TaskRecord,
  TASK_FILTERS,
  TasksListQuery,
  TasksListResponse,
  TasksPage,
} from '../tasks/index.js'

const STATUS_DAYS: Record<OpenStatus, (today: string) => { dueFrom?: string; dueTo?: string }> = {
  today: (today) => ({ dueFrom: today, dueTo: today }),
  overdue: (today) => ({ dueTo: addDays(today, -1) }),
  future: (today) => ({ dueFrom: addDays(today, 1) }),
}

const later = (a: string | undefined, b: string | undefined) => (a === undefined ? b : b === undefined || a > b ? a : b)
const earlier = (a: string | undefined, b: string | undefined) => (a === undefined ? b : b === undefined || a < b ? a : b)

/**
 * Turns the list parameters into one filter: `status` means open tasks in a due-date range, and
 * a done-date bound implies done tasks. It returns undefined when the parameters contradict each
 * other, because then nothing matches.
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

/** Reads one page of an updated_since walk of the tasks (src/http/sync.ts), with each `status` as of the request's day. */
export function tasksWalk(db: Db, caller: Caller, walk: WalkRequest) {
  const today = dayIn(walk.now, caller.timezone)
  return walkPage(db, { ...walk, resource: 'tasks', companyId: caller.companyId }, (window) =>
    tasksWalkPage(db, caller.companyId, window, today), withoutSyncAt)
}

/** Reads one page of the caller's tasks and their total in a single statement. */
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
 * Creates open tasks about `contact` in the caller's transaction and returns them as the API
 * shows them, with `status` taken against `today`, the company's day. The tasks are assigned to
 * the contact's owner unless `assignedToId` says otherwise, and created `at` the time given, or
 * at the database's now without one.
 */
export function createTasks(
  tx: Db,
  companyId: CompanyId,
  contact: TaskContactRecord,
  planned: PlannedTask[],
  options: { today: string; assignedToId?: number | undefined; at?: Date },
): Promise<TaskRecord[]> {
  return insertTasks(
    tx,
    companyId,
    planned.map((p) => ({
      kind: p.kind,
      title: p.title,
      dueDate: p.dueDate,
      assignedToId: options.assignedToId ?? contact.user_id,
      flowId: p.flowId ?? null,
      enrollmentId: p.enrollmentId ?? null,
      contactId: contact.id,
    })),
    options.today,
    options.at,
  )
}

/**
 * Completes an open task at `at`, with done_on set to that instant's day in the company's zone,
 * and writes `task_completed` on its contact in the same statement. It returns undefined when
 * the task was done already.
 */
export function completeOpenTask(
  tx: Db,
  companyId: CompanyId,
  taskId: number,
  at: Date,
  timezone: string,
  userId: number | null,
): Promise<TaskRecord | undefined> {
  return writeTaskDone(tx, companyId, taskId, at, dayIn(at, timezone), userId)
}

const DEFAULT_TITLE: Record<TaskKind, string> = {
  phonecall: 'Call',
  email: 'Email',
  linkedin: 'LinkedIn message to',
  social: 'Social touch with',
  meeting: 'Meeting with',
}

/** Builds the title of a task created without one, such as "Call Ana Souza", cut to 255 characters. */
export function defaultTitle(kind: TaskKind, contact: Pick<TaskContactRecord, 'first_name' | 'last_name'>): string {
  const name = [contact.first_name, contact.last_name].filter((part) => part).join(' ')
  // The cut counts code points, because the contract counts string lengths in code points.
  return Array.from(`${DEFAULT_TITLE[kind]} ${name}`).slice(0, 255).join('')
}

async function companyZone(db: Db, companyId: CompanyId): Promise<string> {
  return (await findCompany(db, companyId))?.timezone ?? 'UTC'
}

/**
 * Says who writes a task: the company and its time zone (which decides "today"), the user the
 * contact event names (null for the command line), the time and the audit context.
 */
export type TaskActing = Pick<Caller, 'companyId' | 'timezone'> & { readonly userId: number | null } & Acting

/** Returns a task of the caller's company, for GET /tasks/:id. */
export async function getTask(db: Db, caller: Caller, id: number): Promise<Task> {
  const task = await findTask(db, caller.companyId, id, dayIn(caller.now, caller.timezone))
  if (!task) throw notFound()
  return task
}

/**
 * Creates one task outside any flow about a live contact of the company, for POST /tasks,
 * `task create` and the workspace's New task. It writes the `task.created` webhook event and
 * audit record.
 */
export async function createTask(db: Db, acting: TaskActing, input: TaskCreateBody): Promise<Task> {
  const { companyId, now, audit: context } = acting
  const assignee = input.assigned_to_id
  if (assignee !== undefined && !(await findUser(db, companyId, assignee))) {
    throw invalid({ assigned_to_id: ['is not a user of the contact company'] })
  }
  const today = dayIn(now, acting.timezone)
  return transaction(db, async (tx) => {
    const contact = await shareLockLiveContact(tx, companyId, input.contact_id)
    if (!contact) throw invalid({ contact_id: ['does not exist'] })
    const title = input.title ?? defaultTitle(input.kind, contact)
    const [task] = await createTasks(tx, companyId, contact, [{ kind: input.kind, title, dueDate: input.due_date }], {
      today,
      assignedToId: assignee,
      at: now,
    })
    if (!task) throw new Error('insert returned no row')
    await recordApiEvent(tx, companyId, 'task.created', task, now)
    await recordAudit(tx, companyId, context, {
      action: 'task.created',
      target: { id: task.id, label: task.title },
      changes: { contact_id: [null, task.contact_id], kind: [null, task.kind], due_date: [null, task.due_date], assigned_to_id: [null, task.assigned_to_id] },
    }, now)
    return task
  })
}

/**
 * Marks an open task of the company done now, for PUT /tasks/:id/complete, `task complete` and
 * the workspace's Mark done. The `task_completed` contact event, the `task.completed` webhook
 * event and the audit record share its transaction, and a task that is done already is refused.
 */
export async function completeTask(db: Db, acting: TaskActing, id: number): Promise<Task> {
  const { companyId, now, audit: context } = acting
  const today = dayIn(now, acting.timezone)
  if (!(await findTask(db, companyId, id, today))) throw notFound()
  return transaction(db, async (tx) => {
    const done = await completeOpenTask(tx, companyId, id, now, acting.timezone, acting.userId)
    if (!done) throw refused({ base: ['task is already done'] })
    await recordApiEvent(tx, companyId, 'task.completed', done, now)
    await recordAudit(tx, companyId, context, { action: 'task.completed', target: { id: done.id, label: done.title }, changes: { done: [false, true] } }, now)
    return done
  })
}

/**
 * Maps the API's field names to the command line's options (`--contact`, `--assigned-to`), so that
 * an error names what the user typed.
 */
const OPTION_NAMES: Record<string, string> = { contact_id: 'contact', assigned_to_id: 'assigned-to', due_date: 'due' }

function withOptionNames(err: unknown): unknown {
  if (!(err instanceof ApiError) || !err.details) return err
  const details = Object.entries(err.details).map(([field, problems]) => [OPTION_NAMES[field] ?? field, problems])
  return new ApiError(err.statusCode, err.message, Object.fromEntries(details) as ErrorDetails, err.code)
}

/** Runs `createTask` for the `task create` command, in the company of the contact it names. */
export async function createStandaloneTask(db: Db, acting: Acting, input: TaskCreateInput): Promise<Task> {
  const found = await findLiveContactAnyCompany(db, input.contact)
  if (!found) throw invalid({ contact: ['does not exist'] })
  const companyId = asCompanyId(found.company_id)
  const timezone = await companyZone(db, companyId)
  const body: TaskCreateBody = { contact_id: found.id, kind: input.kind, due_date: input.due }
  if (input.title !== undefined) body.title = input.title
  if (input['assigned-to'] !== undefined) body.assigned_to_id = input['assigned-to']
  try {
    return await createTask(db, { ...acting, companyId, timezone, userId: null }, body)
  } catch (err) {
    throw withOptionNames(err)
  }
}

/** Runs `completeTask` for the `task complete` command, in the company of the task it names. */
export async function completeTaskCommand(db: Db, acting: Acting, input: TaskCompleteInput): Promise<Task> {
  const task = await findTaskAnyCompany(db, input.id)
  if (!task) throw new ApiError(404, `task ${input.id} not found`)
  const companyId = asCompanyId(task.company_id)
  const timezone = await companyZone(db, companyId)
  try {
    return await completeTask(db, { ...acting, companyId, timezone, userId: null }, task.id)
  } catch (err) {
    if (err instanceof ApiError && err.code === 'state_refused') throw new ApiError(422, `task ${input.id} is already done`)
    throw err
  }
}

/** GET /v1/tasks: the list's pages and its `updated_since` walk (walkingListRoute). */
export const TASKS_LIST = walkingList({
  resource: 'tasks', walkRefuses: TASK_FILTERS, pageNeeds: ['page'],
  query: TasksListQuery, response: TasksListResponse, pageSchema: TasksPage,
  walk: tasksWalk, page: tasksPage,
})
