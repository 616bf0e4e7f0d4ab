// The whole domain in one Drizzle pg-core schema. Conventions:
// - every tenant table carries company_id, and its primary key, unique keys, indexes and
//   foreign keys lead with it: (company_id, id). Composite foreign keys make a reference
//   to another company's record impossible in the database itself, and the layout lets
//   the data be distributed by company (Citus).
// - ids are bigint identities read as JS numbers (contract ids go up to 2^53-1).
// - timestamps are timestamptz with millisecond precision, so they round-trip exactly
//   through the API's ISO 8601 strings; calendar days are `date` read as 'yyyy-mm-dd'.
import { sql } from 'drizzle-orm'
import {
  bigint,
  boolean,
  check,
  date,
  foreignKey,
  index,
  integer,
  json,
  jsonb,
  pgEnum,
  pgTable,
  primaryKey,
  smallint,
  text,
  timestamp,
  uniqueIndex,
  varchar,
  type AnyPgColumn,
} from 'drizzle-orm/pg-core'

const id = () => bigint('id', { mode: 'number' }).generatedAlwaysAsIdentity()
const ref = (name: string) => bigint(name, { mode: 'number' })
const instant = (name: string) => timestamp(name, { withTimezone: true, precision: 3, mode: 'date' })
const timestamps = {
  createdAt: instant('created_at').notNull().defaultNow(),
  updatedAt: instant('updated_at').notNull().defaultNow(),
}
const companyId = () => ref('company_id').notNull().references(() => companies.id, { onDelete: 'cascade' })
/**
 * The company of a row that hangs off a contact by a cascading same-company foreign key:
 * that key already says the company exists and removes the row with it, so the row has no
 * foreign key of its own to companies. Each one is a lookup and a lock of the company's row
 * per row written (a tenth of a batch import's database time; docs/performance.md).
 */
const companyIdOfContact = () => ref('company_id').notNull()

/** A composite (company_id, column) → (company_id, id) foreign key. */
function sameCompany(
  name: string,
  from: [AnyPgColumn, AnyPgColumn],
  to: [AnyPgColumn, AnyPgColumn],
  onDelete: 'cascade' | 'restrict' | 'no action' = 'no action',
) {
  return foreignKey({ name, columns: from, foreignColumns: to }).onDelete(onDelete)
}

export const userRole = pgEnum('user_role', ['admin', 'member'])
export const contactStage = pgEnum('contact_stage', [
  'smart_lead', 'prospect', 'lead', 'mql', 'sql', 'opportunity', 'client', 'lost',
])
export const customFieldKind = pgEnum('custom_field_kind', [
  'input', 'textarea', 'email', 'telephone', 'date', 'dropdown',
])
export const contactEventKind = pgEnum('contact_event_kind', [
  'contact_created', 'contact_updated', 'stage_changed', 'tag_added', 'tag_removed',
  'added_to_flow', 'task_completed', 'meet_transcription_linked', 'contact_deleted',
])
export const flowStatus = pgEnum('flow_status', ['active', 'paused'])
export const enrollmentStatus = pgEnum('flow_enrollment_status', ['active', 'finished', 'removed'])
export const taskKind = pgEnum('task_kind', ['phonecall', 'email', 'linkedin', 'social', 'meeting'])
export const transcriptionStatus = pgEnum('meet_transcription_status', ['recording', 'stopped', 'transcribed'])
export const messageDirection = pgEnum('whatsapp_direction', ['inbound', 'outbound'])
export const messageStatus = pgEnum('whatsapp_status', ['sent', 'delivered', 'read', 'failed', 'received'])

export const companies = pgTable('companies', {
  id: id().primaryKey(),
  name: varchar('name', { length: 255 }).notNull(),
  timezone: text('timezone').notNull().default('UTC'), // IANA zone: "today" for tasks
  ...timestamps,
})

export const users = pgTable('users', {
  companyId: companyId(),
  id: id(),
  name: varchar('name', { length: 255 }).notNull(),
  email: varchar('email', { length: 255 }).notNull(),
  role: userRole('role').notNull().default('member'),
  active: boolean('active').notNull().default(true),
  // argon2id (PHC string) for signing in to the web application; null: no password yet.
  passwordHash: text('password_hash'),
  ...timestamps,
}, (t) => [
  primaryKey({ columns: [t.companyId, t.id] }),
  uniqueIndex('users_company_email_key').on(t.companyId, sql`lower(${t.email})`),
  // Signing in names an email before the company is known: the one lookup across companies.
  index('users_email_idx').on(sql`lower(${t.email})`),
])

// Only a SHA-256 of the token is kept. The hash is looked up before the company is known,
// so its unique key is global: the one table whose key does not lead with company_id.
// OAuth 2.0 for third-party apps (migration 0016, docs/access-control.md). An app is
// registered by one company and may be authorised by users of any company: the one reference
// table (docs/scaling.md), looked up by its public client_id. Its secret, codes and refresh
// tokens are stored as SHA-256 only. A grant is one user's consent to one app, made on the
// consent page, in the user's company; its access tokens are api_tokens rows
// (oauth_grant_id), so the request's one token lookup serves them too.
export const oauthApps = pgTable('oauth_apps', {
  companyId: companyId(),
  id: id(),
  clientId: varchar('client_id', { length: 64 }).notNull(),
  name: varchar('name', { length: 255 }).notNull(),
  redirectUris: text('redirect_uris').array().notNull(),
  scopes: text('scopes').array().notNull(),
  // null: a public client (no secret; PKCE is what binds its code).
  secretHash: text('secret_hash'),
  // After a rotation: the old secret, which keeps working until previous_secret_expires_at.
  previousSecretHash: text('previous_secret_hash'),
  previousSecretExpiresAt: instant('previous_secret_expires_at'),
  ...timestamps,
}, (t) => [
  primaryKey({ columns: [t.companyId, t.id] }),
  check('oauth_apps_redirect_uris_check', sql`cardinality(${t.redirectUris}) > 0`),
  check('oauth_apps_scopes_check', sql`cardinality(${t.scopes}) > 0`),
  uniqueIndex('oauth_apps_client_id_key').on(t.clientId),
])

export const oauthGrants = pgTable('oauth_grants', {
  companyId: companyId(),
  id: id(),
  appCompanyId: ref('app_company_id').notNull(),
  appId: ref('app_id').notNull(),
  userId: ref('user_id').notNull(),
  scopes: text('scopes').array().notNull(),
  createdAt: instant('created_at').notNull().defaultNow(),
  revokedAt: instant('revoked_at'),
}, (t) => [
  primaryKey({ columns: [t.companyId, t.id] }),
  index('oauth_grants_company_user_idx').on(t.companyId, t.userId),
  index('oauth_grants_app_idx').on(t.appCompanyId, t.appId),
  sameCompany('oauth_grants_app_fk', [t.appCompanyId, t.appId], [oauthApps.companyId, oauthApps.id], 'cascade'),
  sameCompany('oauth_grants_user_fk', [t.companyId, t.userId], [users.companyId, users.id], 'cascade'),
])

// Authorization codes: 60 seconds, once; bound to the app, the redirect URI and the PKCE
// challenge, and to the grant the consent made (a second use of the code revokes it).
export const oauthCodes = pgTable('oauth_codes', {
  companyId: companyId(),
  id: id(),
  appCompanyId: ref('app_company_id').notNull(),
  appId: ref('app_id').notNull(),
  userId: ref('user_id').notNull(),
  codeHash: text('code_hash').notNull(),
  redirectUri: text('redirect_uri').notNull(),
  codeChallenge: varchar('code_challenge', { length: 128 }).notNull(),
  scopes: text('scopes').array().notNull(),
  expiresAt: instant('expires_at').notNull(),
  usedAt: instant('used_at'),
  grantId: ref('grant_id').notNull(),
}, (t) => [
  primaryKey({ columns: [t.companyId, t.id] }),
  uniqueIndex('oauth_codes_code_hash_key').on(t.codeHash),
  sameCompany('oauth_codes_app_fk', [t.appCompanyId, t.appId], [oauthApps.companyId, oauthApps.id], 'cascade'),
  sameCompany('oauth_codes_user_fk', [t.companyId, t.userId], [users.companyId, users.id], 'cascade'),
  sameCompany('oauth_codes_grant_fk', [t.companyId, t.grantId], [oauthGrants.companyId, oauthGrants.id], 'cascade'),
])

// Refresh tokens rotate on every use: used_at marks a spent one, whose reuse revokes the grant.
export const oauthRefreshTokens = pgTable('oauth_refresh_tokens', {
  companyId: companyId(),
  id: id(),
  grantId: ref('grant_id').notNull(),
  tokenHash: text('token_hash').notNull(),
  expiresAt: instant('expires_at').notNull(),
  usedAt: instant('used_at'),
  createdAt: instant('created_at').notNull().defaultNow(),
}, (t) => [
  primaryKey({ columns: [t.companyId, t.id] }),
  uniqueIndex('oauth_refresh_tokens_token_hash_key').on(t.tokenHash),
  index('oauth_refresh_tokens_grant_idx').on(t.companyId, t.grantId),
  sameCompany('oauth_refresh_tokens_grant_fk', [t.companyId, t.grantId], [oauthGrants.companyId, oauthGrants.id], 'cascade'),
])

export const apiTokens = pgTable('api_tokens', {
  companyId: companyId(),
  id: id(),
  userId: ref('user_id').notNull(),
  tokenHash: text('token_hash').notNull(),
  prefix: varchar('prefix', { length: 16 }).notNull(), // the first characters, to tell tokens apart
  label: varchar('label', { length: 255 }), // the holder's note ("Zapier", "CRM sync")
  // Kept in memory on each request and written at most once a minute per token.
  lastUsedAt: instant('last_used_at'),
  revokedAt: instant('revoked_at'),
  // The scopes chosen for the token (docs/access-control.md); null: full access.
  scopes: text('scopes').array(),
  expiresAt: instant('expires_at'), // null: never
  // An OAuth access token: the grant it was issued for (null: a personal api token).
  oauthGrantId: ref('oauth_grant_id'),
  // Set when the first refusal of the expired token was recorded (the record's guard: one per token).
  expiryRefusalRecordedAt: instant('expiry_refusal_recorded_at'),
  ...timestamps,
}, (t) => [
  primaryKey({ columns: [t.companyId, t.id] }),
  index('api_tokens_oauth_grant_idx').on(t.companyId, t.oauthGrantId).where(sql`${t.oauthGrantId} is not null`),
  sameCompany('api_tokens_oauth_grant_fk', [t.companyId, t.oauthGrantId], [oauthGrants.companyId, oauthGrants.id], 'cascade'),
  check('api_tokens_scopes_check', sql`${t.scopes} is null or cardinality(${t.scopes}) > 0`),
  uniqueIndex('api_tokens_token_hash_key').on(t.tokenHash),
  index('api_tokens_company_user_idx').on(t.companyId, t.userId),
  sameCompany('api_tokens_user_fk', [t.companyId, t.userId], [users.companyId, users.id], 'cascade'),
])

// The client addresses a token was used from (migration 0017), upserted with "last used"
// once a minute: an address not seen for the token in 30 days is an audit record.
export const apiTokenAddresses = pgTable('api_token_addresses', {
  companyId: ref('company_id').notNull(),
  tokenId: ref('token_id').notNull(),
  ip: varchar('ip', { length: 64 }).notNull(),
  firstSeenAt: instant('first_seen_at').notNull(),
  lastSeenAt: instant('last_seen_at').notNull(),
}, (t) => [
  primaryKey({ columns: [t.companyId, t.tokenId, t.ip] }),
  sameCompany('api_token_addresses_token_fk', [t.companyId, t.tokenId], [apiTokens.companyId, apiTokens.id], 'cascade'),
])

// Web application sessions, server-side so that signing out and deactivation end them at
// once. The cookie carries a random id; only its SHA-256 is stored, looked up before the
// company is known (a global unique key, as for api tokens). Idle and absolute expiry are
// read from last_seen_at and created_at.
export const webSessions = pgTable('web_sessions', {
  companyId: companyId(),
  id: id(),
  userId: ref('user_id').notNull(),
  tokenHash: text('token_hash').notNull(),
  createdAt: instant('created_at').notNull().defaultNow(),
  lastSeenAt: instant('last_seen_at').notNull().defaultNow(),
}, (t) => [
  primaryKey({ columns: [t.companyId, t.id] }),
  uniqueIndex('web_sessions_token_hash_key').on(t.tokenHash),
  index('web_sessions_company_user_idx').on(t.companyId, t.userId),
  sameCompany('web_sessions_user_fk', [t.companyId, t.userId], [users.companyId, users.id], 'cascade'),
])

// One-time links (`user invite`) where a user chooses a password; only a SHA-256 of the
// link's token is stored. A new invite replaces the user's earlier unused ones.
export const userInvites = pgTable('user_invites', {
  companyId: companyId(),
  id: id(),
  userId: ref('user_id').notNull(),
  tokenHash: text('token_hash').notNull(),
  expiresAt: instant('expires_at').notNull(),
  usedAt: instant('used_at'),
  createdAt: instant('created_at').notNull().defaultNow(),
}, (t) => [
  primaryKey({ columns: [t.companyId, t.id] }),
  uniqueIndex('user_invites_token_hash_key').on(t.tokenHash),
  index('user_invites_company_user_idx').on(t.companyId, t.userId),
  sameCompany('user_invites_user_fk', [t.companyId, t.userId], [users.companyId, users.id], 'cascade'),
])

export const businesses = pgTable('businesses', {
  companyId: companyId(),
  id: id(),
  name: varchar('name', { length: 255 }).notNull(),
  linkedinUrl: varchar('linkedin_url', { length: 255 }),
  sector: varchar('sector', { length: 255 }),
  colaboratorsCount: integer('colaborators_count'),
  telephone: varchar('telephone', { length: 255 }),
  ...timestamps,
}, (t) => [
  primaryKey({ columns: [t.companyId, t.id] }),
  uniqueIndex('businesses_company_name_key').on(t.companyId, sql`lower(${t.name})`),
])

export const contacts = pgTable('contacts', {
  companyId: companyId(),
  id: id(),
  userId: ref('user_id').notNull(), // owner
  // The columns a pass over the rows tests come first: a row is decoded up to the last
  // column a query needs (drizzle/0012_contact_column_order.sql).
  deletedAt: instant('deleted_at'), // soft delete: hidden from the API, history kept
  // What search_term searches, lower()-ed, joined by U+001F (contacts.repository.ts, search).
  searchText: text('search_text').generatedAlwaysAs(
    sql`lower(first_name || ' ' || coalesce(last_name, '')) || E'\x1f' || lower(coalesce(business, '')) || E'\x1f' || lower(email)`,
  ),
  firstName: varchar('first_name', { length: 255 }).notNull(),
  lastName: varchar('last_name', { length: 255 }),
  email: varchar('email', { length: 255 }).notNull(),
  business: varchar('business', { length: 255 }), // as sent; businessId is the shared record
  businessId: ref('business_id'),
  position: varchar('position', { length: 255 }),
  telephone: varchar('telephone', { length: 255 }),
  cellphone: varchar('cellphone', { length: 255 }),
  address: varchar('address', { length: 1000 }),
  city: varchar('city', { length: 255 }),
  state: varchar('state', { length: 255 }),
  country: varchar('country', { length: 255 }),
  url: varchar('url', { length: 255 }),
  linkedin: varchar('linkedin', { length: 255 }),
  variable1: varchar('variable1', { length: 255 }),
  variable2: varchar('variable2', { length: 255 }),
  variable3: varchar('variable3', { length: 255 }),
  carousel: boolean('carousel').notNull().default(false),
  stage: contactStage('stage'),
  contactGroupId: ref('contact_group_id'),
  ...timestamps,
}, (t) => [
  primaryKey({ columns: [t.companyId, t.id] }),
  // Live contacts only, so a deleted contact's email is free again.
  uniqueIndex('contacts_company_email_live_key')
    .on(t.companyId, sql`lower(${t.email})`)
    .where(sql`${t.deletedAt} is null`),
  index('contacts_company_live_idx').on(t.companyId, t.id).where(sql`${t.deletedAt} is null`),
  index('contacts_company_user_live_idx').on(t.companyId, t.userId, t.id).where(sql`${t.deletedAt} is null`),
  // Out of reach of a lookup by primary key without statistics (drizzle/0018_plans.sql).
  index('contacts_company_business_idx').on(t.companyId, t.businessId).where(sql`${t.businessId} is not null`),
  // updated_since walks (deleted contacts too: they show as tombstones).
  index('contacts_company_updated_idx').on(t.companyId, t.updatedAt, t.id),
  // Search: trigrams of search_text, for terms that have one (drizzle/0007_contact_search.sql).
  index('contacts_search_trgm_idx')
    .using('gin', t.companyId, t.userId, sql`${t.searchText} gin_trgm_ops`)
    .where(sql`${t.deletedAt} is null`),
  sameCompany('contacts_user_fk', [t.companyId, t.userId], [users.companyId, users.id]),
  sameCompany('contacts_business_fk', [t.companyId, t.businessId], [businesses.companyId, businesses.id]),
])

export const customFields = pgTable('custom_fields', {
  companyId: companyId(),
  id: id(),
  field: varchar('field', { length: 255 }).notNull(),
  kind: customFieldKind('kind').notNull(),
  options: jsonb('options').$type<{ name: string }[]>().notNull().default([]),
  ...timestamps,
}, (t) => [
  primaryKey({ columns: [t.companyId, t.id] }),
  // Out of reach of a lookup by primary key without statistics (drizzle/0018_plans.sql).
  uniqueIndex('custom_fields_company_field_key').on(sql`lower(${t.field})`, t.companyId),
])

export const contactCustomValues = pgTable('contact_custom_values', {
  companyId: companyIdOfContact(),
  contactId: ref('contact_id').notNull(),
  customFieldId: ref('custom_field_id').notNull(),
  value: varchar('value', { length: 255 }).notNull(),
  ...timestamps,
}, (t) => [
  primaryKey({ columns: [t.companyId, t.contactId, t.customFieldId] }),
  // Out of reach of a lookup by primary key without statistics (drizzle/0018_plans.sql).
  index('contact_custom_values_field_idx').on(t.customFieldId, t.companyId),
  sameCompany('contact_custom_values_contact_fk', [t.companyId, t.contactId], [contacts.companyId, contacts.id], 'cascade'),
  sameCompany('contact_custom_values_field_fk', [t.companyId, t.customFieldId], [customFields.companyId, customFields.id], 'cascade'),
])

export const tags = pgTable('tags', {
  companyId: companyId(),
  id: id(),
  name: varchar('name', { length: 255 }).notNull(),
  color: varchar('color', { length: 7 }).notNull(),
  ...timestamps,
}, (t) => [
  primaryKey({ columns: [t.companyId, t.id] }),
  // Out of reach of a lookup by primary key without statistics (drizzle/0018_plans.sql).
  uniqueIndex('tags_company_name_key').on(sql`lower(${t.name})`, t.companyId),
])

export const contactTags = pgTable('contact_tags', {
  companyId: companyIdOfContact(),
  contactId: ref('contact_id').notNull(),
  tagId: ref('tag_id').notNull(),
  createdAt: instant('created_at').notNull().defaultNow(),
}, (t) => [
  primaryKey({ columns: [t.companyId, t.contactId, t.tagId] }),
  // Out of reach of a lookup by primary key without statistics (drizzle/0018_plans.sql).
  index('contact_tags_tag_idx').on(t.tagId, t.companyId),
  sameCompany('contact_tags_contact_fk', [t.companyId, t.contactId], [contacts.companyId, contacts.id], 'cascade'),
  sameCompany('contact_tags_tag_fk', [t.companyId, t.tagId], [tags.companyId, tags.id], 'cascade'),
])

export const contactEvents = pgTable('contact_events', {
  companyId: companyIdOfContact(),
  id: id(),
  contactId: ref('contact_id').notNull(),
  kind: contactEventKind('kind').notNull(),
  // Who caused it (the caller; null for the admin command line). History, like an audit
  // log: no foreign key to users, so an event never holds its actor's row (a lookup and a
  // lock of a row every writer of the company shares, per event written).
  userId: ref('user_id'),
  data: jsonb('data').$type<Record<string, unknown>>().notNull().default({}),
  occurredAt: instant('occurred_at').notNull().defaultNow(),
}, (t) => [
  primaryKey({ columns: [t.companyId, t.id] }),
  // Ascending: read backwards for newest first (ORDER BY id DESC, the default NULLS FIRST).
  index('contact_events_contact_idx').on(t.companyId, t.contactId, t.id),
  sameCompany('contact_events_contact_fk', [t.companyId, t.contactId], [contacts.companyId, contacts.id], 'cascade'),
])

export const flows = pgTable('flows', {
  companyId: companyId(),
  id: id(),
  userId: ref('user_id').notNull(),
  name: varchar('name', { length: 255 }).notNull(),
  status: flowStatus('status').notNull().default('active'),
  ...timestamps,
}, (t) => [
  primaryKey({ columns: [t.companyId, t.id] }),
  index('flows_company_user_idx').on(t.companyId, t.userId, t.id),
  index('flows_name_trgm_idx').using('gin', t.companyId, sql`${t.name} gin_trgm_ops`),
  sameCompany('flows_user_fk', [t.companyId, t.userId], [users.companyId, users.id]),
])

export const flowSteps = pgTable('flow_steps', {
  companyId: companyId(),
  flowId: ref('flow_id').notNull(),
  position: integer('position').notNull(),
  day: integer('day').notNull(), // offset from the enrollment day
  kind: taskKind('kind').notNull(),
  title: varchar('title', { length: 255 }).notNull(),
}, (t) => [
  primaryKey({ columns: [t.companyId, t.flowId, t.position] }),
  sameCompany('flow_steps_flow_fk', [t.companyId, t.flowId], [flows.companyId, flows.id], 'cascade'),
])

export const flowEnrollments = pgTable('flow_enrollments', {
  companyId: companyId(),
  id: id(),
  flowId: ref('flow_id').notNull(),
  contactId: ref('contact_id').notNull(),
  status: enrollmentStatus('status').notNull().default('active'),
  addedAt: instant('added_at').notNull().defaultNow(),
  ...timestamps,
}, (t) => [
  primaryKey({ columns: [t.companyId, t.id] }),
  // A contact is active at most once per flow; the database settles concurrent adds.
  uniqueIndex('flow_enrollments_active_key')
    .on(t.companyId, t.flowId, t.contactId)
    .where(sql`${t.status} = 'active'`),
  index('flow_enrollments_contact_idx').on(t.companyId, t.contactId),
  sameCompany('flow_enrollments_flow_fk', [t.companyId, t.flowId], [flows.companyId, flows.id]),
  sameCompany('flow_enrollments_contact_fk', [t.companyId, t.contactId], [contacts.companyId, contacts.id]),
])

export const tasks = pgTable('tasks', {
  companyId: companyId(),
  id: id(),
  kind: taskKind('kind').notNull(),
  title: varchar('title', { length: 255 }).notNull(),
  dueDate: date('due_date', { mode: 'string' }).notNull(),
  done: boolean('done').notNull().default(false),
  doneAt: instant('done_at'),
  // The finish day in the company's time zone, fixed when the task is done, so that
  // done-date filters are plain indexed date comparisons.
  doneOn: date('done_on', { mode: 'string' }),
  assignedToId: ref('assigned_to_id').notNull(),
  flowId: ref('flow_id'),
  enrollmentId: ref('enrollment_id'),
  contactId: ref('contact_id').notNull(),
  ...timestamps,
}, (t) => [
  primaryKey({ columns: [t.companyId, t.id] }),
  // Pages in due order per filter; the columns after id (INCLUDE, which Drizzle cannot
  // declare) let the exact counts of filter pairs the counters do not keep run index-only.
  index('tasks_due_idx').on(t.companyId, t.done, t.dueDate, t.id, t.kind),
  index('tasks_assigned_idx').on(t.companyId, t.assignedToId, t.done, t.dueDate, t.id, t.kind, t.flowId),
  index('tasks_flow_idx').on(t.companyId, t.flowId, t.done, t.dueDate, t.id, t.kind, t.assignedToId),
  index('tasks_contact_idx').on(t.companyId, t.contactId, t.dueDate, t.id),
  index('tasks_company_updated_idx').on(t.companyId, t.updatedAt, t.id), // updated_since walks
  // Done-date filters: the page's ids are picked from this index alone, then sorted by due date.
  index('tasks_done_on_idx')
    .on(t.companyId, t.doneOn, t.dueDate, t.id, t.assignedToId, t.flowId, t.kind)
    .where(sql`${t.done}`),
  sameCompany('tasks_assigned_fk', [t.companyId, t.assignedToId], [users.companyId, users.id]),
  sameCompany('tasks_flow_fk', [t.companyId, t.flowId], [flows.companyId, flows.id]),
  sameCompany('tasks_enrollment_fk', [t.companyId, t.enrollmentId], [flowEnrollments.companyId, flowEnrollments.id]),
  sameCompany('tasks_contact_fk', [t.companyId, t.contactId], [contacts.companyId, contacts.id]),
])

export const leads = pgTable('leads', {
  companyId: companyId(),
  id: id(),
  userId: ref('user_id').notNull(), // creator
  contactId: ref('contact_id'), // the live contact with the same email, if any
  firstName: varchar('first_name', { length: 255 }).notNull(),
  lastName: varchar('last_name', { length: 255 }),
  email: varchar('email', { length: 255 }).notNull(),
  provider: varchar('provider', { length: 255 }).notNull(),
  position: varchar('position', { length: 255 }),
  linkedinUrl: varchar('linkedin_url', { length: 255 }),
  telephone: varchar('telephone', { length: 255 }),
  city: varchar('city', { length: 255 }),
  stateProvince: varchar('state_province', { length: 255 }),
  country: varchar('country', { length: 255 }),
  degreeOfConnection: integer('degree_of_connection'),
  businessName: varchar('business_name', { length: 255 }),
  businessLinkedinUrl: varchar('business_linkedin_url', { length: 255 }),
  businessSector: varchar('business_sector', { length: 255 }),
  businessColaboratorsCount: integer('business_colaborators_count'),
  businessTelephone: varchar('business_telephone', { length: 255 }),
  businessId: ref('business_id'),
  ...timestamps,
}, (t) => [
  primaryKey({ columns: [t.companyId, t.id] }),
  uniqueIndex('leads_company_provider_email_key').on(t.companyId, t.provider, sql`lower(${t.email})`),
  index('leads_company_email_idx').on(t.companyId, sql`lower(${t.email})`),
  index('leads_company_user_idx').on(t.companyId, t.userId, t.id),
  index('leads_company_user_linked_idx').on(t.companyId, t.userId, sql`(${t.contactId} is not null)`, t.id),
  index('leads_company_contact_idx').on(t.companyId, t.contactId),
  index('leads_company_updated_idx').on(t.companyId, t.updatedAt, t.id), // updated_since walks
  sameCompany('leads_user_fk', [t.companyId, t.userId], [users.companyId, users.id]),
  sameCompany('leads_contact_fk', [t.companyId, t.contactId], [contacts.companyId, contacts.id]),
  sameCompany('leads_business_fk', [t.companyId, t.businessId], [businesses.companyId, businesses.id]),
])

export const meetTranscriptions = pgTable('meet_transcriptions', {
  companyId: companyId(),
  id: id(),
  userId: ref('user_id').notNull(),
  meetId: varchar('meet_id', { length: 255 }).notNull(),
  status: transcriptionStatus('status').notNull().default('recording'),
  stoppedAt: instant('stopped_at'),
  transcript: text('transcript'),
  // Kept beside the text so list pages never read (detoast) transcripts of up to 10 MiB.
  transcriptLength: integer('transcript_length'),
  taskId: ref('task_id'),
  ...timestamps,
}, (t) => [
  primaryKey({ columns: [t.companyId, t.id] }),
  index('meet_transcriptions_user_idx').on(t.companyId, t.userId, sql`(${t.taskId} is not null)`, t.id),
  // A user's list without a task filter, in id order (the index above orders by id only within each value).
  index('meet_transcriptions_company_user_idx').on(t.companyId, t.userId, t.id),
  index('meet_transcriptions_company_updated_idx').on(t.companyId, t.updatedAt, t.id), // updated_since walks
  sameCompany('meet_transcriptions_user_fk', [t.companyId, t.userId], [users.companyId, users.id]),
  sameCompany('meet_transcriptions_task_fk', [t.companyId, t.taskId], [tasks.companyId, tasks.id]),
])

export const whatsappMessages = pgTable('whatsapp_messages', {
  companyId: companyId(),
  id: id(),
  contactId: ref('contact_id').notNull(),
  userId: ref('user_id').notNull(), // the responsible user
  direction: messageDirection('direction').notNull(),
  body: text('body').notNull(),
  status: messageStatus('status').notNull(),
  sentAt: instant('sent_at').notNull(),
  ...timestamps,
}, (t) => [
  primaryKey({ columns: [t.companyId, t.id] }),
  index('whatsapp_messages_contact_idx').on(t.companyId, t.contactId, t.sentAt.desc(), t.id.desc()),
  index('whatsapp_messages_contact_user_idx').on(t.companyId, t.contactId, t.userId, t.sentAt.desc(), t.id.desc()),
  index('whatsapp_messages_company_updated_idx').on(t.companyId, t.updatedAt, t.id), // updated_since walks
  sameCompany('whatsapp_messages_contact_fk', [t.companyId, t.contactId], [contacts.companyId, contacts.id]),
  sameCompany('whatsapp_messages_user_fk', [t.companyId, t.userId], [users.companyId, users.id]),
])

// One row per (contact, responsible user), maintained with the messages, so that a
// contact's chats are read from a handful of rows instead of aggregating its messages.
export const whatsappChats = pgTable('whatsapp_chats', {
  companyId: companyId(),
  contactId: ref('contact_id').notNull(),
  userId: ref('user_id').notNull(),
  messagesCount: integer('messages_count').notNull(),
  lastMessageId: ref('last_message_id').notNull(),
  lastMessageAt: instant('last_message_at').notNull(),
}, (t) => [
  primaryKey({ columns: [t.companyId, t.contactId, t.userId] }),
  index('whatsapp_chats_contact_recent_idx').on(t.companyId, t.contactId, t.lastMessageAt.desc()),
  sameCompany('whatsapp_chats_contact_fk', [t.companyId, t.contactId], [contacts.companyId, contacts.id]),
  sameCompany('whatsapp_chats_user_fk', [t.companyId, t.userId], [users.companyId, users.id]),
  sameCompany('whatsapp_chats_last_message_fk', [t.companyId, t.lastMessageId], [whatsappMessages.companyId, whatsappMessages.id]),
])

// Running totals for list pages (an exact COUNT over a large company costs a scan per
// request): adjusted in the same transaction as the rows they count. `key` is 0 for a
// company-wide total, else e.g. the user id of a per-user total. A total is the sum of its
// `slot` rows: the lists every write of a company touches (its contacts) are spread over
// COUNTER_SLOTS rows so that concurrent writers do not queue on one row (src/db/counters.ts);
// the others keep slot 0.
export const counters = pgTable('counters', {
  companyId: companyId(),
  list: varchar('list', { length: 64 }).notNull(),
  key: bigint('key', { mode: 'number' }).notNull().default(0),
  slot: smallint('slot').notNull().default(0),
  value: bigint('value', { mode: 'number' }).notNull().default(0),
}, (t) => [primaryKey({ columns: [t.companyId, t.list, t.key, t.slot] })])

// ---------------------------------------------------------------------------------------
// The outbox: every change the API announces is a row of api_event_outbox, written in the
// same transaction as the change (src/modules/webhooks/outbox.ts). Once committed, it is
// published (src/modules/webhooks/publish.ts): moved into api_events with its id and the
// company's sequence number, and fanned out to one webhook_deliveries row per matching
// enabled subscription, so the delivery worker only ever reads deliveries that are due.
export const webhookSubscriptions = pgTable('webhook_subscriptions', {
  companyId: companyId(),
  id: id(),
  url: text('url').notNull(),
  /** Event types, or ['*'] for all of them. */
  events: text('events').array().notNull(),
  description: varchar('description', { length: 255 }),
  /** The signing secret, encrypted with WEBHOOK_SECRET_KEY (never stored in the clear). */
  secret: text('secret').notNull(),
  /** After rotate_secret: the old secret, which keeps verifying until previous_secret_expires_at. */
  previousSecret: text('previous_secret'),
  previousSecretExpiresAt: instant('previous_secret_expires_at'),
  enabled: boolean('enabled').notNull().default(true),
  disabledReason: text('disabled_reason'),
  disabledAt: instant('disabled_at'),
  /** Since when every attempt failed (the first failure; cleared by any success): 3 days of it disable the subscription. */
  failingSince: instant('failing_since'),
  ...timestamps,
}, (t) => [
  primaryKey({ columns: [t.companyId, t.id] }),
])

export const apiEvents = pgTable('api_events', {
  companyId: companyId(),
  id: id(),
  /** 1, 2, 3… per company (the counters row ('events', 0)), gaps never, in order of publication. */
  sequence: bigint('sequence', { mode: 'number' }).notNull(),
  type: varchar('type', { length: 64 }).notNull(),
  /** The record exactly as the API returns it (deleted: its id and deletion time); json keeps its key order. */
  data: json('data').$type<Record<string, unknown>>().notNull(),
  createdAt: instant('created_at').notNull().defaultNow(),
}, (t) => [
  primaryKey({ columns: [t.companyId, t.id] }),
  index('api_events_company_type_idx').on(t.companyId, t.type, t.id),
  index('api_events_created_idx').on(t.createdAt),
])

// Events recorded by committed (or still running) writes and not yet published: a write
// inserts here and nothing else (outbox.ts), so writers of one company never wait for each
// other; publishing (src/modules/webhooks/publish.ts) moves them into api_events, numbering
// them and fanning them out. No foreign key: the rows live for a moment, and api_events'
// key to the company checks them as they move.
export const apiEventOutbox = pgTable('api_event_outbox', {
  id: id(),
  companyId: ref('company_id').notNull(),
  type: varchar('type', { length: 64 }).notNull(),
  data: json('data').$type<Record<string, unknown>>().notNull(),
  createdAt: instant('created_at').notNull(),
}, (t) => [
  // Keyed by company as every tenant table (0015); the sweep across companies reads the id index.
  primaryKey({ columns: [t.companyId, t.id] }),
  index('api_event_outbox_id_idx').on(t.id),
])

export const webhookDeliveries = pgTable('webhook_deliveries', {
  companyId: companyId(),
  id: id(),
  subscriptionId: ref('subscription_id').notNull(),
  eventId: ref('event_id').notNull(),
  /** pending (due at next_attempt_at), delivered, or failed (gave up). */
  status: varchar('status', { length: 16 }).notNull().default('pending'),
  attempts: integer('attempts').notNull().default(0),
  nextAttemptAt: instant('next_attempt_at'),
  lastAttemptAt: instant('last_attempt_at'),
  lastResponseStatus: integer('last_response_status'),
  lastError: text('last_error'),
  deliveredAt: instant('delivered_at'),
  /** When the first attempt was made: retries stop 3 days later. */
  firstAttemptAt: instant('first_attempt_at'),
  createdAt: instant('created_at').notNull().defaultNow(),
}, (t) => [
  primaryKey({ columns: [t.companyId, t.id] }),
  index('webhook_deliveries_subscription_idx').on(t.companyId, t.subscriptionId, t.id),
  // The foreign key cascade from api_events (pruning) finds an event's deliveries here.
  index('webhook_deliveries_event_idx').on(t.companyId, t.eventId),
  index('webhook_deliveries_due_idx').on(t.nextAttemptAt).where(sql`${t.status} = 'pending'`),
  index('webhook_deliveries_created_idx').on(t.createdAt),
  sameCompany('webhook_deliveries_subscription_fk', [t.companyId, t.subscriptionId], [webhookSubscriptions.companyId, webhookSubscriptions.id], 'cascade'),
  sameCompany('webhook_deliveries_event_fk', [t.companyId, t.eventId], [apiEvents.companyId, apiEvents.id], 'cascade'),
])

// Idempotency-Key (src/plugins/idempotency.ts): one row per key a token sent in the last
// 24 h. A claim is a row without status_code (the request is running); once answered it
// holds the stored answer. Expired rows count as absent and are pruned by created_at.
export const idempotencyKeys = pgTable('idempotency_keys', {
  companyId: companyId(),
  tokenId: ref('token_id').notNull(),
  key: varchar('key', { length: 255 }).notNull(),
  /** sha256 (hex) of the method, the path and the canonical parameters. */
  fingerprint: text('fingerprint').notNull(),
  statusCode: integer('status_code'),
  /** The answer's content-type and location, when it had them. */
  responseHeaders: json('response_headers').$type<Record<string, string>>(),
  responseBody: text('response_body'),
  createdAt: instant('created_at').notNull().defaultNow(),
  completedAt: instant('completed_at'),
}, (t) => [
  primaryKey({ columns: [t.companyId, t.tokenId, t.key] }),
  index('idempotency_keys_created_idx').on(t.createdAt),
  sameCompany('idempotency_keys_token_fk', [t.companyId, t.tokenId], [apiTokens.companyId, apiTokens.id], 'cascade'),
])

// The audit log (src/modules/audit, migration 0014): append-only, one row per security-relevant
// action. Labels, not references, of actor and target: a record outlives what it names. An
// action's first segment is its target's type (api_token.created → api_token). Each index
// leads one filter of the newest-first list with (occurred_at, id) after it (docs/performance.md).
export const auditEvents = pgTable('audit_events', {
  companyId: companyId(),
  id: id(),
  occurredAt: instant('occurred_at').notNull(),
  action: varchar('action', { length: 64 }).notNull(),
  actorType: varchar('actor_type', { length: 16 }).notNull(),
  actorId: ref('actor_id'),
  actorLabel: varchar('actor_label', { length: 255 }),
  targetType: varchar('target_type', { length: 32 }).notNull(),
  targetId: ref('target_id'),
  targetLabel: varchar('target_label', { length: 255 }),
  outcome: varchar('outcome', { length: 8 }).notNull(),
  /** The failure's reason code; null on success. */
  reason: varchar('reason', { length: 64 }),
  ip: varchar('ip', { length: 64 }),
  userAgent: varchar('user_agent', { length: 512 }),
  requestId: varchar('request_id', { length: 128 }),
  /** Field → [old, new]; never a secret. json keeps the key order. */
  changes: json('changes').$type<Record<string, unknown>>(),
}, (t) => [
  primaryKey({ columns: [t.companyId, t.id] }),
  index('audit_events_time_idx').on(t.companyId, t.occurredAt, t.id),
  index('audit_events_action_idx').on(t.companyId, t.action, t.occurredAt, t.id),
  index('audit_events_target_type_idx').on(t.companyId, t.targetType, t.occurredAt, t.id),
  index('audit_events_target_idx').on(t.companyId, t.targetType, t.targetId, t.occurredAt, t.id),
  index('audit_events_actor_type_idx').on(t.companyId, t.actorType, t.occurredAt, t.id),
  index('audit_events_actor_idx').on(t.companyId, t.actorType, t.actorId, t.occurredAt, t.id),
  index('audit_events_failure_idx').on(t.companyId, t.occurredAt, t.id).where(sql`${t.outcome} = 'failure'`),
  check('audit_events_action_target_check', sql`split_part(${t.action}, '.', 1) = ${t.targetType}`),
  check('audit_events_outcome_check', sql`(${t.outcome} = 'success' AND ${t.reason} IS NULL) OR (${t.outcome} = 'failure' AND ${t.reason} IS NOT NULL)`),
  check('audit_events_actor_type_check', sql`${t.actorType} IN ('user', 'api_token', 'oauth_app', 'cli', 'system')`),
])
