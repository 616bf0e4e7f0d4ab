// The api-tokens module's public face: every statement on api_tokens and api_token_addresses,
// below audit (its insert labels a token with `tokenLabelOf`); the rules are ../auth/'s.
export {
  findAccessToken,
  findTokenCaller,
  insertAccessToken,
  insertToken,
  liveTokenOf,
  liveTokenOfCompany,
  liveTokensOf,
  liveTokensOfCompany,
  markTokenExpiryRefusal,
  recordTokenUses,
  revokeAccessToken,
  revokeCompanyToken,
  revokeGrantTokens,
  revokeOAuthTokensOfUser,
  revokeTokenByHash,
  revokeTokenOf,
  tokenLabelOf,
} from './tokens.repository.js'
export type { CompanyTokenRecord, ListedTokenRecord, TokenRow } from './tokens.repository.js'
