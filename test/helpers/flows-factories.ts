// Factories for flows and tasks. Contacts are inserted directly (only the columns tasks
// need); flows and tasks go through the services, so their counters are kept.
import { systemActing } from '../../src/acting.js'
import { transaction, type Db } from '../../src/db/db.js'
import { createFlowCommand } from '../../src/modules/flows-api/flows-api.service.js'
import type { FlowStepInput } from '../../src/modules/flows/flows.schemas.js'
import { shareLockLiveContact } from '../../src/modules/contacts/contacts.repository.js'
import type { TaskKind } from '../../src/modules/tasks/tasks.schemas.js'
import { completeOpenTask, createTasks } from '../../src/modules/tasks-api/tasks-api.service.js'
import type { CompanyId } from '../../src/tenancy.js'
import { ADDED_CONTACT, type AddedContact } from './leads-factories.js'
import { rawRows, sql } from './sql.js'

let sequence = 0
const next = () => ++sequence

export async function addContact(
  db: Db,
  companyId: CompanyId,
  options: { userId: number; firstName?: string; lastName?: string | null; deleted?: boolean },
) {
  const n = next()
  const [row] = await rawRows<AddedContact>(db, sql`
    insert into contacts (company_id, user_id, first_name, last_name, email, deleted_at)
    values (${companyId}, ${options.userId}, ${options.firstName ?? `Contact${n}`},
      ${options.lastName === undefined ? 'Test' : options.lastName}, ${`contact${n}@example.com`}, ${options.deleted ? new Date() : null})
    returning ${ADDED_CONTACT}`)
  if (!row) throw new Error('no contact')
  return row
}

export const STEPS: FlowStepInput[] = [
  { day: 0, kind: 'email', title: 'Welcome email' },
  { day: 2, kind: 'phonecall', title: 'Intro call' },
  { day: 7, kind: 'meeting', title: 'Demo' },
]

export function addFlow(
  db: Db,
  companyId: CompanyId,
  options: { userId: number; name?: string; status?: 'active' | 'paused'; steps?: FlowStepInput[] },
) {
  return createFlowCommand(
    db,
    systemActing(),
    { company: companyId, user: options.userId, name: options.name ?? `Flow ${next()}`, steps: 'steps.json', status: options.status },
    options.steps ?? STEPS,
  )
}

/** A task outside any flow (or of `flowId`), through the service so that counters follow. */
export async function addTask(
  db: Db,
  companyId: CompanyId,
  contactId: number,
  options: { kind?: TaskKind; due: string; title?: string; assignedToId?: number; flowId?: number },
) {
  return transaction(db, async (tx) => {
    const contact = await shareLockLiveContact(tx, companyId, contactId)
    if (!contact) throw new Error(`no live contact ${contactId}`)
    const [row] = await createTasks(
      tx,
      companyId,
      contact,
      [{ kind: options.kind ?? 'phonecall', title: options.title ?? `Task ${next()}`, dueDate: options.due, flowId: options.flowId }],
      // The task's status, which no test reads from here, as of its due day.
      { today: options.due, assignedToId: options.assignedToId },
    )
    if (!row) throw new Error('no task')
    return row
  })
}

export async function completeTask(db: Db, companyId: CompanyId, taskId: number, at: Date, timezone: string) {
  const row = await transaction(db, (tx) => completeOpenTask(tx, companyId, taskId, at, timezone, null))
  if (!row) throw new Error(`task ${taskId} was done already`)
  return row
}
