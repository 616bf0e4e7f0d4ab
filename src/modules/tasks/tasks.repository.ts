import { and, asc, count, eq, getTableColumns, gte, isNull, lte, or, sql, type SQL } from 'drizzle-orm'
import { unionAll } from 'drizzle-orm/pg-core'
import type { Database } from '../../db/client.js'
import { adjustCounters } from '../../db/counters.js'
import { contacts, counters, tasks } from '../../db/schema.js'
import type { CompanyId } from '../../tenancy.js'
import { completedDeltas, createdDeltas, type CounterTerm, type TaskFilter } from './task-counters.js'

export type TaskRow = typeof tasks.$inferSelect
export type NewTask = Omit<typeof tasks.$inferInsert, 'companyId' | 'id' | 'done' | 'doneAt' | 'doneOn'>

function taskWhere(companyId: CompanyId, f: TaskFilter): SQL | undefined {
  return and(
    eq(tasks.companyId, companyId),
    f.assignedToId !== undefined ? eq(tasks.assignedToId, f.assignedToId) : undefined,
    f.flowId !== undefined ? eq(tasks.flowId, f.flowId) : undefined,
    f.contactId !== undefined ? eq(tasks.contactId, f.contactId) : undefined,
    f.kind !== undefined ? eq(tasks.kind, f.kind) : undefined,
    f.done !== undefined ? eq(tasks.done, f.done) : undefined,
    f.dueFrom !== undefined ? gte(tasks.dueDate, f.dueFrom) : undefined,
    f.dueTo !== undefined ? lte(tasks.dueDate, f.dueTo) : undefined,
    f.doneFrom !== undefined ? gte(tasks.doneOn, f.doneFrom) : undefined,
    f.doneTo !== undefined ? lte(tasks.doneOn, f.doneTo) : undefined,
  )
}

const byDueDate = [asc(tasks.dueDate), asc(tasks.id)]

/** One page of tasks matching `f`, by due date then id. */
export async function listTasks(
  db: Database,
  companyId: CompanyId,
  f: TaskFilter,
  page: { limit: number; offset: number },
): Promise<TaskRow[]> {
  if (f.contactId !== undefined) {
    return db.select().from(tasks).where(taskWhere(companyId, f)).orderBy(...byDueDate).limit(page.limit).offset(page.offset)
  }
  if (f.doneFrom !== undefined || f.doneTo !== undefined) {
    // Done dates do not follow due dates in the (…, done, due_date, id) indexes, and the
    // planner, assuming they do, would walk done tasks in due order filtering the done day.
    // Instead: pick the page's ids from tasks_done_on_idx alone (index-only, a sort of the
    // matching entries; `+ 0` keeps the planner off the due-order indexes), then read them.
    const ids = db
      .select({ id: tasks.id, dueDate: tasks.dueDate })
      .from(tasks)
      .where(taskWhere(companyId, f))
      .orderBy(sql`${tasks.dueDate} + 0`, asc(tasks.id))
      .limit(page.limit)
      .offset(page.offset)
      .as('page')
    return db
      .select(getTableColumns(tasks))
      .from(tasks)
      .innerJoin(ids, and(eq(tasks.companyId, companyId), eq(tasks.id, ids.id)))
      .orderBy(...byDueDate)
  }
  if (f.done !== undefined) {
    return db.select().from(tasks).where(taskWhere(companyId, f)).orderBy(...byDueDate).limit(page.limit).offset(page.offset)
  }
  // The task indexes keep open and done tasks apart, (…, done, due_date, id): read each side
  // in order up to the end of the page and merge them (a Merge Append of two index scans)
  // instead of sorting every matching row.
  const side = (done: boolean) =>
    db.select().from(tasks).where(taskWhere(companyId, { ...f, done })).orderBy(...byDueDate).limit(page.offset + page.limit)
  return unionAll(side(false), side(true)).orderBy(...byDueDate).limit(page.limit).offset(page.offset)
}

/** Exact count, for filter sets the counters cannot answer. */
export async function countTasks(db: Database, companyId: CompanyId, f: TaskFilter): Promise<number> {
  const [row] = await db.select({ n: count() }).from(tasks).where(taskWhere(companyId, f))
  return row?.n ?? 0
}

/** The signed sum of counter ranges (see task-counters.ts), in one query. */
export async function sumCounters(db: Database, companyId: CompanyId, terms: CounterTerm[]): Promise<number> {
  if (terms.length === 0) return 0
  const conditions = terms.map((t) =>
    and(
      eq(counters.list, t.list),
      t.from !== undefined ? gte(counters.key, t.from) : undefined,
      t.to !== undefined ? lte(counters.key, t.to) : undefined,
    ),
  )
  const sums = terms.map(
    (t, i) => sql`${t.sign < 0 ? sql`- ` : sql`+ `}coalesce(sum(${counters.value}) filter (where ${conditions[i]}), 0)`,
  )
  const [row] = await db
    .select({ total: sql`0 ${sql.join(sums, sql` `)}`.mapWith(Number) })
    .from(counters)
    .where(and(eq(counters.companyId, companyId), or(...conditions)))
  return row?.total ?? 0
}

/** Inserts open tasks and counts them, in the caller's transaction. */
export async function insertTasks(db: Database, companyId: CompanyId, values: NewTask[]): Promise<TaskRow[]> {
  if (values.length === 0) return []
  const rows = await db.insert(tasks).values(values.map((v) => ({ ...v, companyId }))).returning()
  await adjustCounters(db, companyId, createdDeltas(rows))
  return rows.sort((a, b) => a.id - b.id)
}

/**
 * Marks an open task done (at `at`, finished on the company day `doneOn`) and counts it, in
 * the caller's transaction. Undefined when the task is missing or already done: the
 * condition on `done` settles concurrent completions.
 */
export async function completeTask(
  db: Database,
  companyId: CompanyId,
  id: number,
  at: Date,
  doneOn: string,
): Promise<TaskRow | undefined> {
  const [row] = await db
    .update(tasks)
    .set({ done: true, doneAt: at, doneOn, updatedAt: at })
    .where(and(eq(tasks.companyId, companyId), eq(tasks.id, id), eq(tasks.done, false)))
    .returning()
  if (row) await adjustCounters(db, companyId, completedDeltas({ ...row, doneOn }))
  return row
}

export async function findTask(db: Database, companyId: CompanyId, id: number): Promise<TaskRow | undefined> {
  const [row] = await db.select().from(tasks).where(and(eq(tasks.companyId, companyId), eq(tasks.id, id)))
  return row
}

/** Admin command line only: a task by id whatever its company. */
export async function findTaskAnyCompany(db: Database, id: number): Promise<TaskRow | undefined> {
  const [row] = await db.select().from(tasks).where(eq(tasks.id, id))
  return row
}

export interface TaskContact {
  id: number
  companyId: number
  userId: number
  firstName: string
  lastName: string | null
}

const contactColumns = {
  id: contacts.id,
  companyId: contacts.companyId,
  userId: contacts.userId,
  firstName: contacts.firstName,
  lastName: contacts.lastName,
}

/**
 * A live contact of the company, share-locked until the transaction ends so that it cannot
 * be deleted or change owner while tasks are made for it.
 */
export async function lockLiveContact(db: Database, companyId: CompanyId, id: number): Promise<TaskContact | undefined> {
  const [row] = await db
    .select(contactColumns)
    .from(contacts)
    .where(and(eq(contacts.companyId, companyId), eq(contacts.id, id), isNull(contacts.deletedAt)))
    .for('share')
  return row
}

/** Admin command line only: a live contact by id whatever its company. */
export async function findLiveContactAnyCompany(db: Database, id: number): Promise<TaskContact | undefined> {
  const [row] = await db.select(contactColumns).from(contacts).where(and(eq(contacts.id, id), isNull(contacts.deletedAt)))
  return row
}

/** Demo data: the first live contacts of the company. */
export async function firstLiveContacts(db: Database, companyId: CompanyId, limit: number): Promise<TaskContact[]> {
  return db
    .select(contactColumns)
    .from(contacts)
    .where(and(eq(contacts.companyId, companyId), isNull(contacts.deletedAt)))
    .orderBy(asc(contacts.id))
    .limit(limit)
}
