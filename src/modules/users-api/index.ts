// The users-api module's public face: the operations on users and companies (routes, rules,
// commands), above audit (they record audits) and ../users/ (the statements).
export { usersCommands } from './users-api.cli.js'
export { default as usersRoutes } from './users-api.routes.js'
export { createUser, isFreshDatabase, listUsers, requireActiveUser, requireCompany } from './users-api.service.js'
