// This file is the tasks-api module's public face: it exports the operations on tasks, done by hand
// or made by flows, which sit above contacts.
export { tasksCommands } from './tasks-api.cli.js'
export { default as tasksRoutes } from './tasks-api.routes.js'
export { completeOpenTask, completeTask, createTask, createTasks, defaultTitle, getTask, tasksPage } from './tasks-api.service.js'
