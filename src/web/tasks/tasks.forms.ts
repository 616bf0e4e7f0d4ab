// The Tasks pages' addresses and forms, as TypeBox schemas read with the API's validation:
// the list's view (tab, kind, flow, assignee, page) and New task, which is the API's body.
import { Type, type Static } from 'typebox'
import { MAX_ID } from '../../http/schemas.js'
import { TaskCreateBody, TasksListQuery } from '../../modules/tasks/index.js'

export const TASK_TABS = ['today', 'overdue', 'upcoming', 'done'] as const
export type TaskTab = (typeof TASK_TABS)[number]

/** `assignee`: a user's id, or `anyone` (admins only; members see their own tasks). */
export const ANYONE = 'anyone'

/** The address of the tasks list. */
export const TasksView = Type.Object({
  tab: Type.Optional(Type.Enum(TASK_TABS)),
  kind: TasksListQuery.properties.kind,
  flow_id: TasksListQuery.properties.flow_id,
  assignee: Type.Optional(Type.String({ pattern: `^(${ANYONE}|[1-9][0-9]{0,15})$` })),
  page: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_ID })),
})
export type TasksView = Static<typeof TasksView>

/** New task: the API's POST /tasks body. */
export const NewTaskForm = TaskCreateBody
export type NewTaskForm = Static<typeof NewTaskForm>

/** Mark done: where to go back to (a tasks list or a contact's page of this site). */
export const MarkDoneForm = Type.Object({
  back: Type.Optional(Type.String({ maxLength: 2000, pattern: '^/(tasks|contacts)(/[0-9]+)?(\\?[A-Za-z0-9_=&%.-]*)?$' })),
})
