// This file is the oauth-server module's public face: it exports the OAuth 2.0 authorization
// server's rules and JSON endpoints, which sit above auth.
export { default as oauthRoutes } from './oauth-server.routes.js'
export {
  answerConsent,
  changeApp,
  checkAuthorize,
  findApp,
  issuerOf,
  listApps,
  listAuthorisedApps,
  registerApp,
  removeApp,
  revokeAuthorisedApp,
  rotateClientSecret,
} from './oauth-server.service.js'
export type { AppInput, ShownApp } from './oauth-server.service.js'
