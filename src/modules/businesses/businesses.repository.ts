// A business (a contact's employer) is one record per company per case-insensitive name,
// created when a contact or lead first names it. Lead business fields fill in its details.
import type { Db } from '../../db/db.js'
import { recordSql, type Row } from '../../db/records.js'
import { defineQuery, run, runSingle } from '../../db/query.js'
import type { CompanyId } from '../../tenancy.js'
import { Business } from './businesses.schemas.js'

export type BusinessRow = Row<typeof Business>

/**
 * The business record over `businesses b`, its live contacts counted by `contactsCount` (an
 * SQL expression given the row's prefix), written by the contacts module, which owns them.
 */
export const businessRecord = (contactsCount: (prefix: string) => string) => recordSql(Business, 'businesses b', { contacts_count: contactsCount })

/** After a join: the business of row `alias` (its company_id and business_id) as `businesses b`, by primary key. */
export const businessOfRow = (alias: string) => `businesses b on b.company_id = ${alias}.company_id and b.id = ${alias}.business_id`

/** The insert of a business with its details, a select or values of them following (lent to leads' statements). */
export const INSERT_BUSINESSES = 'insert into businesses (company_id, name, linkedin_url, sector, colaborators_count, telephone)'

/** The insert of businesses by name alone, a select of (company, name) following. */
export const INSERT_BUSINESS_NAMES = 'insert into businesses (company_id, name)'

/** On a name already there: a no-op update, so that RETURNING yields the row (businesses_company_name_key). */
export const KEEP_BUSINESS = 'on conflict (company_id, lower(name)) do update set updated_at = businesses.updated_at'

/** The id of the company's business named `name` (an SQL expression), from businesses_company_name_key, the table aliased or not. */
export const businessNamed = (company: string, name: string, alias = '') => {
  const a = alias === '' ? '' : `${alias}.`
  return `select ${a}id from businesses${alias === '' ? '' : ` ${alias}`} where ${a}company_id = ${company} and lower(${a}name) = lower(${name})`
}

export interface BusinessDetails {
  linkedinUrl?: string | null
  sector?: string | null
  colaboratorsCount?: number | null
  telephone?: string | null
}

// The conflict target is the expression index businesses_company_name_key (company_id,
// lower(name)); the no-op update on conflict still makes RETURNING yield the row. Given
// (non-null) details overwrite the stored ones and touch updated_at.
const upsertStatement = defineQuery<{ id: number }>(
  'businesses.upsert',
  `${INSERT_BUSINESSES}
   values ($1, $2, $3, $4, $5, $6)
   on conflict (company_id, lower(name)) do update set
     linkedin_url = coalesce(excluded.linkedin_url, businesses.linkedin_url),
     sector = coalesce(excluded.sector, businesses.sector),
     colaborators_count = coalesce(excluded.colaborators_count, businesses.colaborators_count),
     telephone = coalesce(excluded.telephone, businesses.telephone),
     updated_at = case
       when coalesce(excluded.linkedin_url, excluded.sector, excluded.colaborators_count::text, excluded.telephone) is not null
       then now() else businesses.updated_at end
   returning id`,
)

/**
 * The business named `name` (case-insensitive), created if new. Safe under concurrency:
 * one statement on the unique key.
 */
export async function upsertBusiness(
  db: Db,
  companyId: CompanyId,
  name: string,
  details: BusinessDetails = {},
): Promise<{ id: number }> {
  return runSingle(db, upsertStatement, [
    companyId,
    name,
    details.linkedinUrl ?? null,
    details.sector ?? null,
    details.colaboratorsCount ?? null,
    details.telephone ?? null,
  ])
}

// Demo data: many new businesses in one statement, from a JSON array, in the given order.
const insertManyStatement = defineQuery<{ id: number; name: string }>(
  'businesses.insertMany',
  `insert into businesses (company_id, name, linkedin_url, sector, colaborators_count, telephone, created_at, updated_at)
   select $1, v.name, v."linkedinUrl", v.sector, v."colaboratorsCount", v.telephone, v."createdAt", v."createdAt"
     from rows from (json_to_recordset($2::json)
            as (name text, "linkedinUrl" text, sector text, "colaboratorsCount" integer, telephone text,
                "createdAt" timestamptz))
          with ordinality as v
    order by v.ordinality
   returning id, name`,
)

/** Many new businesses in one statement (demo data, on a company without any), in the given order. */
export async function insertBusinesses(
  db: Db,
  companyId: CompanyId,
  values: (BusinessDetails & { name: string; createdAt: Date })[],
): Promise<{ id: number; name: string }[]> {
  if (values.length === 0) return []
  return (await run(db, insertManyStatement, [companyId, JSON.stringify(values)])).sort((a, b) => a.id - b.id)
}
