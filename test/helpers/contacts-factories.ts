// Factories for contacts, tags and custom fields, through the service code.
import type { Db } from '../../src/db/db.js'
import type { Static } from 'typebox'
import { createContact } from '../../src/modules/contacts/contacts.create.js'
import type { Contact, ContactCreateBody } from '../../src/modules/contacts/contacts.schemas.js'
import { createCustomField } from '../../src/modules/custom-fields/custom-fields.service.js'
import type { CustomFieldBody } from '../../src/modules/custom-fields/custom-fields.schemas.js'
import { createTag } from '../../src/modules/tags-api/tags-api.service.js'
import type { Caller, CompanyId } from '../../src/tenancy.js'

let sequence = 0
const next = () => ++sequence

/** The caller a tenant's token resolves to. */
export const callerOf = (who: { companyId: CompanyId; userId: number }, now = new Date()): Caller => ({
  now,
  tokenId: 0,
  userId: who.userId,
  companyId: who.companyId,
  timezone: 'UTC',
  role: 'admin',
  access: { kind: 'personal', scopes: null, grants: null, expiresAt: null, app: null, grantId: null },
})

export async function addTag(db: Db, who: { companyId: CompanyId; userId: number }, options: { name?: string; color?: string } = {}) {
  return createTag(db, callerOf(who), { name: options.name ?? `Tag ${next()}`, color: options.color ?? '#123abc' })
}

export async function addCustomField(
  db: Db,
  who: { companyId: CompanyId; userId: number },
  options: Partial<CustomFieldBody> = {},
) {
  return createCustomField(db, callerOf(who), { field: options.field ?? `Field ${next()}`, kind: options.kind ?? 'input', ...options })
}

export async function addContact(
  db: Db,
  who: { companyId: CompanyId; userId: number },
  options: Partial<ContactCreateBody> = {},
  now = new Date(),
): Promise<Static<typeof Contact>> {
  const n = next()
  const created = await createContact(
    db,
    callerOf(who, now),
    { first_name: options.first_name ?? `Person${n}`, email: options.email ?? `person${n}@example.com`, ...options },
  )
  return JSON.parse(created.json) as Static<typeof Contact>
}
