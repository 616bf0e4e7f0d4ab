// The users module's public face: users and companies.
export { usersCommands } from './users.cli.js'
export {
  companyOfRow,
  companyUsersAmong,
  findCompany,
  findUser,
  findUserAnyCompany,
  hasAnyCompany,
  insertCompany,
  insertUser,
  lockUserAnyCompany,
  selectUsers,
  updateUserRole,
  updateUserSet,
  USER_RECORD,
  userOfRow,
} from './users.repository.js'
export type { UserRecord } from './users.repository.js'
export { default as usersRoutes } from './users.routes.js'
export {
  AuthorizeResponse,
  Company,
  CompanyOption,
  TokenCreateInput,
  TokenInfo,
  TokenRevokeInput,
  User,
  UserCreateInput,
  UserOption,
  UserSetRoleInput,
  UsersPage,
} from './users.schemas.js'
export { createUser, isFreshDatabase, listUsers, requireActiveUser, requireCompany } from './users.service.js'
