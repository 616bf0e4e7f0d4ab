// Settings → Security log's sentences for the records of token use, user and company changes;
// every action in the docs' table.
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { test } from 'node:test'
import { fileURLToPath } from 'node:url'
import { AUDIT_ACTIONS } from '../../src/modules/audit/audit.actions.js'
import type { AuditRecord } from '../../src/modules/audit/audit.service.js'
import { auditSentence } from '../../src/web/settings/audit.pages.js'

const now = new Date('2026-11-26T12:00:00.000Z')
const record = (overrides: Partial<AuditRecord>): AuditRecord => ({
  id: 1,
  occurred_at: new Date('2026-11-26T11:58:00.000Z'),
  action: 'api_token.use_refused',
  actor: { type: 'api_token', id: 3, label: 'CRM sync (Ana)', on_behalf_of: null },
  target: { type: 'api_token', id: 3, label: 'CRM sync' },
  outcome: 'success',
  reason: null,
  ip: '203.0.113.7',
  user_agent: null,
  request_id: null,
  changes: null,
  ...overrides,
})

test('sentences of token use, user and company changes', () => {
  assert.equal(auditSentence(record({ outcome: 'failure', reason: 'expired' }), now), 'The token “CRM sync (Ana)” was refused: it has expired, from 203.0.113.7, 2 minutes ago')
  assert.equal(auditSentence(record({ action: 'api_token.used_from_new_address' }), now), 'The token “CRM sync (Ana)” was used from a new address, from 203.0.113.7, 2 minutes ago')
  const cli = { type: 'cli', id: null, label: 'ops', on_behalf_of: null }
  assert.equal(
    auditSentence(record({ action: 'user.changed', actor: cli, target: { type: 'user', id: 4, label: 'Milton' }, ip: null, changes: { role: ['member', 'admin'] } }), now),
    'Ops (admin command line) changed role of Milton, 2 minutes ago',
  )
  assert.equal(
    auditSentence(record({ action: 'company.settings_changed', actor: cli, target: { type: 'company', id: 1, label: 'Globex' }, ip: null, changes: { timezone: ['UTC', 'Europe/Lisbon'] } }), now),
    'Ops (admin command line) changed timezone of the company Globex, 2 minutes ago',
  )
})

test('docs/audit-log.md lists every action name', () => {
  const doc = readFileSync(fileURLToPath(new URL('../../docs/audit-log.md', import.meta.url)), 'utf8')
  assert.deepEqual(AUDIT_ACTIONS.filter((action) => !doc.includes(`| \`${action}\` |`)), [])
})

test('an OAuth app names the user it acted for', () => {
  const app = { type: 'oauth_app', id: 2, label: 'CRM Sync', on_behalf_of: { id: 7, label: 'Ana Lima' } }
  assert.equal(
    auditSentence(record({ action: 'webhook.deleted', actor: app, target: { type: 'webhook', id: 5, label: 'https://crm.example/hook' } }), now),
    'CRM Sync (for Ana Lima) deleted the webhook https://crm.example/hook, from 203.0.113.7, 2 minutes ago',
  )
})
