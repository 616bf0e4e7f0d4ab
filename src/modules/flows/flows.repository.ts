import type { Db } from '../../db/db.js'
import { addToCounters, counterTotal } from '../../db/counters.js'
import { limitOffset, pageParams, rowsByIds, unwrapPage, type Page, type PageRow, type PageSlice } from '../../db/paging.js'
import { defineQuery, run, runOne, runSingle } from '../../db/query.js'
import { recordSql } from '../../db/records.js'
import type { CompanyId } from '../../tenancy.js'
import { Flow as FlowSchema, type Enrollment, type Flow } from './flows.schemas.js'

/** Active enrollments per flow, key = flow id: `contacts_count`. */
/** Counter list of each flow's active contacts (key: flow id). */
export const FLOW_CONTACTS = 'flows.contacts'

/** Ends enrollments as removed at `at` (an SQL expression), a where clause following: lent to contacts' delete. */
export const endEnrollments = (at: string) => `update flow_enrollments set status = 'removed', updated_at = ${at}`

export interface FlowFilter {
  userId?: number | undefined
  search?: string | undefined
}

/** What enrolling a contact needs of its flow: steps by position. */
export interface FlowForEnrollment {
  id: number
  name: string
  status: Flow['status']
  steps: { day: number; kind: Flow['steps'][number]['kind']; title: string }[]
}

/** An enrollment as the API shows it, before its tasks are added. */
export type EnrollmentRecord = Omit<Enrollment, 'tasks'>

const escapeLike = (text: string) => text.replace(/[\\%_]/g, '\\$&')

// A flow as the API shows it, from `flows f`: its steps (flow_steps primary key, in position
// order) aggregated and its contacts_count from its counter (counters primary key), so
// rows go out as they are.
const FLOW = recordSql(FlowSchema, 'flows f', {
  steps: (f) => `coalesce((select json_agg(json_build_object('position', st.position, 'day', st.day, 'kind', st.kind, 'title', st.title)
                                    order by st.position)
                      from flow_steps st
                     where st.company_id = ${f}company_id and st.flow_id = ${f}id), '[]')`,
  contacts_count: (f) => counterTotal(`${f}company_id`, `'${FLOW_CONTACTS}'`, `${f}id`),
})
const FLOW_RECORD = FLOW.columns()

// $2 limit, $3 offset (src/db/paging.ts).
const PAGE = pageParams(2, 3)

// A page and its total in one statement. The matching ids are collected once, first and
// whole (MATERIALIZED: flows are a handful to thousands per company), then the count and the
// page's ids are read from them in InitPlans and the page's rows by primary key: each part
// runs once, whatever the planner believes about the company. An empty page (past the end)
// is one row with the total and no flow (docs/performance.md, "Figures from the statements").
const pageStatement = (name: string, where: string) =>
  defineQuery<PageRow<Flow>>(
    name,
    `with matches as materialized (
       select id from flows where ${['company_id = $1', where].filter(Boolean).join(' ')}
     ),
     summary as (
       select (select count(*) from matches)::int as total,
              array(select id from matches order by id ${limitOffset(PAGE)}) as ids
     )
     select s.total, p.*
       from summary s
       left join lateral (
         select ${FLOW_RECORD}
           from ${rowsByIds('flows', 'f', '$1', 's.ids')}
          order by f.id
       ) p on true`,
  )

// Ids from the primary key (company_id, id).
const flowsPage = pageStatement('flows.page', '')
// Ids from flows_company_user_idx (company_id, user_id, id).
const flowsPageOfUser = pageStatement('flows.pageOfUser', 'and user_id = $4')
// ILIKE '%term%' through flows_name_trgm_idx (company_id, name gin_trgm_ops) when the term has trigrams.
const flowsSearch = pageStatement('flows.search', 'and name ilike $4')
const flowsSearchOfUser = pageStatement('flows.searchOfUser', 'and user_id = $4 and name ilike $5')

/** A page of flows in their API shape, and how many match the filter. */
export async function flowsPageWithTotal(
  db: Db,
  companyId: CompanyId,
  f: FlowFilter,
  page: PageSlice,
): Promise<Page<Flow>> {
  const params: unknown[] = [companyId, page.limit, page.offset]
  const pattern = f.search === undefined ? undefined : `%${escapeLike(f.search)}%`
  let rows
  if (pattern === undefined) {
    rows = await (f.userId === undefined ? run(db, flowsPage, params) : run(db, flowsPageOfUser, [...params, f.userId]))
  } else {
    rows = await (f.userId === undefined
      ? run(db, flowsSearch, [...params, pattern])
      : run(db, flowsSearchOfUser, [...params, f.userId, pattern]))
  }
  return unwrapPage(rows)
}

// The flow and its steps by primary keys.
const forEnrollment = defineQuery<FlowForEnrollment>(
  'flows.forEnrollment',
  `select f.id, f.name, f.status,
          coalesce((select json_agg(json_build_object('day', st.day, 'kind', st.kind, 'title', st.title) order by st.position)
                      from flow_steps st
                     where st.company_id = f.company_id and st.flow_id = f.id), '[]') as steps
     from flows f
    where f.company_id = $1 and f.id = $2`,
)

export function findFlowForEnrollment(db: Db, companyId: CompanyId, id: number): Promise<FlowForEnrollment | undefined> {
  return runOne(db, forEnrollment, [companyId, id])
}

// The flow and its steps in one statement (atomic without a transaction); the steps come in
// as JSON [{position, day, kind, title}]. A new flow has no contacts yet.
const createFlow = defineQuery<Flow>(
  'flows.create',
  `with f as (
     insert into flows (company_id, user_id, name, status) values ($1, $2, $3, $4) returning *
   ),
   s as (
     insert into flow_steps (company_id, flow_id, position, day, kind, title)
     select f.company_id, f.id, st.position, st.day, st.kind, st.title
       from f, jsonb_to_recordset($5::jsonb) as st(position integer, day integer, kind task_kind, title varchar)
     returning position, day, kind, title
   )
   select ${FLOW.columns('f', {
     steps: `coalesce((select json_agg(json_build_object('position', s.position, 'day', s.day, 'kind', s.kind, 'title', s.title)
                                    order by s.position) from s), '[]')`,
     contacts_count: '0',
   })}
     from f`,
)

export async function insertFlow(
  db: Db,
  companyId: CompanyId,
  values: { userId: number; name: string; status: Flow['status'] },
  steps: Flow['steps'],
): Promise<Flow> {
  return runSingle(db, createFlow, [companyId, values.userId, values.name, values.status, JSON.stringify(steps)])
}

// One flow in its API shape, by primary key (company_id, id).
const flowById = defineQuery<Flow>('flows.byId', `select ${FLOW_RECORD} from flows f where f.company_id = $1 and f.id = $2`, { pipelined: true })

export function findFlow(db: Db, companyId: CompanyId, id: number): Promise<Flow | undefined> {
  return runOne(db, flowById, [companyId, id])
}

// By primary key; the row stays locked until the transaction ends, so edits of one flow take turns.
const lockFlowRow = defineQuery<{ id: number }>('flows.lock', 'select id from flows where company_id = $1 and id = $2 for update')

/** Locks the flow for a change, in the caller's transaction; false when the company has no such flow. */
export async function lockFlow(db: Db, companyId: CompanyId, id: number): Promise<boolean> {
  return (await runOne(db, lockFlowRow, [companyId, id])) !== undefined
}

// By primary key. $3 $4 null keep the name and the status.
const changeFlow = defineQuery<never>(
  'flows.change',
  `update flows set name = coalesce($3, name), status = coalesce($4::flow_status, status), updated_at = $5
    where company_id = $1 and id = $2`,
)

/** Changes the name and the status given (after `lockFlow`), and the flow's updated_at. */
export async function updateFlow(
  db: Db,
  companyId: CompanyId,
  id: number,
  values: { name: string | undefined; status: Flow['status'] | undefined; at: Date },
): Promise<void> {
  await run(db, changeFlow, [companyId, id, values.name ?? null, values.status ?? null, values.at])
}

// The flow's steps by the primary key's prefix (company_id, flow_id).
const deleteSteps = defineQuery<never>('flows.deleteSteps', 'delete from flow_steps where company_id = $1 and flow_id = $2')

const insertSteps = defineQuery<never>(
  'flows.insertSteps',
  `insert into flow_steps (company_id, flow_id, position, day, kind, title)
   select $1, $2, st.position, st.day, st.kind, st.title
     from jsonb_to_recordset($3::jsonb) as st(position integer, day integer, kind task_kind, title varchar)`,
)

/** Replaces the flow's steps, in the caller's transaction (after `updateFlow` locked the flow). */
export async function replaceSteps(db: Db, companyId: CompanyId, flowId: number, steps: Flow['steps']): Promise<void> {
  await run(db, deleteSteps, [companyId, flowId])
  await run(db, insertSteps, [companyId, flowId, JSON.stringify(steps)])
}

// The partial unique index flow_enrollments_active_key refuses a second active enrollment.
const enrollStatement = defineQuery<EnrollmentRecord>(
  'flows.enroll',
  `insert into flow_enrollments (company_id, flow_id, contact_id, status, added_at, created_at, updated_at)
   values ($1, $2, $3, 'active', $4, $4, $4)
   returning id, flow_id, contact_id, status, added_at, created_at, updated_at`,
)

/**
 * An active enrollment, in the caller's transaction; count it with `countEnrollment` as the
 * transaction's last statement.
 */
export async function insertEnrollment(
  db: Db,
  companyId: CompanyId,
  values: { flowId: number; contactId: number; addedAt: Date },
): Promise<EnrollmentRecord> {
  return runSingle(db, enrollStatement, [companyId, values.flowId, values.contactId, values.addedAt])
}

const adjustContacts = defineQuery<never>(
  'flows.adjustContacts',
  addToCounters(`values ($1, '${FLOW_CONTACTS}', $2, $3)`),
)

/** `added` more active contacts (one by default) in the flow's contacts_count (slot 0): locked last. */
export async function countEnrollment(db: Db, companyId: CompanyId, flowId: number, added = 1): Promise<void> {
  await run(db, adjustContacts, [companyId, flowId, added])
}

// On the partial unique index flow_enrollments_active_key (company_id, flow_id, contact_id).
const activeIn = defineQuery<{ contact_id: number }>(
  'flows.activeContactsIn',
  `select e.contact_id
     from unnest($3::bigint[]) as named (contact_id)
     join flow_enrollments e on e.company_id = $1 and e.flow_id = $2 and e.contact_id = named.contact_id and e.status = 'active'`,
)

/** Which of these contacts are active in the flow (in the caller's transaction, after locking them). */
export async function activeContactsIn(db: Db, companyId: CompanyId, flowId: number, contactIds: number[]): Promise<Set<number>> {
  return new Set((await run(db, activeIn, [companyId, flowId, contactIds])).map((row) => row.contact_id))
}

