// An api token as the service reads it: one definition, from which the rows' types and
// select lists come (src/db/records.ts). Never the token itself nor its hash.
import { Type } from 'typebox'
import { Nullable, Timestamp } from '../../http/schemas.js'
import type { Scope } from '../../scopes.js'

const tokenFields = {
  id: Type.Integer(),
  user_id: Type.Integer(),
  company_id: Type.Integer(),
  prefix: Type.String({ description: 'its first characters, to tell tokens apart' }),
  label: Nullable(Type.String()),
  scopes: Nullable(Type.Unsafe<Scope[]>(Type.Array(Type.String()))),
  expires_at: Nullable(Timestamp),
  created_at: Timestamp,
  revoked_at: Nullable(Timestamp),
  last_used_at: Nullable(Timestamp),
}
const { id, label, prefix, scopes, expires_at, created_at, last_used_at } = tokenFields

/** A token row as made, and as revoked by the admin command line. */
export const TokenRecord = Type.Object({
  id,
  user_id: tokenFields.user_id,
  company_id: tokenFields.company_id,
  prefix,
  label,
  scopes,
  expires_at,
  created_at,
  revoked_at: tokenFields.revoked_at,
})

/** A live token as its holder sees it (scopes null: full access; expires_at null: never). */
export const ListedToken = Type.Object({ id, label, prefix, scopes, expires_at, created_at, last_used_at })

/** A live token of the company as its admins see it: whose it is. */
export const CompanyToken = Type.Object({
  ...ListedToken.properties,
  user_id: tokenFields.user_id,
  user_name: Type.String(),
  user_email: Type.String(),
})
