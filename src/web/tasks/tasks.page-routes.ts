// The Tasks page group: the list by tab (/tasks), Mark done (POST /tasks/:id/complete) and
// New task (/tasks/new, POST /tasks), through the tasks service the API uses (tasksPage,
// completeTask, createTask): the same rows, contact event, audit record and webhook event as
// PUT /api/v1/tasks/:id/complete and POST /api/v1/tasks.
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify'
import { contactLabels, type ContactLabelRecord } from '../../modules/contacts/index.js'
import { flowsPage } from '../../modules/flows-api/index.js'
import { addDays, dayIn, type Task, type TasksListQuery } from '../../modules/tasks/index.js'
import { completeTask, createTask, tasksPage as listTasks } from '../../modules/tasks-api/index.js'
import { listUsers } from '../../modules/users-api/index.js'
import type { Account } from '../../modules/auth/index.js'
import { freshForm, readForm, refusalsOf, typedValues, type FormState } from '../frame/form.js'
import { sendHtml, type Named } from '../frame/frame.js'
import { formRoute, pageRoute, pathId, signedIn, webCaller, type PageGroupOptions, type SignedIn } from '../frame/guard.js'
import {
  NEW_TASK_FIELDS,
  newTaskPage,
  TASKS_PER_PAGE,
  TASKS,
  tasksHref,
  tasksListPage,
  TASKS_FLASHES,
  type TasksFlash,
} from './tasks.pages.js'
import { ANYONE, MarkDoneForm, NewTaskForm, TasksView, type TaskTab } from './tasks.forms.js'

/** How many days Done looks back (today included): the list is in due order, so it stays short. */
export const DONE_DAYS = 7

/** The API's filter of a tab: open tasks by due day against today, or those finished lately. */
function tabFilter(tab: TaskTab, today: string): Pick<TasksListQuery, 'status' | 'start_done_date'> {
  if (tab === 'done') return { start_done_date: addDays(today, 1 - DONE_DAYS) }
  return { status: tab === 'upcoming' ? 'future' : tab }
}

const TAB_OF_STATUS: Record<Task['status'], TaskTab> = { today: 'today', overdue: 'overdue', future: 'upcoming', done: 'done' }

/** A form's optional text fields left empty are not given (as the API takes an omitted field). */
function withoutEmpty(body: unknown, names: readonly string[]): Record<string, unknown> {
  return Object.fromEntries(Object.entries((body ?? {}) as Record<string, unknown>).filter(([name, value]) => !(value === '' && names.includes(name))))
}

/** Whose tasks a view shows: members always their own; admins theirs, anyone's or one user's. */
function assigneeOf(view: TasksView, account: Account): number | undefined {
  if (account.role !== 'admin' || view.assignee === undefined) return account.userId
  return view.assignee === ANYONE ? undefined : Number(view.assignee)
}

/** A view from an address this site made (Mark done's `back`); a foreign or broken one is the default view. */
function viewOf(back: string | undefined): { view: TasksView; href: string } {
  if (back === undefined || !back.startsWith(TASKS)) return { view: {}, href: back ?? TASKS }
  const query = Object.fromEntries(new URL(back, 'http://engage.invalid').searchParams)
  const read = readForm(TasksView, query)
  return read.ok ? { view: read.value, href: back } : { view: {}, href: TASKS }
}

const tasksPages: FastifyPluginAsync<PageGroupOptions> = async (app, { cookies, now }) => {
  async function companyChoices(request: FastifyRequest, current: SignedIn) {
    const caller = webCaller(request, current.account, now())
    const [flows, users] = await Promise.all([
      flowsPage(app.db, caller, { page: 1, per_page: 100 }),
      listUsers(app.db, current.account.companyId),
    ])
    const flowChoices = ('data' in flows ? (flows.data as Named[]) : []).map((flow) => ({ id: flow.id, name: flow.name }))
    const userChoices = users.data.filter((user) => user.active).map((user) => ({ id: user.id, name: user.name }))
    return { flows: flowChoices, users: userChoices }
  }

  /** The list for `view`, with `status` and a problem to show (a refused view or Mark done). */
  async function sendList(
    request: FastifyRequest,
    reply: FastifyReply,
    current: SignedIn,
    view: TasksView,
    extra: { status?: number; problem?: string | undefined; flash?: TasksFlash | undefined } = {},
  ) {
    const { account } = current
    const caller = webCaller(request, account, now())
    const tab = view.tab ?? 'today'
    const assignee = assigneeOf(view, account)
    const today = dayIn(caller.now, account.timezone)
    const [listed, choices] = await Promise.all([
      listTasks(app.db, caller, {
        page: view.page ?? 1,
        per_page: TASKS_PER_PAGE,
        kind: view.kind,
        flow_id: view.flow_id,
        assigned_to_id: assignee,
        ...tabFilter(tab, today),
      }),
      companyChoices(request, current),
    ])
    const tasks = ('data' in listed ? listed.data : JSON.parse(listed.json)) as Task[]
    const contacts = await contactLabels(app.db, account.companyId, tasks.map((task) => task.contact_id))
    const whose =
      assignee === account.userId
        ? 'Your tasks'
        : assignee === undefined
          ? 'Everyone’s tasks'
          : `Tasks of ${choices.users.find((user) => user.id === assignee)?.name ?? `user ${String(assignee)}`}`
    return sendHtml(reply, extra.status ?? 200, tasksListPage(current.chrome, {
      view, tab, tasks, total: listed.total, contacts, flows: choices.flows, users: choices.users,
      admin: account.role === 'admin', whose, timezone: account.timezone, today,
      csrf: current.csrf, flash: extra.flash, problem: extra.problem,
    }))
  }

  app.get(TASKS, pageRoute('member'), async (request, reply) => {
    const current = signedIn(request)
    const flash = cookies.takeFlash<TasksFlash>(request, reply, current.secret, TASKS_FLASHES)
    const read = readForm(TasksView, request.query)
    if (!read.ok) {
      const problem = `This address cannot be shown (${Object.keys(read.errors).join(', ')}): here are today's tasks.`
      return sendList(request, reply, current, {}, { status: 422, problem })
    }
    return sendList(request, reply, current, read.value, { flash })
  })

  app.post(`${TASKS}/:id/complete`, formRoute('member'), async (request, reply) => {
    const current = signedIn(request)
    const id = pathId(request)
    const read = readForm(MarkDoneForm, request.body)
    const { view, href } = viewOf(read.ok ? read.value.back : undefined)
    let done: Task
    try {
      done = await completeTask(app.db, webCaller(request, current.account, now()), id)
    } catch (err) {
      const problems = refusalsOf(err)
      return sendList(request, reply, current, view, { status: 422, problem: `Not marked done: ${Object.values(problems).flat().join(' ')}.` })
    }
    cookies.setFlash(reply, current.secret, { kind: 'task-done', title: done.title } satisfies TasksFlash)
    return reply.redirect(href, 303)
  })

  async function sendNewTask(request: FastifyRequest, reply: FastifyReply, current: SignedIn, state: FormState, status: number) {
    const raw = state.values.contact_id
    const contactId = typeof raw === 'string' && /^[1-9]\d{0,15}$/.test(raw) ? Number(raw) : undefined
    const [labels, choices] = await Promise.all([
      contactId === undefined ? new Map<number, ContactLabelRecord>() : contactLabels(app.db, current.account.companyId, [contactId]),
      companyChoices(request, current),
    ])
    const found = contactId === undefined ? undefined : labels.get(contactId)
    const contact = found && !found.deleted ? found : undefined
    return sendHtml(reply, status, newTaskPage(current.chrome, {
      state, csrf: current.csrf, contact, users: choices.users, today: dayIn(now(), current.account.timezone),
    }))
  }

  app.get(`${TASKS}/new`, pageRoute('member'), async (request, reply) => {
    const current = signedIn(request)
    const values = typedValues(request.query, ['contact_id'])
    return sendNewTask(request, reply, current, freshForm({ ...values, due_date: dayIn(now(), current.account.timezone) }), 200)
  })

  app.post(TASKS, formRoute('member'), async (request, reply) => {
    const current = signedIn(request)
    const values = typedValues(request.body, NEW_TASK_FIELDS)
    const read = readForm(NewTaskForm, withoutEmpty(request.body, ['title']))
    if (!read.ok) return sendNewTask(request, reply, current, { values, errors: read.errors }, 422)
    let task: Task
    try {
      task = await createTask(app.db, webCaller(request, current.account, now()), read.value)
    } catch (err) {
      return sendNewTask(request, reply, current, { values, errors: refusalsOf(err) }, 422)
    }
    cookies.setFlash(reply, current.secret, { kind: 'task-created', title: task.title } satisfies TasksFlash)
    const mine = task.assigned_to_id === current.account.userId
    const assignee = mine ? undefined : current.account.role === 'admin' ? String(task.assigned_to_id) : undefined
    return reply.redirect(tasksHref({ tab: TAB_OF_STATUS[task.status], assignee }), 303)
  })
}

export default tasksPages
