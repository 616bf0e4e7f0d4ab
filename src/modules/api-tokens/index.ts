// This file is the api-tokens module's public face: it exports every statement on api_tokens and
// api_token_addresses. The module sits below audit, because audit's insert labels a token with
// `tokenLabelOf`, and the rules on tokens live in ../auth/.
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
