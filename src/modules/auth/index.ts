// The auth module's public face: accounts, sessions, roles and API tokens.
export {
  acceptInvite,
  activateUser,
  deactivateUser,
  findAccount,
  findInvite,
  inviteUser,
  SESSION_ABSOLUTE_MS,
  setPassword,
  setUserRole,
  signIn,
  signInRateLimited,
  signOut,
} from './accounts.service.js'
export type { Account, RefusalRecords } from './accounts.service.js'
export { authCommands } from './auth.cli.js'
export { LastUsedTracker } from './last-used.js'
export { PASSWORD_MAX_LENGTH } from './passwords.js'
export { TokenCache } from './token-cache.js'
export {
  createOwnToken,
  createToken,
  findCaller,
  findCompanyToken,
  findOwnToken,
  hashToken,
  listCompanyTokens,
  listOwnTokens,
  recordExpiredRefusal,
  revokeCompanyTokenById,
  revokeOwnToken,
} from './tokens.service.js'
export type { TokenChoice } from './tokens.service.js'
