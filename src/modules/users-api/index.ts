// This file is the users-api module's public face: it exports the operations on users and
// companies (routes, rules and commands). The module sits above audit, because its operations
// record audits, and above ../users/, which holds the statements.
export { usersCommands } from './users-api.cli.js'
export { default as usersRoutes } from './users-api.routes.js'
export { createUser, isFreshDatabase, listUsers, requireActiveUser, requireCompany } from './users-api.service.js'
