// Every statement of the leads module. Rows come out in the API shape, so they go out as they
// are. Plans at a million leads: docs/performance.md#measured-at-the-statements.
import type { Db } from '../../db/db.js'
import { COMPANY } from '../../db/company.js'
import { pageIds, pageParams, rowsByIds, userPageReader, type PageRow } from '../../db/paging.js'
import { addToCounters, COUNTER_ROWS } from '../../db/counters.js'
import { defineQuery, run, runOne } from '../../db/query.js'
import { recordSql, type Row } from '../../db/records.js'
import { walkRows } from '../../db/walk.js'
import type { LinkFilter } from '../../http/link-filter.js'
import { syncAt, walkParams, type WalkWindow } from '../../http/sync.js'
import type { CompanyId } from '../../tenancy.js'
import { outboxCtes } from '../outbox/index.js'
import { INSERT_BUSINESSES } from '../businesses/index.js'
import { LINKED_LEADS } from './lead-links.js'
import { DemoLeadContact, Lead as LeadSchema, type LeadCreateBody } from './leads.schemas.js'

/** A lead as the API shows it. */
export type LeadRecord = Row<typeof LeadSchema>
/** A row of a walk: a lead and its place in the walk. */
export type LeadWalkRow = LeadRecord & { sync_at: string }


// Counters (see src/db/counters.ts), key = the creator's user id: `leads` counts every lead
// of a user, `leads_linked` those with a contact (lead-links.ts moves it with the links).
// A filter's total is a weighted sum of the two rows: all = leads, with = leads_linked,
// without = leads − leads_linked.
// The company is compared as COMPANY (src/db/company.ts), so a fresh company keeps its plan.
const WEIGHTS: Record<LinkFilter, [all: number, linked: number]> = { all: [1, 0], with: [0, 1], without: [1, -1] }
const totalOf = (filter: LinkFilter) => {
  const [all, linked] = WEIGHTS[filter]
  return `(select coalesce(sum(k.value * case k.list when 'leads' then ${all} else ${linked} end), 0)::bigint
             from ${COUNTER_ROWS} k
            where k.company_id = ${COMPANY} and k.list in ('leads', 'leads_linked') and k.key = $2)`
}

const LEAD = recordSql(LeadSchema, 'leads l')
const LEAD_COLUMNS = LEAD.columns('')

/** A lead as the API shows it, as JSON built in SQL from the row `alias` (webhook event data). */
export const leadJson = (alias: string) => LEAD.json(alias)

// By primary key (company_id, id); the company hidden from the planner as above (a custom
// plan for a fresh company otherwise read it through leads_company_contact_idx: 1,062
// buffers instead of 4).
const leadById = defineQuery<LeadRecord>('leads.byId', `select ${LEAD_COLUMNS} from leads where company_id = ${COMPANY} and id = $2`, {
  pipelined: true,
})

export function findLead(db: Db, companyId: CompanyId, id: number): Promise<LeadRecord | undefined> {
  return runOne(db, leadById, [companyId, id])
}

// Two counters (their slot rows) by primary key (company_id, list, key, slot); never a count of leads.
const countStatements: Record<LinkFilter, ReturnType<typeof defineQuery<{ count: number }>>> = {
  all: defineQuery('leads.count', `select ${totalOf('all')} as count`, { replica: true }),
  with: defineQuery('leads.countLinked', `select ${totalOf('with')} as count`, { replica: true }),
  without: defineQuery('leads.countUnlinked', `select ${totalOf('without')} as count`, { replica: true }),
}

/** How many leads of a user match the filter. */
export async function countLeads(db: Db, companyId: CompanyId, userId: number, filter: LinkFilter): Promise<number> {
  return (await runOne(db, countStatements[filter], [companyId, userId]))?.count ?? 0
}

// A page of a user's leads and its total in one statement ($1 company, $2 user, $3 limit,
// $4 offset). The total comes from the counters; the page's ids from an index alone
// (index-only), in an ARRAY(...) that runs once, then the rows by primary key. Pages in the
// second half are read backwards from the end of the index (the total is known), so the last
// page costs what the first does: at 1 M leads, 20 users, the last page of a user went from
// an index walk over ~50,000 entries to 25. A page past the end reads no index at all.
// `ids` is the index's WHERE after company and user: leads_company_user_idx (company_id,
// user_id, id) for all of them, leads_company_user_linked_idx (company_id, user_id,
// (contact_id is not null), id) for the other two. `= true` and `is false` keep the
// expression whole for the planner (`= false` would be rewritten to `contact_id is null`,
// which the index lacks).
const PAGE = pageParams(3, 4)
const pageStatement = (name: string, filter: LinkFilter, where: string) => {
  const ids = (order: string, limit: string, offset: string) =>
    `array(select id from leads where company_id = ${COMPANY} and user_id = $2${where} order by ${order} limit ${limit} offset ${offset})`
  return defineQuery<PageRow<LeadRecord>>(
    name,
    `with total as materialized (select ${totalOf(filter)} as n)
     select total.n as total, p.*
       from total
       left join lateral (
         select ${LEAD_COLUMNS}
           from ${rowsByIds('leads', 'leads', COMPANY, pageIds(PAGE, 'total.n', ['id', 'id desc'], ids))}
          order by id
       ) p on true`,
  )
}

const pageStatements = {
  all: pageStatement('leads.page', 'all', ''),
  with: pageStatement('leads.pageLinked', 'with', ' and (contact_id is not null) = true'),
  without: pageStatement('leads.pageUnlinked', 'without', ' and (contact_id is not null) is false'),
}

/** A page of the leads created by `userId` (id ascending) and how many match the filter. */
export const leadsPageWithTotal = userPageReader(pageStatements)

// A page of an updated_since walk (src/http/sync.ts has the parameters): from
// leads_company_updated_idx (company_id, updated_at, id), an index range read in order that
// stops after $6 rows.
const leadsWalk = defineQuery<LeadWalkRow>(
  'leads.walk',
  `select ${syncAt('updated_at')} as sync_at, ${LEAD_COLUMNS}
     from leads
    ${walkRows('')}`,
  { replica: true },
)

export function leadsWalkPage(db: Db, companyId: CompanyId, window: WalkWindow): Promise<LeadWalkRow[]> {
  return run(db, leadsWalk, walkParams(companyId, window))
}

/** The fields of a create's body, in the order of the insert's parameters $3 to $18 (an omitted one is null). */
const INSERT_FIELDS = [
  'first_name', 'last_name', 'email', 'provider', 'position', 'linkedin_url', 'telephone', 'city', 'state_province', 'country',
  'degree_of_connection', 'business_name', 'business_linkedin_url', 'business_sector', 'business_colaborators_count',
  'business_telephone',
] as const satisfies readonly (keyof LeadCreateBody)[]

// A lead created whole in one statement ($1 company, $2 creator, $3..$18 the fields, $19 the
// business to find or create by name, null for none): the live contact with its email
// (share-locked, so a concurrent delete waits for this transaction and then unlinks what it
// linked; the caller holds the lead-link lock, lead-links.ts), the business (given non-null
// details overwrite the stored ones, as businesses.repository.ts upsertBusiness does), the
// lead, its counters, and its webhook events (lead.created, and lead.linked when it found
// its contact). Nothing reads the counters' insert, so PostgreSQL runs it at the end of the
// statement: the creator's counter rows are locked near the end, until the COMMIT that
// follows; counters are taken in (list, key) order as everywhere. A second lead with the
// same provider and email fails on leads_company_provider_email_key. The contacts module
// writes the contact's CTE and defines the statement, since it owns contacts and this module
// cannot import it (contacts imports this one).
/** The text of leads.insert, `contact` the CTE body that finds the live contact with email $5 of company $1, share-locked. */
export const insertLeadSql = (contact: string) =>
  `with contact as (
     ${contact}
   ), business as (
     ${INSERT_BUSINESSES}
     select $1, $19::text, $15, $16, $17, $18 where $19::text is not null
     on conflict (company_id, lower(name)) do update set
       linkedin_url = coalesce(excluded.linkedin_url, businesses.linkedin_url),
       sector = coalesce(excluded.sector, businesses.sector),
       colaborators_count = coalesce(excluded.colaborators_count, businesses.colaborators_count),
       telephone = coalesce(excluded.telephone, businesses.telephone),
       updated_at = case when coalesce(excluded.linkedin_url, excluded.sector, excluded.colaborators_count::text, excluded.telephone) is not null
                         then now() else businesses.updated_at end
     returning id
   ), lead as (
     insert into leads (company_id, user_id, contact_id, first_name, last_name, email, provider, position, linkedin_url,
                        telephone, city, state_province, country, degree_of_connection, business_name,
                        business_linkedin_url, business_sector, business_colaborators_count, business_telephone, business_id)
     values ($1, $2, (select id from contact), $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18,
             (select id from business))
     returning ${LEAD_COLUMNS}
   ), counted as (
     ${addToCounters(`     select $1, d.list, lead.user_id, 1
       from lead, (values ('leads', true), ('leads_linked', false)) as d(list, all_leads)
      where d.all_leads or lead.contact_id is not null
      order by d.list`)}
     returning value
   ), event as (
     select e.ord, e.type, ${leadJson('lead')} as data
       from lead, (values (1, 'lead.created'), (2, 'lead.linked')) as e(ord, type)
      where e.ord = 1 or lead.contact_id is not null
   ), ${outboxCtes('event', '$1::bigint', 'now()')}
   select * from lead`

/** The parameters of leads.insert: `userId`'s lead with its fields and the business to find or create by name. */
export const insertLeadParams = (companyId: CompanyId, userId: number, lead: LeadCreateBody, businessName: string | null) =>
  [companyId, userId, ...INSERT_FIELDS.map((field) => lead[field] ?? null), businessName]

// PUT /leads/:id/contact, first: the lead by primary key, locked until the transaction ends,
// so that a contact's write linking or unlinking it (they update its row) waits for the link
// and then sees it.
const lockLeadStatement = defineQuery<LeadRecord>('leads.lock', `select ${LEAD_COLUMNS} from leads where company_id = ${COMPANY} and id = $2 for update`)

/** A lead of the company, locked until the transaction ends; undefined when there is none. */
export function lockLead(db: Db, companyId: CompanyId, id: number): Promise<LeadRecord | undefined> {
  return runOne(db, lockLeadStatement, [companyId, id])
}

// PUT /leads/:id/contact, then, with the lead locked: the contact by primary key, live,
// share-locked (a concurrent delete waits for this transaction, then unlinks what it linked,
// as with a lead's create), the lead linked to it, the creator's count of linked leads when
// the lead had no contact ($4), and the lead.linked webhook event. No row: the contact is not
// a live contact of the company. The lead's email is left as it is, whatever the contact's.
// The contacts module writes the contact's CTE and defines the statement, as for leads.insert.
/** The text of leads.link, `contact` the CTE body that finds live contact $3 of company $1, share-locked. */
export const linkLeadSql = (contact: string) =>
  `with contact as (
     ${contact}
   ), lead as (
     update leads l set contact_id = contact.id, updated_at = now()
       from contact
      where l.company_id = $1 and l.id = $2
     returning ${LEAD.columns('l')}
   ), counted as (
     ${addToCounters(`     select $1, '${LINKED_LEADS}', lead.user_id, 1 from lead where $4::boolean`)}
     returning value
   ), event as (
     select 1 as ord, 'lead.linked' as type, ${leadJson('lead')} as data from lead
   ), ${outboxCtes('event', '$1::bigint', 'now()')}
   select * from lead`

// The leads linked to a contact (its page in the workspace), from leads_company_contact_idx
// (company_id, contact_id), then sorted by id: a contact has a few leads (one per provider of
// its email, and those linked by hand). Materialized, so that `order by id limit` cannot
// send the planner down the primary key in id order, filtering every lead of the company on
// its contact. Never analysed, the planner ties it with leads_company_updated_idx, as it
// does contacts.delete's unlinking (test/db/plans.params.ts).
const contactLeadsStatement = defineQuery<LeadRecord>(
  'leads.ofContact',
  `with linked as materialized (select ${LEAD_COLUMNS} from leads where company_id = ${COMPANY} and contact_id = $2)
   select * from linked order by id limit $3`,
  { pipelined: true },
)

/** The first `limit` leads linked to a contact, id ascending. */
export function leadsOfContact(db: Db, companyId: CompanyId, contactId: number, limit: number): Promise<LeadRecord[]> {
  return run(db, contactLeadsStatement, [companyId, contactId, limit])
}

/** Demo data: a contact as the demo leads read it, the DemoLeadContact schema's row. */
export type DemoLeadContactRecord = Row<typeof DemoLeadContact>
