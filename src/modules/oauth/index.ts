// The oauth module's public face: the OAuth 2.0 authorization server (apps, grants, codes, refresh tokens).
export { APP_OF_GRANT, grantOfToken, revokeGrantsOfUser } from './oauth.repository.js'
export type { AuthorisedApp } from './oauth.repository.js'
export { default as oauthRoutes } from './oauth.routes.js'
export { AuthorizeQuery, ConsentBody, repeatedParameter } from './oauth.schemas.js'
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
} from './oauth.service.js'
export type { AppInput, ShownApp } from './oauth.service.js'
