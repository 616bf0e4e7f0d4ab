// The users module's public face: the statements on users and companies, their schemas, and the
// fragments other modules compose (below audit, whose insert and retention compose
// `userNameOf` and `ALL_COMPANIES`); the operations are ../users-api/.
export {
  ALL_COMPANIES,
  allCompanies,
  allUsersOf,
  companyOfRow,
  companyUsersAmong,
  findAuthorizationJson,
  findCompany,
  findUser,
  findUserAnyCompany,
  hasAnyCompany,
  insertCompany,
  insertUser,
  lockCompany,
  lockUserAnyCompany,
  selectUsers,
  updateCompanyTimezone,
  updateUserRole,
  updateUserSet,
  USER_RECORD,
  userNameOf,
  userOfRow,
  usersPageJson,
} from './users.repository.js'
export type { UserRecord } from './users.repository.js'
export {
  AuthorizeResponse,
  Company,
  CompanyCreateInput,
  CompanyOption,
  CompanySetTimezoneInput,
  TokenCreateInput,
  TokenInfo,
  TokenRevokeInput,
  User,
  UserCreateInput,
  UserOption,
  UserSetRoleInput,
  UsersListQuery,
  UsersPage,
} from './users.schemas.js'
