// The statements of POST /contacts/batch (contacts.batch.ts): the whole batch is locked,
// read and written in three statements, whatever the number of items.
import type { Static } from 'typebox'
import { columns } from '../../db/columns.js'
import type { Db, TransactionOptions } from '../../db/db.js'
import { addToCounters, counterSlotSetting, WRITER_SLOT, type CounterDelta } from '../../db/counters.js'
import { defineQuery, run, runOne, runSingle } from '../../db/query.js'
import type { CompanyId } from '../../tenancy.js'
import { businessNamed, INSERT_BUSINESS_NAMES, KEEP_BUSINESS } from '../businesses/index.js'
import { fieldJoin, fieldsNamedAmong } from '../custom-fields/index.js'
import { leadJson, leadLinkKey, leadsOfContactProbe, leadsOfEmailProbe, LINKED_LEADS, setLeadsContact } from '../leads/index.js'
import { companyUsersAmong } from '../users/index.js'
import { outboxCtes } from '../outbox/index.js'
import { tagJoin, tagsAmong } from '../tags/index.js'
import { contactJson, FIELDS_JSON, LISTED_BY_STATEMENT, listed, noSharedReferencesCtes, REFERENCES_SHARED, TAGS_JSON, sharedReferencesCtes, type ContactColumnsRow, type ContactReferences } from './contacts.repository.js'
import type { Contact } from './contacts.schemas.js'
import { INSERT_CONTACT_EVENTS } from '../events/index.js'

/**
 * The transaction of the write builder's statements: generic plans (below), its connection's
 * counter slot (counterSlotSetting), and the contacts they insert and change listed by those
 * statements (created_listed, changed_listed and the counters) rather than by the trigger
 * contacts_listed (migrations/0028_contacts_listed_by_their_statement.sql).
 */
export const contactWriteTransaction: TransactionOptions = {
  genericPlans: true,
  settings: (client) => ({ ...LISTED_BY_STATEMENT, ...counterSlotSetting(client) }),
}

// The lead-link lock of every email (lead-links.ts, leadLinkKey),
// taken in key order so that batches sharing emails queue instead of deadlocking. Held to
// COMMIT, it also keeps single creates of these emails out: the contacts read next are all
// there will be.
//
// The contact writes' transactions run on generic plans (transaction()'s genericPlans):
// PostgreSQL planned the read and the write statement afresh on every batch, their custom
// plans looking cheaper by estimate, and that planning was a tenth of the database's time
// (a POST's resolve took longer to plan than to run). The statements find rows by keys and
// the company's indexes whatever the values; their generic plans were checked at 1 M
// contacts (docs/performance.md, test/contacts/batch-plans.test.ts).
/** The lead-link locks of `emails` (a text[] expression), taken in key order. */
const lockEmailsSql = (emails: string) =>
  `select count(pg_advisory_xact_lock(k.key))::int as locked
     from (select distinct ${leadLinkKey('$1::bigint', 'e')} as key
             from unnest(${emails}) as e
            order by 1 offset 0) k`

const lockEmails = defineQuery<{ locked: number }>('contacts.batchLockEmails', lockEmailsSql('$2::text[]'))

export async function lockBatchEmails(db: Db, companyId: CompanyId, emails: string[]): Promise<void> {
  await run(db, lockEmails, [companyId, emails])
}

// The contacts that have each of `emails` (a text[] of lower-cased emails), any company's and
// deleted ones too, read through contacts_email_company_idx (migration 0025) alone: the
// subquery holds the email only, and OFFSET 0 keeps the caller's company and liveness tests
// out of it. Without statistics (a fresh install, no autovacuum) PostgreSQL takes any
// company's contacts for a handful of rows and ties the company's partial indexes with the
// email key (contacts_company_email_live_key): given the company and `deleted_at is null`, it
// walked the whole company for each email instead of probing (docs/performance.md, "Contact
// import and export"). With the email alone, that index is the only one that can take it.
const contactsOfEmails = (emails: string) =>
  `unnest(${emails}) as e(email)
     cross join lateral (select k.id, k.company_id, k.deleted_at from contacts k where lower(k.email) = e.email offset 0) f`

// A contact found by contactsOfEmails, locked by its primary key and tested again as the lock
// leaves it (another writer may have changed it meanwhile): `l` holds it as it is now. The
// subquery holds the key only: with `deleted_at is null` in it, contacts_company_user_live_idx
// (company_id, user_id, id) tied with the primary key and walked the company for each contact.
// The company as a value the plan does not see: a company the statistics have not seen yet is
// estimated at no rows (test/db/fresh-company-plans.test.ts).
const lockFound = (id: string) =>
  `cross join lateral (select c.id, c.email, c.business, c.deleted_at from contacts c
                         where c.company_id = (select $1::bigint) and c.id = ${id}
                        offset 0
                           for update) l`

// Then the live contacts of the emails, locked in id order, in a statement of their own: the
// resolve after it reads their tags and custom values with a snapshot taken under these locks
// (a statement that waits for a row lock sees the row as its writer left it, but not the
// rest). Every contact of the emails is there to lock: a create of one holds its email's
// lock. Each email is one probe of contacts_email_company_idx (contactsOfEmails) and each
// contact found one probe of the primary key, so that the plan holds without statistics
// (test/contacts/batch-plans.test.ts; docs/performance.md, "The leads of a batch's emails").
const lockContacts = defineQuery<{ id: number }>(
  'contacts.batchLockContacts',
  `select l.id
     from (select f.id, e.email from ${contactsOfEmails('$2::text[]')}
            where f.company_id = $1 and f.deleted_at is null
            order by f.id) x
    ${lockFound('x.id')}
    where l.deleted_at is null and lower(l.email) = x.email
    order by l.id`,
)

/** Locks the live contacts of the emails; their ids, ascending. */
export async function lockBatchContacts(db: Db, companyId: CompanyId, emails: string[]): Promise<number[]> {
  return (await run(db, lockContacts, [companyId, emails.map((email) => email.toLowerCase())])).map((row) => row.id)
}

const TAG_JSON = `json_build_object('id', t.id, 'name', t.name, 'color', t.color)`

// Everything a batch or a PUT checks and compares, in one statement, after it has locked
// its contacts (lockBatchContacts, lockContactForChange): the named tags, custom field
// definitions and users of the company, those contacts (by id, ascending) with their tags
// and custom values, and `new_ids`, $6 ids taken for the contacts a batch creates. A POST,
// which locks no contact, takes its email's lead-link lock here ($7; a batch and a PUT pass
// none): the write that links the email's leads is the next statement, whose snapshot is
// taken under the lock, so the lock needs no round trip of its own. `contacts` false leaves
// out the contacts' read (a POST, a batch that only creates): PostgreSQL starts a plan's every
// part on each run, read or not, and a POST's resolve spent longer starting the contacts'
// subplans than running (docs/performance.md).
const resolveSql = (parts: { contacts: boolean }) =>
  `with locked as materialized (
     ${lockEmailsSql('$7::text[]')}
   )${parts.contacts ? `, matched as (
     -- The columns toRow reads: not the tags and fields the row keeps as JSON (read below from
     -- their own tables, which the batch's writes are planned against).
     -- Each by its primary key, in a subquery that holds the key only (as lockFound): as one
     -- id = any($2) over the company, a table never analysed was walked whole for every batch,
     -- filtering the ids (an import slowed down as its table grew).
     select c.company_id, c.id, c.user_id, c.search_text, c.first_name, c.last_name, c.email, c.business,
            c.business_id, c.position, c.telephone, c.cellphone, c.address, c.city, c.state, c.country, c.url,
            c.linkedin, c.variable1, c.variable2, c.variable3, c.carousel, c.stage, c.contact_group_id,
            c.created_at, c.updated_at
       from unnest($2::bigint[]) as k(id)
      cross join lateral (select c.* from contacts c where c.company_id = (select $1::bigint) and c.id = k.id offset 0) c
      where c.deleted_at is null
      order by c.id
   )` : ''}
   select
     (select coalesce(json_agg(${TAG_JSON} order by t.id), '[]')
        from ${tagsAmong('$1', '$3::bigint[]')}) as tags,
     (select coalesce(json_agg(json_build_object('id', f.id, 'field', f.field, 'kind', f.kind, 'options', f.options) order by f.id), '[]')
        from ${fieldsNamedAmong('$1', '$4::text[]')}) as custom_fields,
     array(${companyUsersAmong('$1', '$5::bigint[]', 'u')}) as users,
     ${parts.contacts ? `(select coalesce(json_agg(json_build_object(
         'row', to_json(m),
         'tags', (select coalesce(json_agg(${TAG_JSON} order by t.id), '[]')
                    from contact_tags ct join ${tagJoin('ct.company_id', 'ct.tag_id')}
                   where ct.company_id = m.company_id and ct.contact_id = m.id),
         'values', (select coalesce(json_agg(json_build_object('id', f.id, 'field', f.field, 'value', v.value) order by f.id), '[]')
                      from contact_custom_values v join ${fieldJoin('v.company_id', 'v.custom_field_id')}
                     where v.company_id = m.company_id and v.contact_id = m.id)) order by m.id), '[]')
        from matched m)` : `(select '[]'::json where cardinality($2::bigint[]) = 0)`} as contacts,
     array(select nextval('contacts_id_seq'::regclass) from generate_series(1, $6::int)) as new_ids,
     (select locked from locked) as locked`

const RESOLVE_STATEMENTS = {
  withContacts: defineQuery<BatchReferences>('contacts.resolveLocked', resolveSql({ contacts: true })),
  /** For a write that reads no contact: its `contacts` are none. */
  creating: defineQuery<BatchReferences>('contacts.resolveCreating', resolveSql({ contacts: false })),
}

// PUT /contacts/:id's first statement: the contact locked before the resolve reads it. A
// statement reads with the snapshot it started with, and a FOR UPDATE that waits for another
// writer gets the row as that writer left it but not its tags and custom values: read in
// one statement, a PUT that waited for another PUT of the same contact planned from tags it
// no longer had (a duplicate key on the second write).
const lockLiveStatement = defineQuery<{ id: number }>(
  'contacts.changeLock',
  `select id from contacts where company_id = $1 and id = $2 and deleted_at is null
      for update`,
)

/** Locks a live contact of the company for a change; false: there is no such contact. */
export async function lockContactForChange(db: Db, companyId: CompanyId, id: number): Promise<boolean> {
  return (await runOne(db, lockLiveStatement, [companyId, id])) !== undefined
}

/**
 * A row of `matched` as to_json writes it: the Contact schema's own columns under its names,
 * each of its type already but the instants (text), search_text (which the write's search
 * change takes as the old text: ListedBefore), and company_id and business_id, which nothing
 * reads.
 */
type ContactJson = Omit<ContactColumnsRow, 'created_at' | 'updated_at'> & { created_at: string; updated_at: string; search_text: string }

/** A changed contact's columns as the resolve read them, which its write lists it by (listed.changed). */
export interface ListedBefore {
  was_search_text: string
  was_user_id: number
  was_stage: ContactColumnsRow['stage']
}

export interface BatchContact {
  row: ContactColumnsRow
  tags: { id: number; name: string; color: string }[]
  values: { id: number; field: string; value: string }[]
  before: ListedBefore
}

export interface BatchReferences extends ContactReferences {
  users: number[]
  contacts: { row: ContactJson; tags: BatchContact['tags']; values: BatchContact['values'] }[]
  new_ids: number[]
}

/** The row as the batch holds it: its instants made Dates, in place (no copy, no renaming). */
function toRow(json: ContactJson): ContactColumnsRow {
  return Object.assign(json, { created_at: new Date(json.created_at), updated_at: new Date(json.updated_at) })
}

/**
 * The references of a batch or a PUT, its contacts (locked by the caller) and `newIds`
 * new contact ids; call inside the transaction that holds the locks (a POST's `lockEmails`
 * are taken here).
 */
export async function resolveLocked(
  db: Db,
  companyId: CompanyId,
  input: { contactIds: number[]; newIds: number; tagIds: number[]; fieldNames: string[]; userIds: number[]; lockEmails?: string[] },
) {
  const statement = input.contactIds.length === 0 ? RESOLVE_STATEMENTS.creating : RESOLVE_STATEMENTS.withContacts
  const row = await runSingle(db, statement, [
    companyId,
    input.contactIds,
    input.tagIds,
    input.fieldNames.map((name) => name.toLowerCase()),
    input.userIds,
    input.newIds,
    input.lockEmails ?? [],
  ])
  return {
    tags: row.tags,
    customFields: row.custom_fields,
    users: new Set(row.users.map(Number)),
    contacts: row.contacts.map((c): BatchContact => ({
      before: { was_search_text: c.row.search_text, was_user_id: c.row.user_id, was_stage: c.row.stage },
      row: toRow(c.row),
      tags: c.tags,
      values: c.values,
    })),
    newIds: row.new_ids.map(Number),
  }
}

/**
 * A contact as a plan left it, sent to the write statement as JSON, which writes its API shape
 * (contactSnapshotJson): the row as the plan holds it (its instants Dates, extra columns
 * ignored), its tags' ids and its custom values.
 */
export interface ContactSnapshot {
  row: ContactColumnsRow
  tag_ids: number[]
  values: { field_id: number; value: string }[]
}

// A contact's API shape from a ContactSnapshot (a json expression): the row read as a contacts
// row, its tags' names and colors and its fields' names joined as every other read does.
const contactSnapshotJson = (snapshot: string) =>
  `(select ${contactJson(
    'x',
    `coalesce((select ${TAGS_JSON}
                 from json_array_elements_text(${snapshot}->'tag_ids') as k(id)
                 join ${tagJoin('$1', 'k.id::bigint')}), '[]')`,
    `coalesce((select ${FIELDS_JSON}
                 from json_to_recordset(${snapshot}->'values') as v(field_id bigint, value text)
                 join ${fieldJoin('$1', 'v.field_id')}), '[]')`,
  )}
      from json_populate_record(null::contacts, ${snapshot}->'row') as x)`

/** A contact's columns as the write takes them: the Contact schema's own (snake_case, the API's names). */
export type ContactColumns = Omit<Static<typeof Contact>, 'tags' | 'custom_fields' | 'created_at' | 'updated_at'> & {
  /** The business to link (found or created by name), null for none. */
  business_name: string | null
}

export interface BatchWrite {
  /** The businesses to find or create, in the order the items name them (the first spelling creates one). */
  businessNames: string[]
  created: ContactColumns[]
  /** Whole rows of changed contacts; `business_changed` relinks the business. */
  changed: (ContactColumns & ListedBefore & { business_changed: boolean })[]
  tagsAdded: { contactId: number; tagId: number }[]
  tagsRemoved: { contactId: number; tagId: number }[]
  valuesSet: { contactId: number; fieldId: number; value: string }[]
  valuesCleared: { contactId: number; fieldId: number }[]
  /** Contact events, sent as JSON (json_to_recordset): snake_case like the columns. */
  events: { contact_id: number; kind: string; data: unknown }[]
  counters: CounterDelta[]
  /**
   * Webhook events in order; a created contact's lead.linked events follow its contact.created
   * (`links`). Each payload is the contact, written by the statement (contactSnapshotJson): as
   * a snapshot the plan took, or, for a contact.created that names its `contact_id`, from the
   * row it inserted (the batch did not change that contact after creating it).
   */
  apiEvents: ({ type: string; contact: ContactSnapshot } | { type: 'contact.created'; contact_id: number })[]
  /**
   * For each created contact, and each changed one that took a new email: its id, the email
   * whose unlinked leads it gets, and the position (1-based) of the webhook event its
   * lead.linked events follow.
   */
  links: { contactId: number; email: string; eventOrd: number }[]
  /** Changed contacts that took a new email: the leads linked to them (of the old email) are unlinked. */
  relinked: number[]
}

// The columns of a created or changed contact as the write statement reads them from the
// JSON documents of BatchWrite (json_to_recordset), in ContactColumns' names.
const RECORDSET_COLUMNS = `id bigint, user_id bigint, first_name text, last_name text, email text, business text,
                         position text, telephone text, cellphone text, address text, city text, state text,
                         country text, url text, linkedin text, variable1 text, variable2 text, variable3 text,
                         carousel boolean, stage contact_stage, contact_group_id bigint, business_name text`

// A changed contact's columns as the resolve read them, for its search change (listed.changed).
const WAS_COLUMNS = 'was_search_text text, was_user_id bigint, was_stage contact_stage'

// A CTE's delete of the batch's removed pairs from a table linking contacts to another key
// (tags, custom fields): `table` as `alias`, the key in `column`, the pairs given as two bigint[]
// parameters (`contacts`, `keys`) unnested as x(contact_id, `name`).
const deletePairs = (table: string, alias: string, column: string, pairs: { contacts: string; keys: string; name: string }) =>
  `delete from ${table} ${alias}
      using unnest(${pairs.contacts}::bigint[], ${pairs.keys}::bigint[]) as x(contact_id, ${pairs.name})
      where ${alias}.company_id = $1 and ${alias}.contact_id = x.contact_id and ${alias}.${column} = x.${pairs.name}
     returning 1`

// Every write of a contact in one statement: a batch's, a POST's (a batch of one) and a PUT's.
// The businesses named are found, and those not found created, once each (in lower(name)
// order; existing ones are not rewritten, KEEP_BUSINESS); new contacts are inserted with the
// ids the resolve took, changed ones rewritten whole (they are locked); then tags, custom
// values, contact events, the leads of a changed contact's old email unlinked
// (leads_company_contact_idx; only a PUT changes an email) and those of the new emails linked
// (leads_company_email_idx: the two sets cannot meet, a linked lead has its contact's email),
// and the counters, which wait for all of that and for the tags and custom fields written to
// be share-locked (sharedReferencesCtes; the InitPlans in their WHERE) so that the hot rows are
// locked last, in (list, key) order, in the connection's slot (src/db/counters.ts); then the
// webhook events (outbox.ts), and with $25 the first event's contact as JSON text: a POST's
// or a PUT's answer, which its contact.created or contact.updated carries. Foreign keys are
// checked at the end of the statement, when every row is there. `parts` says which parts a
// statement keeps; each part left out becomes a select of nothing that keeps its parameters,
// typed, so that every statement of the builder takes the same ones (WRITE_STATEMENTS).
interface WriteParts {
  /** The parts that change contacts or unlink their leads. */
  changes: boolean
  /** The parts that write tags and custom values (and share-lock those named). */
  childWrites: boolean
  /** The reads of tags and custom fields for the events' payloads. */
  childReads: boolean
}
// What the trigger contacts_listed would record of the contacts inserted and changed (contactWriteTransaction).
const LISTED = { created: listed.inserted('created'), changed: listed.changed('changed') }
/** A part's SQL when `kept`, else the select of nothing given in its place. */
const keptWhen = (kept: boolean) => (sql: string, nothing: string) => (kept ? sql : nothing)
const writeSql = (parts: WriteParts) => {
  const changing = keptWhen(parts.changes)
  const childWriting = keptWhen(parts.childWrites)
  const childChanging = keptWhen(parts.changes && parts.childWrites)
  const childReading = keptWhen(parts.childReads)
  return `with ${childWriting(sharedReferencesCtes('$8::bigint[]', '$12::bigint[]'), noSharedReferencesCtes('$8::bigint[]', '$12::bigint[]'))}, business_named as (
     select distinct on (lower(b.name)) b.name from unnest($4::text[]) with ordinality as b(name, ord)
      order by lower(b.name), b.ord
   ), business_found as (
     -- One probe of businesses_company_name_key per name: OFFSET 0 keeps the probe a subquery of
     -- its own (the names in one "= any" over the company walked all of its businesses).
     select f.id, lower(n.name) as key from business_named n
      cross join lateral (${businessNamed('$1', 'n.name', 'b')} offset 0) f
   ), business_made as (
     ${INSERT_BUSINESS_NAMES}
     select $1, n.name from business_named n
      where not exists (select from business_found f where f.key = lower(n.name))
      order by lower(n.name)
     ${KEEP_BUSINESS}
     returning id, lower(name) as key
   ), business as (
     select id, key from business_found union all select id, key from business_made
   ), created as (
     insert into contacts (company_id, id, user_id, first_name, last_name, email, business, position, telephone,
                           cellphone, address, city, state, country, url, linkedin, variable1, variable2,
                           variable3, carousel, stage, contact_group_id, business_id, created_at, updated_at)
     overriding system value
     select $1, x.id, x.user_id, x.first_name, x.last_name, x.email, x.business, x.position, x.telephone,
            x.cellphone, x.address, x.city, x.state, x.country, x.url, x.linkedin, x.variable1, x.variable2,
            x.variable3, x.carousel, x.stage, x.contact_group_id, b.id, $2, $2
       from json_to_recordset($5::json) as x(${RECORDSET_COLUMNS})
       left join business b on b.key = lower(x.business_name)
      order by x.id
     returning *
   ), created_record as (
     -- The payload of a created contact's contact.created event, from the row just inserted and
     -- the tags and custom values given for it (this statement cannot read its own inserts).
     select c.id, ${contactJson(
       'c',
       childReading(`coalesce((select ${TAGS_JSON}
                    from unnest($7::bigint[], $8::bigint[]) as x(contact_id, tag_id)
                    join ${tagJoin('$1', 'x.tag_id')}
                   where x.contact_id = c.id), '[]')`, `'[]'::json`),
       childReading(`coalesce((select ${FIELDS_JSON}
                    from unnest($11::bigint[], $12::bigint[], $13::text[]) as v(contact_id, field_id, value)
                    join ${fieldJoin('$1', 'v.field_id')}
                   where v.contact_id = c.id), '[]')`, `'[]'::json`),
     )} as data
       from created c
   ), created_listed as (
     ${LISTED.created.searchChanges}
     returning 1
   ), changed as (
     ${changing(`update contacts c
        set user_id = x.user_id, first_name = x.first_name, last_name = x.last_name, email = x.email,
            business = x.business, position = x.position, telephone = x.telephone, cellphone = x.cellphone,
            address = x.address, city = x.city, state = x.state, country = x.country, url = x.url,
            linkedin = x.linkedin, variable1 = x.variable1, variable2 = x.variable2, variable3 = x.variable3,
            carousel = x.carousel, stage = x.stage, contact_group_id = x.contact_group_id,
            business_id = case when x.business_changed then b.id else c.business_id end,
            updated_at = $2
       from json_to_recordset($6::json) as x(${RECORDSET_COLUMNS}, business_changed boolean, ${WAS_COLUMNS})
       left join business b on b.key = lower(x.business_name)
      where c.company_id = $1 and c.id = x.id
     returning c.company_id, c.id, c.search_text, c.user_id, c.stage, x.was_search_text, x.was_user_id, x.was_stage`,
     `select x.id from json_to_recordset($6::json) as x(id bigint) where false`)}
   ), changed_listed as (
     ${changing(`${LISTED.changed.searchChanges}
     returning 1`, 'select 1 where false')}
   ), untagged as (
     ${childChanging(deletePairs('contact_tags', 'ct', 'tag_id', { contacts: '$9', keys: '$10', name: 'tag_id' }), `select 1 from unnest($9::bigint[], $10::bigint[]) where false`)}
   ), tagged as (
     ${childWriting(`insert into contact_tags (company_id, contact_id, tag_id, created_at)
     select $1, x.contact_id, x.tag_id, $2 from unnest($7::bigint[], $8::bigint[]) as x(contact_id, tag_id)
     returning 1`, `select 1 from unnest($7::bigint[], $8::bigint[]) where false`)}
   ), cleared as (
     ${childChanging(deletePairs('contact_custom_values', 'v', 'custom_field_id', { contacts: '$14', keys: '$15', name: 'field_id' }), `select 1 from unnest($14::bigint[], $15::bigint[]) where false`)}
   ), valued as (
     ${childWriting(`insert into contact_custom_values (company_id, contact_id, custom_field_id, value, created_at, updated_at)
     select $1, x.contact_id, x.field_id, x.value, $2, $2
       from unnest($11::bigint[], $12::bigint[], $13::text[]) as x(contact_id, field_id, value)
     on conflict (company_id, contact_id, custom_field_id) do update set value = excluded.value, updated_at = excluded.updated_at
     returning 1`, `select 1 from unnest($11::bigint[], $12::bigint[], $13::text[]) where false`)}
   ), evented as (
     ${INSERT_CONTACT_EVENTS}
     select $1, e.contact_id, e.kind::contact_event_kind, $3, e.data, $2
       from rows from (json_to_recordset($16::json) as (contact_id bigint, kind text, data jsonb)) with ordinality as e(contact_id, kind, data, ord)
      order by e.ord
     returning 1
   ), unlinked as (
     ${changing(`-- The leads of the changed contacts (a probe of leads_company_contact_idx per contact, each
     -- lead updated by its primary key, as lead_found below): as one "= any" over the company,
     -- every batch's generic plan walked all of the company's leads, with no contact to unlink.
     ${setLeadsContact('null')}
       from unnest($24::bigint[]) as r(contact_id)
      cross join lateral (${leadsOfContactProbe('(select $1::bigint)', 'r.contact_id')}) f
      where l.company_id = f.company_id and l.id = f.id and (l.contact_id = r.contact_id) is true
     returning l.user_id`, `select null::bigint as user_id from unnest($24::bigint[]) where false`)}
   ), lead_found as (
     -- The unlinked leads of each new email: one probe of leads_company_email_idx per email, in
     -- a subquery that holds the company (as a value the plan does not see) and the email only
     -- (OFFSET 0 keeps the test of contact_id out of it), each lead then updated by its primary
     -- key: the update names the company by the lead found, not by $1, and tests contact_id in a
     -- form no index takes (it is tested again on a lead another writer changed meanwhile), so
     -- that the primary key is the only index that fits. As one join over the company, a table
     -- never analysed was walked through leads_company_contact_idx, every unlinked lead of the
     -- company, for every batch (206 ms a batch at 100,000 unlinked leads;
     -- test/contacts/batch-lead-plans.test.ts).
     select f.company_id, f.id, n.contact_id, n.event_ord
       from unnest($21::bigint[], $22::text[], $23::bigint[]) as n(contact_id, email, event_ord)
      cross join lateral (${leadsOfEmailProbe('(select $1::bigint)', 'n.email')}) f
      where f.contact_id is null
   ), linked as (
     ${setLeadsContact('n.contact_id')}
       from lead_found n
      where l.company_id = n.company_id and l.id = n.id and (l.contact_id is null) is true
     returning l.*, n.event_ord
   ), counted as (
     ${addToCounters(`     select $1, d.list, d.key, ${WRITER_SLOT}, sum(d.delta)::bigint
       from (select x.list, x.key, x.delta from unnest($17::text[], $18::bigint[], $19::bigint[]) as x(list, key, delta)
             union all ${LISTED.created.counterRows}${changing(`
             union all ${LISTED.changed.counterRows}`, '')}
             union all select '${LINKED_LEADS}', l.user_id, 1 from linked l
             union all select '${LINKED_LEADS}', u.user_id, -1 from unlinked u) d
      where (select count(*) from created) + (select count(*) from changed) + (select count(*) from untagged)
            + (select count(*) from tagged) + (select count(*) from cleared) + (select count(*) from valued)
            + (select count(*) from evented) >= 0
        and ${REFERENCES_SHARED}
      group by d.list, d.key
     having sum(d.delta) <> 0
      order by d.list, d.key`, { slot: true })}
     returning value
   ), api_events_in as (
     select e.ord, 0::bigint as sub, e.type, ${childReading(`coalesce(r.data, ${contactSnapshotJson('e.contact')})`, 'r.data')} as data
       from rows from (json_to_recordset($20::json) as (type text, contact json, contact_id bigint)) with ordinality as e(type, contact, contact_id, ord)
       left join created_record r on r.id = e.contact_id
     union all
     select l.event_ord, l.id, 'lead.linked', ${leadJson('l')} from linked l
   ), api_events as (
     select row_number() over (order by e.ord, e.sub) as ord, e.type, e.data from api_events_in e
   ), ${outboxCtes('api_events', '$1::bigint', '$2::timestamptz')}
   select (select count(*) from recorded_events)::int as events,
          (select e.data from api_events_in e where $25 and e.ord = 1 and e.sub = 0)::text as json`
}

// The builder's statements, each chosen by what a write holds (writeBatch). A write that
// leaves out a part does not open that part's tables for writing nor fire their triggers.
const writeStatement = (name: string, parts: WriteParts) => defineQuery<{ events: number; json: string | null }>(name, writeSql(parts))
const WRITE_STATEMENTS = {
  /** Every part: a batch that changes contacts and their tags or custom values. */
  all: writeStatement('contacts.batchWrite', { changes: true, childWrites: true, childReads: true }),
  /** Contacts changed, their tags and custom values as they were (most PUTs). */
  changePlain: writeStatement('contacts.changePlainWrite', { changes: true, childWrites: false, childReads: true }),
  /** Contacts created only, with tags or custom values. */
  create: writeStatement('contacts.createWrite', { changes: false, childWrites: true, childReads: true }),
  /** Contacts created only, without tags or custom values, each event's payload the row it inserted (most POSTs). */
  createPlain: writeStatement('contacts.createPlainWrite', { changes: false, childWrites: false, childReads: false }),
}

/** The statement that runs `w`: the one with the fewest parts that holds all it writes. */
function writeStatementFor(w: BatchWrite) {
  // Removing a tag or a custom value is a change: only the statements with changes remove.
  const changes = w.changed.length > 0 || w.relinked.length > 0 || w.tagsRemoved.length > 0 || w.valuesCleared.length > 0
  const childWrites = w.tagsAdded.length > 0 || w.tagsRemoved.length > 0 || w.valuesSet.length > 0 || w.valuesCleared.length > 0
  if (changes) return childWrites ? WRITE_STATEMENTS.all : WRITE_STATEMENTS.changePlain
  const snapshots = w.apiEvents.some((event) => !('contact_id' in event))
  return childWrites || snapshots ? WRITE_STATEMENTS.create : WRITE_STATEMENTS.createPlain
}

/**
 * Writes a batch with the statement writeStatementFor picks; call inside the transaction that
 * resolved it. With `answer`, gives the contact of its first webhook event as JSON text: a
 * POST's or a PUT's one contact, as its contact.created or contact.updated carries it.
 */
export async function writeBatch(db: Db, companyId: CompanyId, userId: number, now: Date, w: BatchWrite, answer = false) {
  const written = await runSingle(db, writeStatementFor(w), [
    companyId, now, userId,
    w.businessNames,
    JSON.stringify(w.created),
    JSON.stringify(w.changed),
    ...columns(w.tagsAdded, ['contactId', 'tagId']),
    ...columns(w.tagsRemoved, ['contactId', 'tagId']),
    ...columns(w.valuesSet, ['contactId', 'fieldId', 'value']),
    ...columns(w.valuesCleared, ['contactId', 'fieldId']),
    // The events go as JSON documents, one stringify each: a text[] of JSON strings made the
    // driver escape every quote of every payload (a tenth of a batch's CPU).
    JSON.stringify(w.events),
    ...columns(w.counters, ['list', 'key', 'delta']),
    JSON.stringify(w.apiEvents),
    ...columns(w.links, ['contactId', 'email', 'eventOrd']),
    w.relinked,
    answer,
  ])
  return written.json
}

// One live contact by email, locked: the item-by-item path, as batchLockContacts finds them.
const byEmail = defineQuery<{ id: number; business: string | null }>(
  'contacts.batchFindByEmail',
  `select l.id, l.business
     from (select f.id, e.email from ${contactsOfEmails('array[lower($2::text)]')}
            where f.company_id = $1 and f.deleted_at is null) x
    ${lockFound('x.id')}
    where l.deleted_at is null and lower(l.email) = x.email`,
)

export function findLiveContactByEmail(db: Db, companyId: CompanyId, email: string) {
  return runOne(db, byEmail, [companyId, email])
}

// Which of the emails a live contact of the company has (lower-cased), for an import that skips
// known emails: one probe per email, as batchLockContacts finds them, without locking.
const liveEmails = defineQuery<{ email: string }>(
  'contacts.batchLiveEmails',
  `select e.email from ${contactsOfEmails('$2::text[]')}
    where f.company_id = $1 and f.deleted_at is null`,
)

/** The emails (lower-cased) among `emails` that a live contact of the company has. */
export async function liveContactEmails(db: Db, companyId: CompanyId, emails: string[]): Promise<Set<string>> {
  return new Set((await run(db, liveEmails, [companyId, emails.map((email) => email.toLowerCase())])).map((row) => row.email))
}
