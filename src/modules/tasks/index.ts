// The tasks module's public face: tasks, done by hand or made by flows.
export { addDays, dayIn } from './task-dates.js'
export { tasksCommands } from './tasks.cli.js'
export { companyTaskIds, contactTaskIds, firstLiveContacts, shareLockLiveContact, taskWithContact } from './tasks.repository.js'
export type { TaskContactRecord, TaskRecord } from './tasks.repository.js'
export { default as tasksRoutes } from './tasks.routes.js'
export { Task, TASK_EXAMPLE, TASK_KINDS, TaskCreateBody, TaskKind, TasksListQuery, TasksPage, TasksSyncPage } from './tasks.schemas.js'
export { completeOpenTask, completeTask, createTask, createTasks, defaultTitle, getTask, tasksPage } from './tasks.service.js'
