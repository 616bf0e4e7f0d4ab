// The batch builds a contact's record in TypeScript (toContact) from the rows it holds, where
// every read builds it in SQL (checked by test/db/records.test.ts): the same schema holds both.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { Value } from 'typebox/value'
import { toContact, type ContactColumnsRow } from '../../src/modules/contacts/contacts.record.js'
import { Contact } from '../../src/modules/contacts/contacts.schemas.js'

const at = new Date('2026-11-22T10:00:00.123Z')
const row: ContactColumnsRow = {
  id: 7, user_id: 3, first_name: 'Ada', last_name: 'Lovelace', email: 'ada@example.com', business: 'Engines',
  position: 'CTO', telephone: '1', cellphone: '2', address: 'A street', city: 'London', state: 'LDN', country: 'UK',
  url: 'https://ada.example', linkedin: 'ada', variable1: 'v1', variable2: null, variable3: null, carousel: true,
  stage: 'lead', contact_group_id: null, created_at: at, updated_at: at,
}

test('toContact writes the Contact schema: its keys in its order, each value of its type', () => {
  const tags = [{ id: 4, name: 'vip', color: '#ff0000' }]
  const values = [{ field: 'size', value: '10' }]
  const written = JSON.parse(JSON.stringify(toContact(row, tags, values))) as Record<string, unknown>
  assert.deepEqual(Object.keys(written), Object.keys(Contact.properties))
  assert.deepEqual(Object.keys((written.tags as object[])[0] ?? {}), Object.keys(Contact.properties.tags.items.properties))
  assert.deepEqual(Object.keys((written.custom_fields as object[])[0] ?? {}), Object.keys(Contact.properties.custom_fields.items.properties))
  assert.ok(Value.Check(Contact, written), JSON.stringify([...Value.Errors(Contact, written)]))
  assert.equal(written.created_at, '2026-11-22T10:00:00.123Z')
  assert.equal(written.business, 'Engines')
})

test('toContact keeps nulls and empty lists as the schema allows them', () => {
  const bare: ContactColumnsRow = { ...row, last_name: null, business: null, stage: null, carousel: false }
  const written = JSON.parse(JSON.stringify(toContact(bare, [], []))) as Record<string, unknown>
  assert.deepEqual(Object.keys(written), Object.keys(Contact.properties))
  assert.ok(Value.Check(Contact, written))
  assert.deepEqual([written.last_name, written.stage, written.tags, written.custom_fields], [null, null, [], []])
})

test('toContact leaves out the columns a resolved row carries beside the schema\'s (company_id, search_text, business_id)', () => {
  const resolved = Object.assign({ company_id: 1, search_text: 'ada', business_id: 2 }, row)
  const written = JSON.parse(JSON.stringify(toContact(resolved, [], []))) as Record<string, unknown>
  assert.deepEqual(Object.keys(written), Object.keys(Contact.properties))
})
