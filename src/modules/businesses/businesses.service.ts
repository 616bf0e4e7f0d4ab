import type { Db } from '../../db/db.js'
import { notFound } from '../../errors.js'
import type { Caller } from '../../tenancy.js'
import { findContactBusiness } from './businesses.repository.js'

/** GET /contacts/:id/business: the live contact's business, else 404 (no contact, or none named). */
export async function contactBusiness(db: Db, caller: Caller, contactId: number) {
  const business = await findContactBusiness(db, caller.companyId, contactId)
  if (!business) throw notFound()
  return business
}
