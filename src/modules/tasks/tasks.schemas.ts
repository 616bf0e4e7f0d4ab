import { Type, type Static } from 'typebox'
import { DateParam, Id, MAX_ID, NonBlank, Nullable, PagedList, PageParams, Ref, Timestamp, Timestamps } from '../../http/schemas.js'
import { SyncList, SyncParams } from '../../http/sync.js'

export const TASK_KINDS = ['phonecall', 'email', 'linkedin', 'social', 'meeting'] as const
export const TaskKind = Type.Enum(TASK_KINDS)
export type TaskKind = Static<typeof TaskKind>

export const OPEN_STATUSES = ['today', 'overdue', 'future'] as const
export type OpenStatus = (typeof OPEN_STATUSES)[number]

/** The reference's example of a task (the Enrollment example shows one too). */
export const TASK_EXAMPLE = {
  id: 812,
  kind: 'phonecall',
  title: 'Intro call',
  due_date: '2026-03-10',
  done: false,
  done_at: null,
  status: 'today',
  assigned_to_id: 3,
  flow_id: 7,
  contact_id: 1204,
  created_at: '2026-03-07T13:02:11.000Z',
  updated_at: '2026-03-07T13:02:11.000Z',
} as const

export const Task = Type.Object({
  id: Type.Integer(),
  kind: TaskKind,
  title: Type.String(),
  due_date: Type.String({ format: 'date' }),
  done: Type.Boolean(),
  done_at: Nullable(Timestamp),
  status: Type.Enum(['done', ...OPEN_STATUSES], {
    description: 'done, or for an open task its due date against today in the company time zone',
  }),
  assigned_to_id: Type.Integer(),
  flow_id: Nullable(Type.Integer({ description: 'null for a task outside any flow' })),
  contact_id: Type.Integer(),
  ...Timestamps,
}, {
  $id: 'Task',
  description: 'A task about a contact: made by a flow, or by the admin command line',
  examples: [TASK_EXAMPLE],
})
export type Task = Static<typeof Task>

/** The contact a task is made for, as the task writes read it: its owner is the default assignee, its name the default title. */
export const TaskContact = Type.Object(
  {
    id: Type.Integer(),
    company_id: Type.Integer(),
    user_id: Type.Integer({ description: 'the owner' }),
    first_name: Type.String(),
    last_name: Nullable(Type.String()),
  },
  { $id: 'TaskContact' },
)

// The blocks of http/schemas.ts, with a description for the reference.
const Day = (description: string) => Type.Optional(Type.String({ format: 'date', description }))
const RefId = (description: string) => Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_ID, description }))
const Flag = (description: string) => Type.Optional(Type.Literal(true, { description }))

export const TasksListQuery = Type.Object({
  page: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_ID, description: 'required, except in an `updated_since` walk' })),
  per_page: PageParams.per_page,
  ...SyncParams,
  assigned_to_id: RefId('tasks assigned to this user'),
  start_done_date: Day('finished on or after this day (in the company time zone)'),
  end_done_date: Day('finished on or before this day (in the company time zone)'),
  start_due_date: Day('due on or after this day'),
  end_due_date: Day('due on or before this day'),
  kind: Type.Optional(TaskKind),
  flow_id: RefId('tasks created by this flow'),
  contact_id: RefId('tasks about this contact'),
  done: Flag('finished tasks only'),
  undone: Flag('open tasks only'),
  status: Type.Optional(Type.Enum(OPEN_STATUSES, {
    description: 'open tasks due today, before today (overdue) or after today (future), in the company time zone',
  })),
})
export type TasksListQuery = Static<typeof TasksListQuery>

export const TasksPage = PagedList(Task, 'TaskPage', 'A page of tasks, by due date then id')
export const TasksSyncPage = SyncList(Ref(Task), 'TaskSyncPage', 'A page of an `updated_since` walk of the tasks')
export const TasksListResponse = Type.Union([Ref(TasksPage), Ref(TasksSyncPage)], {
  description: 'A page of tasks; with `updated_since` or `cursor`, a page of the walk',
})

/** The filters of the list, which a walk refuses. */
export const TASK_FILTERS = [
  'assigned_to_id', 'start_done_date', 'end_done_date', 'start_due_date', 'end_due_date', 'kind', 'flow_id', 'contact_id',
  'done', 'undone', 'status',
] as const

/** POST /tasks: a task outside any flow, about a contact of your company. */
export const TaskCreateBody = Type.Object({
  contact_id: Type.With(Id, { description: 'the contact the task is about, a live contact of your company' }),
  kind: TaskKind,
  due_date: Type.With(DateParam, { description: 'the due day (any day, past ones included)' }),
  title: Type.Optional(Type.With(NonBlank(), { description: 'default: from the kind and the contact name, "Call Ana Souza"' })),
  assigned_to_id: Type.Optional(Type.With(Id, { description: "a user of your company (default: the contact's owner)" })),
}, { examples: [{ contact_id: 1204, kind: 'phonecall', due_date: '2026-03-10', title: 'Intro call' }] })
export type TaskCreateBody = Static<typeof TaskCreateBody>

// Admin command line inputs (option names as typed: --assigned-to), with their help.
export const TaskCreateInput = Type.Object({
  contact: Type.With(Id, { placeholder: 'ID', description: 'the contact (its company owns the task)' }),
  kind: Type.With(TaskKind, { placeholder: 'K', description: 'phonecall, email, linkedin, social or meeting' }),
  due: Type.With(DateParam, { placeholder: 'yyyy-mm-dd', description: 'the due day (any day, past ones included)' }),
  title: Type.Optional(Type.With(NonBlank(), {
    placeholder: 'T',
    description: 'the title (default: from the kind and the contact name, "Call Ana Souza")',
  })),
  'assigned-to': Type.Optional(Type.With(Id, { placeholder: 'ID', description: "a user of the contact's company (default: the contact's owner)" })),
})
export type TaskCreateInput = Static<typeof TaskCreateInput>

export const TaskCompleteInput = Type.Object({ id: Type.With(Id, { placeholder: 'ID', description: 'the task id' }) })
export type TaskCompleteInput = Static<typeof TaskCompleteInput>
