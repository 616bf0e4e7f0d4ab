// The tasks module's public face: tasks, their statements, dates and counters.
export { counterPlan } from './task-counters.js'
export type { TaskFilter } from './task-counters.js'
export { addDays, dayIn } from './task-dates.js'
export {
  companyTaskIds,
  contactTaskIds,
  findTask,
  findTaskAnyCompany,
  insertTasks,
  tasksPageWithTotal,
  tasksWalkPage,
  taskWithContact,
  writeTaskDone,
} from './tasks.repository.js'
export type { TaskContactRecord, TaskRecord } from './tasks.repository.js'
export {
  Task,
  TASK_EXAMPLE,
  TASK_FILTERS,
  TASK_KINDS,
  TaskCompleteInput,
  TaskContact,
  TaskCreateBody,
  TaskCreateInput,
  TaskKind,
  TasksListQuery,
  TasksListResponse,
  TasksPage,
  TasksSyncPage,
} from './tasks.schemas.js'
export type { OpenStatus } from './tasks.schemas.js'
