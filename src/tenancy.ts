// Tenancy by construction: repository functions take a CompanyId, and a CompanyId only
// comes from an authenticated caller (or the admin command line naming a company it
// checked), so no query can be written without the caller's company.
declare const companyBrand: unique symbol
export type CompanyId = number & { readonly [companyBrand]: true }

/** Only for ids that come from an authenticated token or a checked admin argument. */
export const asCompanyId = (id: number) => id as CompanyId

/** Who is calling: resolved from the api_token once, then cached (modules/auth). */
export interface Caller {
  readonly tokenId: number
  readonly userId: number
  readonly companyId: CompanyId
  /** IANA zone of the company: "today" for tasks and done dates. */
  readonly timezone: string
}
