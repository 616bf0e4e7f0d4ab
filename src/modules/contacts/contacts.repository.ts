import { and, asc, eq, inArray, isNull, sql, type SQL } from 'drizzle-orm'
import type { Database } from '../../db/client.js'
import { defineQuery, run, runOne } from '../../db/query.js'
import { contactCustomValues, contacts, contactTags, customFields, tags } from '../../db/schema.js'
import type { CompanyId } from '../../tenancy.js'
import type { Contact } from './contacts.service.js'

export type ContactRow = typeof contacts.$inferSelect
export type ContactInsert = Omit<typeof contacts.$inferInsert, 'companyId' | 'id'>
export type ContactChanges = Partial<Omit<ContactInsert, 'createdAt'>>

export interface ContactFilter {
  userId?: number | undefined
  /** Case-insensitive substring of full name, business or email. */
  search?: string | undefined
}

export interface ContactTagRow {
  contactId: number
  id: number
  name: string
  color: string
}

export interface ContactValueRow {
  contactId: number
  customFieldId: number
  field: string
  value: string
}

const escapeLike = (term: string) => term.replace(/[\\%_]/g, '\\$&')

/**
 * The WHERE of a list: live contacts of the company, of a user, matching a search. The
 * search expressions are exactly those of contacts_search_trgm_idx, so the GIN index serves it.
 */
function listCondition(companyId: CompanyId, filter: ContactFilter): SQL {
  const conditions = [eq(contacts.companyId, companyId), isNull(contacts.deletedAt)]
  if (filter.userId !== undefined) conditions.push(eq(contacts.userId, filter.userId))
  if (filter.search !== undefined) {
    const pattern = `%${escapeLike(filter.search)}%`
    conditions.push(sql`(
      (${contacts.firstName} || ' ' || coalesce(${contacts.lastName}, '')) ilike ${pattern}
      or coalesce(${contacts.business}, '') ilike ${pattern}
      or ${contacts.email} ilike ${pattern})`)
  }
  const condition = and(...conditions)
  if (!condition) throw new Error('empty condition')
  return condition
}

/**
 * A page of a search and its total, in one statement. The match set is computed once,
 * first and whole, in a MATERIALIZED CTE (through contacts_search_trgm_idx when the term
 * has trigrams), then the page's ids and the count are both read from it in InitPlans,
 * and the page's rows by primary key. Each part runs exactly once whatever the planner
 * believes about the company, so the worst case is one pass over the company's live
 * contacts; a per-row loop (`id IN (SELECT … LIMIT)` re-run for every row: 40 s for 5,000
 * fresh contacts) cannot happen. docs/contacts.md has the EXPLAIN figures.
 *
 * The outer LEFT JOIN from the one-row summary keeps the total when the page is past the
 * end: then the only row has the total and no contact.
 */
export async function searchContacts(
  db: Database,
  companyId: CompanyId,
  filter: ContactFilter & { search: string },
  page: { limit: number; offset: number },
): Promise<{ rows: ContactRow[]; total: number }> {
  const result = await searchStatement(db, companyId, filter, page)
  const rows: ContactRow[] = []
  for (const row of result) if (row.contact) rows.push(row.contact)
  return { rows, total: result[0]?.total ?? 0 }
}

/** The statement of `searchContacts`, unrun: the tests EXPLAIN it. */
export function searchStatement(
  db: Database,
  companyId: CompanyId,
  filter: ContactFilter & { search: string },
  page: { limit: number; offset: number },
) {
  const summary = sql`(
    with matches as materialized (
      select ${contacts.id} as id from ${contacts} where ${listCondition(companyId, filter)}
    )
    select
      (select count(*) from matches)::int as total,
      array(select id from matches order by id limit ${page.limit} offset ${page.offset}) as ids
  ) summary`
  return db
    .select({ total: sql<number>`summary.total`, contact: contacts })
    .from(summary)
    .leftJoin(contacts, and(eq(contacts.companyId, companyId), sql`${contacts.id} = any(summary.ids)`))
    .orderBy(asc(contacts.id))
}

// Statements compare the company as `(select $1::bigint)`: the planner then cannot use the
// value's statistics, and a company it has not analysed yet (estimated at one row) does
// not get a plan that walks all of its rows through another index (152 → 5 buffers for a
// contact by id in a fresh 30,000-contact company; docs/performance.md).
// A contact as the API shows it, from `contacts c`: its tags (tag id ascending) and custom
// fields (field id ascending) aggregated in the same statement, so rows go out as they are.
// Each aggregate reads contact_tags / contact_custom_values by their primary keys
// (company_id, contact_id, …) and joins tags / custom_fields by primary key.
const CONTACT_RECORD = `c.id, c.user_id, c.first_name, c.last_name, c.email, c.business, c.position, c.telephone,
          c.cellphone, c.address, c.city, c.state, c.country, c.url, c.linkedin, c.variable1,
          c.variable2, c.variable3, c.carousel, c.stage, c.contact_group_id,
          coalesce((select json_agg(json_build_object('id', t.id, 'name', t.name, 'color', t.color) order by t.id)
                      from contact_tags ct
                      join tags t on t.company_id = ct.company_id and t.id = ct.tag_id
                     where ct.company_id = c.company_id and ct.contact_id = c.id), '[]') as tags,
          coalesce((select json_agg(json_build_object('field', f.field, 'value', v.value) order by f.id)
                      from contact_custom_values v
                      join custom_fields f on f.company_id = v.company_id and f.id = v.custom_field_id
                     where v.company_id = c.company_id and v.contact_id = c.id), '[]') as custom_fields,
          c.created_at, c.updated_at`

const contactById = defineQuery<Contact>(
  'contacts.byId',
  `select ${CONTACT_RECORD}
     from contacts c
    where c.company_id = (select $1::bigint) and c.id = $2 and c.deleted_at is null`,
)

// A page of live contacts with the list's total from its counter row, in one statement.
// The page's ids come from an index alone in an ARRAY(...) run once per statement, whatever
// the statistics, then their rows by primary key. A page in the second half reads the index
// backwards from the known total, so the last page costs what the first does (an OFFSET
// walks every entry it skips: 175 ms for page 20,000 of 25 at 1 M contacts); this trusts
// the counter, which every write keeps exact in its own transaction. A page past the end
// reads no index at all (the lateral part is skipped when the offset is not below the total).
const pageStatement = (name: string, live: string) =>
  defineQuery<{ total: number } & ({ id: null } | Contact)>(
    name,
    `with total as (
       select coalesce((select value from counters where company_id = $1 and list = $2 and key = $3), 0) as n
     )
     select total.n as total, p.*
       from total
       left join lateral (
         select ${CONTACT_RECORD}
           from contacts c
          where c.company_id = (select $1::bigint)
            and c.id = any(case when $5::bigint < total.n - $5::bigint
                             then array(select id from contacts where ${live} order by id limit $4 offset $5)
                             else array(select id from contacts where ${live} order by id desc
                                         limit greatest(least($4, total.n - $5), 0)
                                        offset greatest(total.n - $5 - $4, 0))
                           end)
            and $5 < total.n
          order by c.id
       ) p on true`,
  )

// Ids from contacts_company_live_idx (company_id, id) where deleted_at is null.
const contactsPage = pageStatement('contacts.page', 'company_id = (select $1::bigint) and deleted_at is null')

// Ids from contacts_company_user_live_idx (company_id, user_id, id) where deleted_at is null.
const contactsPageOfUser = pageStatement(
  'contacts.pageOfUser',
  'company_id = (select $1::bigint) and user_id = $6 and deleted_at is null',
)

/** A page of live contacts (of one owner when userId is given) and the list's total from `counter`. */
export async function contactsPageWithTotal(
  db: Database,
  companyId: CompanyId,
  counter: { list: string; key: number },
  userId: number | undefined,
  page: { limit: number; offset: number },
): Promise<{ total: number; rows: Contact[] }> {
  const params = [companyId, counter.list, counter.key, page.limit, page.offset]
  const rows = await (userId === undefined
    ? run(db, contactsPage, params)
    : run(db, contactsPageOfUser, [...params, userId]))
  return { total: rows[0]?.total ?? 0, rows: rows[0]?.id === null ? [] : (rows as Contact[]) }
}

// What a write must check before it changes anything, in one statement: the named tags
// (by id) and custom field definitions (by lower-cased name) of the company.
const REFERENCES = `(select coalesce(json_agg(json_build_object('id', t.id, 'name', t.name, 'color', t.color) order by t.id), '[]')
             from tags t where t.company_id = $1 and t.id = any($2::bigint[])) as tags,
          (select coalesce(json_agg(json_build_object('id', f.id, 'field', f.field, 'kind', f.kind, 'options', f.options) order by f.id), '[]')
             from custom_fields f where f.company_id = $1 and lower(f.field) = any($3::text[])) as custom_fields`

export interface ContactReferences {
  tags: { id: number; name: string; color: string }[]
  custom_fields: { id: number; field: string; kind: CustomFieldKind; options: { name: string }[] }[]
}
type CustomFieldKind = (typeof customFields.$inferSelect)['kind']

const contactReferences = defineQuery<ContactReferences>('contacts.references', `select ${REFERENCES}`)

// The same, first taking the transaction's advisory lock on the email's lead links
// (lead-links.ts: the same key), so that a lead with this email created concurrently is
// either seen by the insert that follows or sees this contact.
const contactReferencesLockingEmail = defineQuery<ContactReferences>(
  'contacts.referencesLockingEmail',
  `select ${REFERENCES}
     from (select pg_advisory_xact_lock(hashtextextended('lead-link:' || $1::bigint || ':' || lower($4::text), 0))) as lock`,
)

/** Tags by id and custom field definitions by name; with `lockEmail`, inside a transaction, after the lead-link lock. */
export async function findContactReferences(
  db: Database,
  companyId: CompanyId,
  tagIds: number[],
  fieldNames: string[],
  lockEmail?: string,
): Promise<ContactReferences> {
  const lowered = fieldNames.map((name) => name.toLowerCase())
  const row = await (lockEmail === undefined
    ? runOne(db, contactReferences, [companyId, tagIds, lowered])
    : runOne(db, contactReferencesLockingEmail, [companyId, tagIds, lowered, lockEmail]))
  if (!row) throw new Error('references returned no row')
  return row
}

/** A new contact's columns, in the order of the insert's parameters $2 to $21. */
export interface NewContact {
  userId: number
  firstName: string
  lastName: string | null
  email: string
  business: string | null
  position: string | null
  telephone: string | null
  cellphone: string | null
  address: string | null
  city: string | null
  state: string | null
  country: string | null
  url: string | null
  linkedin: string | null
  variable1: string | null
  variable2: string | null
  variable3: string | null
  carousel: boolean
  stage: string | null
  contactGroupId: number | null
}

// A contact created whole in one statement: its business (found or created by name), the
// contact, its tags and custom values, its contact_created event, its leads linked by email
// (the caller holds the lead-link lock), and the counters. The counters' insert is the one
// data-modifying part nothing reads, so PostgreSQL runs it after everything else: the hot
// counter rows are locked at the very end, until the COMMIT that follows. They are updated
// in (list, key) order, as everywhere, so concurrent writers cannot deadlock on them.
// Answers the contact in its API shape, tags and custom fields built from the same inputs.
const insertContactStatement = defineQuery<Contact>(
  'contacts.insert',
  `with business as (
     insert into businesses (company_id, name)
     select $1, $22::text where $22::text is not null
     on conflict (company_id, lower(name)) do update set updated_at = businesses.updated_at
     returning id
   ), c as (
     insert into contacts (company_id, user_id, first_name, last_name, email, business, position, telephone,
                           cellphone, address, city, state, country, url, linkedin, variable1, variable2,
                           variable3, carousel, stage, contact_group_id, business_id, created_at, updated_at)
     values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21,
             (select id from business), $23, $23)
     returning *
   ), tagged as (
     insert into contact_tags (company_id, contact_id, tag_id, created_at)
     select $1, c.id, tag_id, $23 from c, unnest($24::bigint[]) as tag_id
   ), valued as (
     insert into contact_custom_values (company_id, contact_id, custom_field_id, value, created_at, updated_at)
     select $1, c.id, v.field_id, v.value, $23, $23 from c, unnest($25::bigint[], $26::text[]) as v(field_id, value)
   ), event as (
     insert into contact_events (company_id, contact_id, kind, user_id, data, occurred_at)
     select $1, c.id, 'contact_created', $2, '{}', $23 from c
   ), linked as (
     update leads l set contact_id = c.id, updated_at = now()
       from c
      where l.company_id = $1 and lower(l.email) = lower($5) and l.contact_id is null
     returning l.user_id
   ), counted as (
     insert into counters (company_id, list, key, value)
     select $1, d.list, d.key, d.delta
       from (select 'contacts' as list, 0::bigint as key, 1::bigint as delta
             union all select 'contacts_by_user', $2, 1
             union all select 'leads_linked', user_id, count(*) from linked group by user_id) d
      order by d.list, d.key
     on conflict (company_id, list, key) do update set value = counters.value + excluded.value
   )
   select c.id, c.user_id, c.first_name, c.last_name, c.email, c.business, c.position, c.telephone,
          c.cellphone, c.address, c.city, c.state, c.country, c.url, c.linkedin, c.variable1,
          c.variable2, c.variable3, c.carousel, c.stage, c.contact_group_id,
          coalesce((select json_agg(json_build_object('id', t.id, 'name', t.name, 'color', t.color) order by t.id)
                      from tags t where t.company_id = $1 and t.id = any($24::bigint[])), '[]') as tags,
          coalesce((select json_agg(json_build_object('field', f.field, 'value', v.value) order by f.id)
                      from unnest($25::bigint[], $26::text[]) as v(field_id, value)
                      join custom_fields f on f.company_id = $1 and f.id = v.field_id), '[]') as custom_fields,
          c.created_at, c.updated_at
     from c`,
)

/**
 * Creates a contact with everything that comes with it (see insertContactStatement); call
 * inside a transaction holding the lead-link lock of its email. `businessName` is the
 * business to find or create, null for none; tags and values are known to exist.
 */
export async function insertContactRecord(
  db: Database,
  companyId: CompanyId,
  contact: NewContact,
  businessName: string | null,
  tagIds: number[],
  values: { customFieldId: number; value: string }[],
  now: Date,
): Promise<Contact> {
  const c = contact
  const row = await runOne(db, insertContactStatement, [
    companyId, c.userId, c.firstName, c.lastName, c.email, c.business, c.position, c.telephone, c.cellphone,
    c.address, c.city, c.state, c.country, c.url, c.linkedin, c.variable1, c.variable2, c.variable3, c.carousel,
    c.stage, c.contactGroupId, businessName, now, tagIds, values.map((v) => v.customFieldId), values.map((v) => v.value),
  ])
  if (!row) throw new Error('insert returned no row')
  return row
}

/** A live contact in its API shape, or undefined. */
export function findContactRecord(db: Database, companyId: CompanyId, id: number): Promise<Contact | undefined> {
  return runOne(db, contactById, [companyId, id])
}

export async function findLiveContact(
  db: Database,
  companyId: CompanyId,
  id: number,
  options: { forUpdate?: boolean } = {},
): Promise<ContactRow | undefined> {
  const query = db
    .select()
    .from(contacts)
    .where(and(eq(contacts.companyId, companyId), eq(contacts.id, id), isNull(contacts.deletedAt)))
  const [row] = await (options.forUpdate ? query.for('update') : query)
  return row
}

/** Many contacts in one statement (demo data), returned in the given order. */
export async function insertContacts(db: Database, companyId: CompanyId, values: ContactInsert[]): Promise<ContactRow[]> {
  if (values.length === 0) return []
  const rows = await db.insert(contacts).values(values.map((v) => ({ ...v, companyId }))).returning()
  return rows.sort((a, b) => a.id - b.id)
}

export async function updateContact(
  db: Database,
  companyId: CompanyId,
  id: number,
  changes: ContactChanges,
): Promise<ContactRow> {
  const [row] = await db
    .update(contacts)
    .set(changes)
    .where(and(eq(contacts.companyId, companyId), eq(contacts.id, id)))
    .returning()
  if (!row) throw new Error('update returned no row')
  return row
}

/** Tags of many contacts in one query, tag id ascending. */
export async function tagsOfContacts(db: Database, companyId: CompanyId, contactIds: number[]): Promise<ContactTagRow[]> {
  if (contactIds.length === 0) return []
  return db
    .select({ contactId: contactTags.contactId, id: tags.id, name: tags.name, color: tags.color })
    .from(contactTags)
    .innerJoin(tags, and(eq(tags.companyId, contactTags.companyId), eq(tags.id, contactTags.tagId)))
    .where(and(eq(contactTags.companyId, companyId), inArray(contactTags.contactId, contactIds)))
    .orderBy(asc(contactTags.contactId), asc(tags.id))
}

/** Custom field values of many contacts in one query, custom field id ascending. */
export async function valuesOfContacts(db: Database, companyId: CompanyId, contactIds: number[]): Promise<ContactValueRow[]> {
  if (contactIds.length === 0) return []
  return db
    .select({
      contactId: contactCustomValues.contactId,
      customFieldId: customFields.id,
      field: customFields.field,
      value: contactCustomValues.value,
    })
    .from(contactCustomValues)
    .innerJoin(
      customFields,
      and(eq(customFields.companyId, contactCustomValues.companyId), eq(customFields.id, contactCustomValues.customFieldId)),
    )
    .where(and(eq(contactCustomValues.companyId, companyId), inArray(contactCustomValues.contactId, contactIds)))
    .orderBy(asc(contactCustomValues.contactId), asc(customFields.id))
}

export async function addContactTags(
  db: Database,
  companyId: CompanyId,
  contactId: number,
  tagIds: number[],
  now: Date,
): Promise<void> {
  if (tagIds.length === 0) return
  await db.insert(contactTags).values(tagIds.map((tagId) => ({ companyId, contactId, tagId, createdAt: now })))
}

/** Tags of many contacts in one statement (demo data). */
export async function insertContactTags(
  db: Database,
  companyId: CompanyId,
  pairs: { contactId: number; tagId: number; createdAt: Date }[],
): Promise<void> {
  if (pairs.length === 0) return
  await db.insert(contactTags).values(pairs.map((pair) => ({ companyId, ...pair })))
}

export async function removeContactTags(db: Database, companyId: CompanyId, contactId: number, tagIds: number[]) {
  if (tagIds.length === 0) return
  await db
    .delete(contactTags)
    .where(and(eq(contactTags.companyId, companyId), eq(contactTags.contactId, contactId), inArray(contactTags.tagId, tagIds)))
}

export async function setCustomValues(
  db: Database,
  companyId: CompanyId,
  contactId: number,
  values: { customFieldId: number; value: string }[],
  now: Date,
): Promise<void> {
  if (values.length === 0) return
  await db
    .insert(contactCustomValues)
    .values(values.map((v) => ({ companyId, contactId, customFieldId: v.customFieldId, value: v.value, createdAt: now, updatedAt: now })))
    .onConflictDoUpdate({
      target: [contactCustomValues.companyId, contactCustomValues.contactId, contactCustomValues.customFieldId],
      set: { value: sql`excluded.value`, updatedAt: now },
    })
}

/** Custom values of many contacts in one statement (demo data). */
export async function insertCustomValues(
  db: Database,
  companyId: CompanyId,
  values: { contactId: number; customFieldId: number; value: string; createdAt: Date }[],
): Promise<void> {
  if (values.length === 0) return
  await db.insert(contactCustomValues).values(values.map((v) => ({ companyId, ...v, updatedAt: v.createdAt })))
}

export async function clearCustomValues(db: Database, companyId: CompanyId, contactId: number, customFieldIds: number[]) {
  if (customFieldIds.length === 0) return
  await db
    .delete(contactCustomValues)
    .where(and(
      eq(contactCustomValues.companyId, companyId),
      eq(contactCustomValues.contactId, contactId),
      inArray(contactCustomValues.customFieldId, customFieldIds),
    ))
}
