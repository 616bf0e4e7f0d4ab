// The tasks-api module's public face: the tasks' operations, done by hand or made by flows, above contacts.
export { tasksCommands } from './tasks-api.cli.js'
export { default as tasksRoutes } from './tasks-api.routes.js'
export { completeOpenTask, completeTask, createTask, createTasks, defaultTitle, getTask, tasksPage } from './tasks-api.service.js'
