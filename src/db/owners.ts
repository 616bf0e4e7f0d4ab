// Who owns each table: only the owner's source files write SQL that names it; another module
// composes the owner's exported fragments (CTE text, select lists) or calls its functions.
// test/architecture/table-owners.test.ts holds the source files to it. An owner is a folder
// of src/modules, or a file of src/ for the few tables below the modules.
export const TABLE_OWNERS: Readonly<Record<string, string>> = {
  companies: 'modules/users',
  users: 'modules/users',
  api_tokens: 'modules/auth',
  web_sessions: 'modules/auth',
  user_invites: 'modules/auth',
  businesses: 'modules/businesses',
  contacts: 'modules/contacts',
  contact_custom_values: 'modules/contacts',
  contact_tags: 'modules/contacts',
  custom_fields: 'modules/custom-fields',
  tags: 'modules/tags',
  contact_events: 'modules/events',
  flows: 'modules/flows',
  flow_steps: 'modules/flows',
  flow_enrollments: 'modules/flows',
  tasks: 'modules/tasks',
  leads: 'modules/leads',
  meet_transcriptions: 'modules/meet-transcriptions',
  whatsapp_messages: 'modules/whatsapp',
  whatsapp_chats: 'modules/whatsapp',
  counters: 'db/counters.ts',
  webhook_subscriptions: 'modules/webhooks',
  api_events: 'modules/webhooks',
  api_event_outbox: 'modules/webhooks',
  webhook_deliveries: 'modules/webhooks',
  idempotency_keys: 'plugins/idempotency.ts',
  audit_events: 'modules/audit',
}
