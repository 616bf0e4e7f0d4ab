// The demo makes three flows (one of them paused) and enrolls the first few dozen contacts,
// which the contacts seeder made, over the last three weeks, so that there are tasks done,
// overdue, due today and due in the future. It also adds a few tasks outside any flow.
import type { DemoSeeder } from '../../demo/seeder.js'
import { findCompany } from '../users/index.js'
import { firstLiveContacts } from '../contacts/index.js'
import { addDays, dayIn, type TaskKind } from '../tasks/index.js'
import { completeOpenTask, createTasks, defaultTitle } from '../tasks-api/index.js'
import { insertFlow } from '../flows/index.js'
import { enroll } from './flows-api.service.js'

const DAY_MS = 86_400_000

type Step = [day: number, kind: TaskKind, title: string]

const FLOWS: { name: string; owner: number; status: 'active' | 'paused'; steps: Step[] }[] = [
  { name: 'Inbound follow-up', owner: 0, status: 'active', steps: [
    [0, 'email', 'Thank-you email with the deck'],
    [1, 'phonecall', 'Intro call'],
    [3, 'linkedin', 'Connect on LinkedIn'],
    [7, 'email', 'Send a customer case study'],
    [14, 'meeting', 'Product demo'],
  ] },
  { name: 'Outbound prospecting', owner: 1, status: 'active', steps: [
    [0, 'linkedin', 'View profile and connect'],
    [2, 'email', 'First cold email'],
    [5, 'phonecall', 'Cold call'],
    [9, 'social', 'Comment on a recent post'],
  ] },
  { name: 'Win-back of lost deals', owner: 2, status: 'paused', steps: [
    [0, 'email', 'What changed since we last spoke?'],
    [4, 'phonecall', 'Check-in call'],
    [10, 'meeting', 'Offer a new proposal'],
  ] },
]

const ENROLLED = 30
const STANDALONE = 6

export const seedFlows: DemoSeeder = async ({ db, companyId, userIds, now, random }) => {
  const timezone = (await findCompany(db, companyId))?.timezone ?? 'UTC'
  const today = dayIn(now, timezone)
  const owner = (i: number) => userIds[i % userIds.length] ?? userIds[0] ?? 0

  const flows = []
  for (const spec of FLOWS) {
    flows.push(await insertFlow(
      db,
      companyId,
      { userId: owner(spec.owner), name: spec.name, status: spec.status },
      spec.steps.map(([day, kind, title], i) => ({ position: i + 1, day, kind, title })),
    ))
  }
  const active = flows.filter((f) => f.status === 'active')

  const contacts = await firstLiveContacts(db, companyId, ENROLLED + STANDALONE)
  for (const [i, contact] of contacts.slice(0, ENROLLED).entries()) {
    const flow = active[i % active.length] ?? flows[0]
    if (!flow) break
    const daysAgo = Math.floor(random() * 21)
    const at = new Date(now.getTime() - daysAgo * DAY_MS)
    const { tasks } = await enroll(db, companyId, { flow, contact, enrolledOn: dayIn(at, timezone), at, userId: flow.user_id })
    for (const task of tasks) {
      // Most past tasks were done on their day or the next; some of today's are done already.
      const finished = task.due_date < today ? random() < 0.7 : task.due_date === today && random() < 0.3
      if (!finished) continue
      const doneDay = task.due_date < today && random() < 0.3 ? addDays(task.due_date, 1) : task.due_date
      const doneAt = doneDay < today ? new Date(Date.parse(`${doneDay}T15:00:00Z`)) : new Date(now.getTime() - 60_000)
      await completeOpenTask(db, companyId, task.id, doneAt, timezone, task.assigned_to_id)
    }
  }

  const kinds: TaskKind[] = ['phonecall', 'email', 'meeting', 'linkedin', 'social', 'phonecall']
  const standalone = contacts.length > ENROLLED ? contacts.slice(ENROLLED) : contacts.slice(0, STANDALONE)
  for (const [i, contact] of standalone.entries()) {
    const kind = kinds[i % kinds.length] ?? 'phonecall'
    const dueDate = addDays(today, i - 2)
    await createTasks(db, companyId, contact, [{ kind, title: defaultTitle(kind, contact), dueDate }], { today })
  }
}
