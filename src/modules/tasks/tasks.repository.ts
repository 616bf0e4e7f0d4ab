// Every statement of the tasks module, written once and run as a named prepared statement.
// A list page is one statement whatever the filters: the total (from the counters, or
// counted on the index that serves the filters), the page's ids picked from that index
// alone, and the rows by primary key in their API shape
// (docs/performance.md, "Figures from the statements").
import { columns } from '../../db/columns.js'
import type { Db } from '../../db/db.js'
import { COMPANY } from '../../db/company.js'
import { pageIds, pageParams, rowsByIds, unwrapPage, type Page, type PageRow, type PageSlice } from '../../db/paging.js'
import { addToCounters, COUNTER_ROWS, mergedDeltas } from '../../db/counters.js'
import { defineQuery, run, runOne, type Query } from '../../db/query.js'
import { recordSql, type Row } from '../../db/records.js'
import { walkRows } from '../../db/walk.js'
import { syncAt, walkParams, type WalkWindow } from '../../http/sync.js'
import type { CompanyId } from '../../tenancy.js'
import { completedDeltasSql, createdDeltas, type CounterTerm, type TaskFilter } from './task-counters.js'
import { Task as TaskSchema, TaskContact, type Task, type TaskKind } from './tasks.schemas.js'
import { INSERT_CONTACT_EVENTS } from '../events/index.js'

export interface NewTask {
  kind: TaskKind
  title: string
  dueDate: string
  assignedToId: number
  flowId: number | null
  enrollmentId: number | null
  contactId: number
}

// ---- the list ------------------------------------------------------------------------------
//
// Every list statement takes the same first twelve parameters, then those of its index:
//   $1 company   $2 today (the company's day, for `status`)   $3 limit   $4 offset
//   $5 done (null: both)   $6 $7 due date bounds   $8 kind
//   $9..$12 the counter terms (task-counters.ts) as arrays of list, low key, high key, sign;
//           $9 null when the counters cannot tell, and the statement counts rows instead.
//
// Plans (EXPLAIN at 1 M tasks in one company, generic and custom plans alike) never depend
// on statistics: the index is chosen here, by the filters given, and each part of the
// statement runs once (ARRAY(...) subqueries, a MATERIALIZED match set). The company is
// compared as `(select $1)`, a value the planner cannot see even in a custom plan: for a
// company it has no statistics of, it would otherwise expect one row and pick any index
// that leads with company_id, reading every row of the company (src/db/company.ts).
const PAGE = pageParams(3, 4)

/** A task's status against `today` (a date parameter, the company's day). */
const statusOn = (t: string, today: string) =>
  `case when ${t}done then 'done' when ${t}due_date < ${today} then 'overdue' when ${t}due_date = ${today} then 'today'
               else 'future' end`
/** A task as the API shows it, from `tasks t`; `status` against $2, the company's today. */
const TASK = recordSql(TaskSchema, 'tasks t', {
  due_date: (t) => `to_char(${t}due_date, 'YYYY-MM-DD')`,
  status: (t) => statusOn(t, '$2::date'),
})
const TASK_RECORD = TASK.columns()

/** A task as the statements return it: the API's Task, instants as Dates. */
export type TaskRecord = Row<typeof TaskSchema>

const DUE_RANGE = `due_date >= coalesce($6::date, '-infinity') and due_date <= coalesce($7::date, 'infinity')`
const KIND = '($8::task_kind is null or kind = $8::task_kind)'
const optional = (column: string, param: string) => `(${param}::bigint is null or ${column} = ${param}::bigint)`

/** The total: the signed sum of counter ranges (by the counters' primary key), or `exact`. */
const total = (exact: string) => `case when $9::text[] is null then (${exact})
              else (select coalesce(sum(k.value * c.sign), 0)
                      from unnest($9::text[], $10::bigint[], $11::bigint[], $12::int[]) as c(list, low, high, sign)
                      join ${COUNTER_ROWS} k on k.company_id = ${COMPANY} and k.list = c.list and k.key >= c.low and k.key <= c.high)
         end::bigint`

/**
 * The statement around a way of picking the page's ids: `ids(order, limit, offset)` is an
 * ARRAY(...) of ids in that order, where `total.n` is the total. Pages in the second half
 * are read backwards from the end (the total is known), so the last page costs what the
 * first does; a page past the end reads no index at all.
 */
function listStatement(
  name: string,
  parts: { ctes?: string; exact: string; ids: (order: 'asc' | 'desc', limit: string, offset: string) => string },
): Query<PageRow<Task>> {
  return defineQuery(
    name,
    `with ${parts.ctes ? `${parts.ctes},\n     ` : ''}total as materialized (select ${total(parts.exact)} as n)
     select total.n as total, p.*
       from total
       left join lateral (
         select ${TASK_RECORD}
           from ${rowsByIds('tasks', 't', COMPANY, pageIds(PAGE, 'total.n', ['asc', 'desc'], parts.ids))}
          order by t.due_date, t.id
       ) p on true`,
    { replica: true },
  )
}

const byDue = (order: 'asc' | 'desc') => `due_date ${order}, id ${order}`

/**
 * Through an index (company_id, <key>, done, due_date, id, ...): open and done tasks are
 * apart in it, so a page reads each side in due order and merges them (a Merge Append of
 * two index-only scans, each stopping at the end of the page); a count takes both sides as
 * `done = any({false, true})`, so the due bounds stay index bounds. `where` is the key's
 * condition and any filter on the index's trailing columns.
 */
function splitByDone(name: string, where: string) {
  const conditions = `company_id = ${COMPANY}${where} and ${DUE_RANGE} and ${KIND}`
  return listStatement(name, {
    exact: `select count(*) from tasks
                 where ${conditions}
                   and done = any(case when $5::boolean is null then '{f,t}'::boolean[] else array[$5::boolean] end)`,
    ids: (order, limit, offset) => `array(
                  select id from (
                    (select due_date, id from tasks where ${conditions} and done = false and $5::boolean is not true
                      order by ${byDue(order)} limit ${limit} + ${offset})
                    union all
                    (select due_date, id from tasks where ${conditions} and done = true and $5::boolean is not false
                      order by ${byDue(order)} limit ${limit} + ${offset})
                  ) s
                  order by ${byDue(order)} limit ${limit} offset ${offset})`,
  })
}

// tasks_due_idx (company_id, done, due_date, id, kind).
const pageOfAll = splitByDone('tasks.page', '')
// tasks_assigned_idx (company_id, assigned_to_id, done, due_date, id, kind, flow_id); $13 assignee.
const pageOfAssignee = splitByDone('tasks.pageOfAssignee', ' and assigned_to_id = $13')
// tasks_flow_idx (company_id, flow_id, done, due_date, id, kind, assigned_to_id); $13 flow, $14 assignee or null.
const pageOfFlow = splitByDone('tasks.pageOfFlow', ` and flow_id = $13 and ${optional('assigned_to_id', '$14')}`)

// A contact's tasks, a handful to hundreds: all of them, from tasks_contact_idx (company_id,
// contact_id, due_date, id), filtered on their rows and kept once (MATERIALIZED); the total
// and the page are read from that. $13 contact, $14 assignee, $15 flow, $16 $17 done dates.
const pageOfContact = listStatement('tasks.pageOfContact', {
  ctes: `matches as materialized (
       select due_date, id from tasks
        where company_id = ${COMPANY} and contact_id = $13 and ${DUE_RANGE} and ${KIND}
          and ($5::boolean is null or done = $5::boolean)
          and ${optional('assigned_to_id', '$14')} and ${optional('flow_id', '$15')}
          and ($16::date is null or done_on >= $16::date) and ($17::date is null or done_on <= $17::date)
     )`,
  exact: 'select count(*) from matches',
  ids: (order, limit, offset) => `array(select id from matches order by ${byDue(order)} limit ${limit} offset ${offset})`,
})

// Finished in a date range: tasks_done_on_idx (company_id, done_on, due_date, id,
// assigned_to_id, flow_id, kind) where done. Within one finish day the index is in due
// order, so a page takes the first (limit + offset) entries of each day of the range, in
// due order (a short index-only scan per day; the days run from the first to the last
// finish day the company has, within the bounds), and sorts those instead of every task
// finished in the range.
// $13 $14 done date bounds, $15 assignee, $16 flow. The assignee and the flow are compared
// as `(select …)` like the company: an assignee the statistics have not seen (a new user) is
// otherwise expected to have one task, and the days are read from tasks_assigned_idx with a
// filter on the finish day, every one of the assignee's finished tasks once per day
// (docs/performance.md, "Figures from the statements").
const DONE_ON_FILTERS = `${DUE_RANGE} and ${KIND} and ${optional('assigned_to_id', '(select $15::bigint)')} and ${optional('flow_id', '(select $16::bigint)')}
                   and $5::boolean is not false`
const pageByDoneDate = listStatement('tasks.pageByDoneDate', {
  ctes: `days as (
       select d::date as day
         from generate_series(greatest($13::date, (select min(done_on) from tasks where company_id = ${COMPANY} and done)),
                              least($14::date, (select max(done_on) from tasks where company_id = ${COMPANY} and done)),
                              interval '1 day') as d
     )`,
  exact: `select count(*) from tasks
                 where company_id = ${COMPANY} and done
                   and done_on >= coalesce($13::date, '-infinity') and done_on <= coalesce($14::date, 'infinity')
                   and ${DONE_ON_FILTERS}`,
  ids: (order, limit, offset) => `array(
                  select x.id from days, lateral (
                    select due_date, id from tasks
                     where company_id = ${COMPANY} and done and done_on = days.day and ${DONE_ON_FILTERS}
                     order by ${byDue(order)} limit ${limit} + ${offset}
                  ) x
                  order by ${byDue(order)} limit ${limit} offset ${offset})`,
})

/** A page of the tasks matching `f` (due date, then id) and their total, in one statement. */
export async function tasksPageWithTotal(
  db: Db,
  companyId: CompanyId,
  f: TaskFilter,
  terms: CounterTerm[] | undefined,
  today: string,
  page: PageSlice,
): Promise<Page<Task>> {
  const counters = terms
    ? [
        terms.map((t) => t.list),
        terms.map((t) => t.from ?? Number.MIN_SAFE_INTEGER),
        terms.map((t) => t.to ?? Number.MAX_SAFE_INTEGER),
        terms.map((t) => t.sign),
      ]
    : [null, null, null, null]
  const params = [
    companyId, today, page.limit, page.offset, f.done ?? null, f.dueFrom ?? null, f.dueTo ?? null, f.kind ?? null, ...counters,
  ]
  const [query, more] =
    f.contactId !== undefined
      ? [pageOfContact, [f.contactId, f.assignedToId ?? null, f.flowId ?? null, f.doneFrom ?? null, f.doneTo ?? null]]
      : f.doneFrom !== undefined || f.doneTo !== undefined
        ? [pageByDoneDate, [f.doneFrom ?? null, f.doneTo ?? null, f.assignedToId ?? null, f.flowId ?? null]]
        : f.flowId !== undefined
          ? [pageOfFlow, [f.flowId, f.assignedToId ?? null]]
          : f.assignedToId !== undefined
            ? [pageOfAssignee, [f.assignedToId]]
            : [pageOfAll, []]
  return unwrapPage(await run(db, query, [...params, ...more]))
}

// A page of an updated_since walk (src/http/sync.ts has $1..$6; $7 the company's today, for
// `status`): from tasks_company_updated_idx (company_id, updated_at, id), an index range read
// in order that stops after $6 rows, then each row by the same index's heap pointer.
const tasksWalkStatement = defineQuery<Task & { sync_at: string }>(
  'tasks.walk',
  `select ${syncAt('t.updated_at')} as sync_at, ${TASK.columns('t', { status: statusOn('t.', '$7::date') })}
     from tasks t
    ${walkRows('t')}`,
  { replica: true },
)

export function tasksWalkPage(db: Db, companyId: CompanyId, window: WalkWindow, today: string) {
  return run(db, tasksWalkStatement, [...walkParams(companyId, window), today])
}

// ---- writes --------------------------------------------------------------------------------

// New open tasks and their counters in one statement: $2..$8 the tasks' columns as arrays,
// $9 created at (null: now), $10..$12 the counter deltas, merged and in (list, key) order,
// $13 the company's today (for `status`): the tasks come back as the API shows them.
// The counters' insert is the part nothing reads, so PostgreSQL runs it last: the counter
// rows stay locked only until the COMMIT that follows.
const insertTasksStatement = defineQuery<TaskRecord>(
  'tasks.insert',
  `with inserted as (
     insert into tasks (company_id, kind, title, due_date, assigned_to_id, flow_id, enrollment_id, contact_id,
                        created_at, updated_at)
     select $1, v.kind, v.title, v.due_date, v.assigned_to_id, v.flow_id, v.enrollment_id, v.contact_id,
            coalesce($9::timestamptz, now()), coalesce($9::timestamptz, now())
       from unnest($2::task_kind[], $3::text[], $4::date[], $5::bigint[], $6::bigint[], $7::bigint[], $8::bigint[])
              with ordinality as v(kind, title, due_date, assigned_to_id, flow_id, enrollment_id, contact_id, n)
      order by v.n
     returning ${TASK.columns('', { status: statusOn('', '$13::date') })}
   ), counted as (
     ${addToCounters(`     select $1, d.list, d.key, d.delta
       from unnest($10::text[], $11::bigint[], $12::bigint[]) with ordinality as d(list, key, delta, n)
      order by d.n`)}
   )
   select * from inserted order by id`,
)

/**
 * Inserts open tasks and counts them, in the caller's transaction; ids ascending in the given
 * order, `status` against `today` (the company's day).
 */
export async function insertTasks(db: Db, companyId: CompanyId, values: NewTask[], today: string, createdAt?: Date): Promise<TaskRecord[]> {
  if (values.length === 0) return []
  const deltas = mergedDeltas(createdDeltas(values.map((v) => ({ ...v, doneOn: null }))))
  return run(db, insertTasksStatement, [
    companyId,
    ...columns(values, ['kind', 'title', 'dueDate', 'assignedToId', 'flowId', 'enrollmentId', 'contactId']),
    createdAt ?? null,
    ...columns(deltas, ['list', 'key', 'delta']),
    today,
  ])
}

// Completing an open task in one statement ($1 company, $2 task, $3 at, $4 the finish day in
// the company zone, $5 who, null for the admin command line): the task by primary key, its
// task_completed event, and its counters (task-counters.ts completedDeltasSql), which
// PostgreSQL updates last, in (list, key) order. The condition on `done` settles concurrent
// completions: the second finds nothing to update and changes nothing. The task comes back
// as the API shows it, its status 'done' whatever the day.
const completeTaskStatement = defineQuery<TaskRecord>(
  'tasks.complete',
  `with completed as (
     update tasks set done = true, done_at = $3, done_on = $4, updated_at = $3
      where company_id = $1 and id = $2 and not done
     returning *, due_date - date '1970-01-01' as due_day, done_on - date '1970-01-01' as done_day
   ), event as (
     ${INSERT_CONTACT_EVENTS}
     select $1, c.contact_id, 'task_completed', $5,
            jsonb_build_object('task_id', c.id, 'title', c.title, 'kind', c.kind, 'flow_id', c.flow_id), $3
       from completed c
   ), counted as (
     ${addToCounters(`     select $1, d.list, d.key, d.delta
       from completed c, lateral (${completedDeltasSql('c')}) as d(list, key, delta)
      where d.key is not null
      order by d.list collate "C", d.key`)}
   )
   select ${TASK.columns('c', { status: "'done'" })} from completed c`,
)

/**
 * Marks an open task done (at `at`, finished on the company day `doneOn`), writes its
 * task_completed event and counts it, in the caller's transaction. Undefined when the task
 * is missing or already done.
 */
export function writeTaskDone(
  db: Db,
  companyId: CompanyId,
  id: number,
  at: Date,
  doneOn: string,
  userId: number | null,
): Promise<TaskRecord | undefined> {
  return runOne(db, completeTaskStatement, [companyId, id, at, doneOn, userId])
}

// ---- reads for the writes and the admin command line ----------------------------------------

// One task in its API shape, by primary key (company_id, id); $2 the company's today.
const taskById = defineQuery<Task>(
  'tasks.byId',
  `select ${TASK_RECORD} from tasks t where t.company_id = $1 and t.id = $3`,
  { pipelined: true },
)

/** A task of the company as the API shows it, `status` against `today` (the company's day). */
export function findTask(db: Db, companyId: CompanyId, id: number, today: string): Promise<Task | undefined> {
  return runOne(db, taskById, [companyId, today, id])
}

// Admin command line: the one lookup by id alone, before the company is known (no index
// leads with id: the command line is rare).
const taskAnyCompany = defineQuery<{ company_id: number; id: number }>('tasks.byIdAnyCompany', 'select company_id, id from tasks where id = $1')

/** Admin command line only: a task's company and id, whatever its company. */
export function findTaskAnyCompany(db: Db, id: number): Promise<{ company_id: number; id: number } | undefined> {
  return runOne(db, taskAnyCompany, [id])
}

/** A task's contact as the statements return it: the TaskContact schema's row. */
export type TaskContactRecord = Row<typeof TaskContact>

// ---- lent to other modules' statements (src/db/owners.ts) ----------------------------------

/** The ids of a contact's tasks (tasks_contact_idx; `company`, `contact`: SQL expressions). */
export const contactTaskIds = (company: string, contact: string) => `select id from tasks where company_id = ${company} and contact_id = ${contact}`

/** A task of the company with its contact (`company`, `task`: SQL expressions). */
export const taskWithContact = (company: string, task: string) => `select id, contact_id from tasks where company_id = ${company} and id = ${task}`

/** The ids of the company's tasks (`company`: an SQL expression). */
export const companyTaskIds = (company: string) => `select id from tasks where company_id = ${company}`
