// Task list totals from running counters instead of COUNT(*) over up to millions of rows.
// Kept in the `counters` table, adjusted in the transaction that creates or completes tasks:
//   tasks / tasks.done                      key 0           all tasks / done tasks
//   tasks.assignee, tasks.flow, tasks.kind  key user, flow, kind number; each with a .done twin
//   tasks.due / tasks.open_due              key = due day   all / open tasks by due day
//   tasks.done_on                           key = done day  done tasks by finish day
//   <any of the three day lists>.u<user>    the same, for the tasks of one assignee
//   tasks.due.k<kind> / tasks.open_due.k<kind>  key = due day   the same, for one kind
//   tasks.kind.u<user> / tasks.kind.done.u<user>  key = kind number  one assignee's tasks by kind
//   tasks.flow.u<user> / tasks.flow.done.u<user>  key = flow id      one assignee's tasks by flow
// Days are keyed by epochDay, so a date range or a status is a sum over a key range.
// A filter set these cannot answer (contact, flow with kind, three of assignee/flow/kind,
// dates with flow, dates with assignee and kind, a done date with kind) is counted exactly
// by the repository, over the rows of its most selective index.
import type { CounterDelta } from '../../db/counters.js'
import { epochDay } from './task-dates.js'
import { TASK_KINDS, type TaskKind } from './tasks.schemas.js'

const ALL = 'tasks'
const DONE = 'tasks.done'
const ASSIGNEE = 'tasks.assignee'
const ASSIGNEE_DONE = 'tasks.assignee.done'
const FLOW = 'tasks.flow'
const FLOW_DONE = 'tasks.flow.done'
const KIND = 'tasks.kind'
const KIND_DONE = 'tasks.kind.done'
const DUE = 'tasks.due'
const OPEN_DUE = 'tasks.open_due'
const DONE_ON = 'tasks.done_on'

const ofUser = (list: string, userId: number) => `${list}.u${userId}`
const kindKey = (kind: TaskKind) => TASK_KINDS.indexOf(kind)
const ofKind = (list: string, kind: TaskKind) => `${list}.k${kindKey(kind)}`

/** A normalized task filter: every field narrows the set (AND). */
export interface TaskFilter {
  assignedToId?: number
  flowId?: number
  contactId?: number
  kind?: TaskKind
  done?: boolean
  dueFrom?: string
  dueTo?: string
  doneFrom?: string
  doneTo?: string
}

export interface CountedTask {
  assignedToId: number
  flowId: number | null
  kind: TaskKind
  dueDate: string
  doneOn: string | null
}

/** A signed sum of one counter list over an inclusive key range (unbounded where absent). */
export interface CounterTerm {
  list: string
  from?: number
  to?: number
  sign: 1 | -1
}

/** Counter changes for new (open) tasks. */
export function createdDeltas(created: CountedTask[]): CounterDelta[] {
  return created.flatMap((task) => {
    const user = task.assignedToId
    const day = epochDay(task.dueDate)
    const deltas: CounterDelta[] = [
      { list: ALL, key: 0, delta: 1 },
      { list: ASSIGNEE, key: user, delta: 1 },
      { list: KIND, key: kindKey(task.kind), delta: 1 },
      { list: DUE, key: day, delta: 1 },
      { list: OPEN_DUE, key: day, delta: 1 },
      { list: ofUser(DUE, user), key: day, delta: 1 },
      { list: ofUser(OPEN_DUE, user), key: day, delta: 1 },
      { list: ofKind(DUE, task.kind), key: day, delta: 1 },
      { list: ofKind(OPEN_DUE, task.kind), key: day, delta: 1 },
      { list: ofUser(KIND, user), key: kindKey(task.kind), delta: 1 },
    ]
    if (task.flowId !== null) {
      deltas.push({ list: FLOW, key: task.flowId, delta: 1 }, { list: ofUser(FLOW, user), key: task.flowId, delta: 1 })
    }
    return deltas
  })
}

/**
 * Counter changes for a task that was open and is now done, as SQL, for the statement that
 * completes a task and counts it at once: rows (list, key, delta) over the completed task
 * `r`, a relation with the task's columns, `due_day` and `done_day` (epoch days). The same
 * lists as createdDeltas: done twins up, open due days down, finish days up.
 */
export function completedDeltasSql(r: string): string {
  const kindKey = `array_position(array[${TASK_KINDS.map((k) => `'${k}'`).join(', ')}], ${r}.kind::text) - 1`
  return `values ('${DONE}', 0::bigint, 1),
                 ('${ASSIGNEE_DONE}', ${r}.assigned_to_id, 1),
                 ('${KIND_DONE}', ${kindKey}, 1),
                 ('${OPEN_DUE}', ${r}.due_day, -1),
                 ('${OPEN_DUE}.u' || ${r}.assigned_to_id, ${r}.due_day, -1),
                 ('${DONE_ON}', ${r}.done_day, 1),
                 ('${DONE_ON}.u' || ${r}.assigned_to_id, ${r}.done_day, 1),
                 ('${OPEN_DUE}.k' || (${kindKey}), ${r}.due_day, -1),
                 ('${KIND_DONE}.u' || ${r}.assigned_to_id, ${kindKey}, 1),
                 ('${FLOW_DONE}', ${r}.flow_id, 1),
                 ('${FLOW_DONE}.u' || ${r}.assigned_to_id, ${r}.flow_id, 1)`
}

const dayRange = (from?: string, to?: string) => ({
  ...(from !== undefined ? { from: epochDay(from) } : {}),
  ...(to !== undefined ? { to: epochDay(to) } : {}),
})

/**
 * The counter sums that give the number of tasks matching `f`, or undefined when the
 * counters cannot tell (the repository then counts rows). A done-date filter implies
 * `done: true`, as the service normalizes it.
 */
export function counterPlan(f: TaskFilter): CounterTerm[] | undefined {
  if (f.contactId !== undefined) return undefined
  const dimensions = [f.assignedToId, f.flowId, f.kind].filter((d) => d !== undefined).length
  const user = f.assignedToId
  // An assignee with a kind or a flow: tasks.kind.u<user> or tasks.flow.u<user>, without dates.
  const userKind = user !== undefined && f.kind !== undefined ? { user, kind: f.kind } : undefined
  const userFlow = user !== undefined && f.flowId !== undefined ? { user, flowId: f.flowId } : undefined
  if (dimensions > 1 && !(dimensions === 2 && (userKind ?? userFlow))) return undefined
  // The day lists of one assignee, or of one kind.
  const dayList = (list: string) => (user !== undefined ? ofUser(list, user) : f.kind !== undefined ? ofKind(list, f.kind) : list)

  const byDue = f.dueFrom !== undefined || f.dueTo !== undefined
  if (f.doneFrom !== undefined || f.doneTo !== undefined) {
    if (byDue || f.flowId !== undefined || f.kind !== undefined) return undefined
    return [{ list: dayList(DONE_ON), ...dayRange(f.doneFrom, f.doneTo), sign: 1 }]
  }
  if (byDue) {
    if (f.flowId !== undefined || userKind) return undefined
    const range = dayRange(f.dueFrom, f.dueTo)
    if (f.done === false) return [{ list: dayList(OPEN_DUE), ...range, sign: 1 }]
    if (f.done === true) {
      return [{ list: dayList(DUE), ...range, sign: 1 }, { list: dayList(OPEN_DUE), ...range, sign: -1 }]
    }
    return [{ list: dayList(DUE), ...range, sign: 1 }]
  }

  const [all, done, key] =
    userKind ? [ofUser(KIND, userKind.user), ofUser(KIND_DONE, userKind.user), kindKey(userKind.kind)]
    : userFlow ? [ofUser(FLOW, userFlow.user), ofUser(FLOW_DONE, userFlow.user), userFlow.flowId]
    : user !== undefined ? [ASSIGNEE, ASSIGNEE_DONE, user]
    : f.flowId !== undefined ? [FLOW, FLOW_DONE, f.flowId]
    : f.kind !== undefined ? [KIND, KIND_DONE, kindKey(f.kind)]
    : [ALL, DONE, 0]
  if (f.done === undefined) return [{ list: all, from: key, to: key, sign: 1 }]
  if (f.done) return [{ list: done, from: key, to: key, sign: 1 }]
  return [{ list: all, from: key, to: key, sign: 1 }, { list: done, from: key, to: key, sign: -1 }]
}
