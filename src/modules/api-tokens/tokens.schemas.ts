// These schemas define an api token as the service reads it, once, and the rows' types and
// select lists come from them (src/db/records.ts). They never hold the token itself or its
// hash, so that no read returns either.
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

/** Describes a token row as it is made, and as the admin command line revokes it. */
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

/** Describes a live token as its holder sees it: null scopes mean full access, and a null expires_at means it never expires. */
export const ListedToken = Type.Object({ id, label, prefix, scopes, expires_at, created_at, last_used_at })

/** Describes a live token of the company as its admins see it, with whose token it is. */
export const CompanyToken = Type.Object({
  ...ListedToken.properties,
  user_id: tokenFields.user_id,
  user_name: Type.String(),
  user_email: Type.String(),
})
