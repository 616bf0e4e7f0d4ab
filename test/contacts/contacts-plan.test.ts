// The write planner alone (src/modules/contacts/contacts.plan.ts): what a batch sends to the
// write statement, without a database.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { planBatch, type BatchItem } from '../../src/modules/contacts/contacts.plan.js'
import { COLUMNS } from '../../src/modules/contacts/contacts.service.js'
import type { CompanyId } from '../../src/tenancy.js'

const now = new Date('2026-11-29T12:00:00.000Z')
const caller = { companyId: 7 as CompanyId, userId: 3, now }
const references = (newIds: number[]) => ({ tags: [], customFields: [], users: new Set<number>(), contacts: [], newIds })
const createItem = (email: string, business?: string): BatchItem => ({
  email,
  create: { input: { first_name: 'Ana', email, ...(business === undefined ? {} : { business }), stage: 'lead' } },
  update: { input: { first_name: 'Ana', email } },
})

test('a batch of creates sends one counter row per list and key, summed, not one per contact', () => {
  const items = [createItem('a@x.example'), createItem('b@x.example'), createItem('c@x.example')]
  const { results, write } = planBatch(caller, references([11, 12, 13]), items, now)
  assert.deepEqual(results.map((r) => r.status), [201, 201, 201])
  assert.deepEqual(write?.counters, [
    { list: 'contacts', key: 0, delta: 3 },
    { list: 'contacts_by_user', key: 3, delta: 3 },
  ])
})

test('a created contact goes to the write as its id, COLUMNS and business_name only', () => {
  const { write } = planBatch(caller, references([21]), [createItem('d@x.example', 'Acme')], now)
  const [created] = write?.created ?? []
  assert.ok(created)
  assert.deepEqual(Object.keys(created).sort(), ['id', ...COLUMNS, 'business_name'].sort())
  assert.equal(created.id, 21)
  assert.equal(created.business_name, 'Acme')
  assert.equal(created.user_id, 3)
  // No instant in the JSON the statement parses: the statement stamps them ($2).
  assert.ok(!JSON.stringify(write?.created).includes('2026-11-29'))
})
