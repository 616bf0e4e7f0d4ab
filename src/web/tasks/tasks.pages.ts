// Tasks (/tasks): the signed-in user's tasks by tab (Today, Overdue, Upcoming, Done), filtered
// by kind and flow (and, for admins, assignee), with Mark done on each open task; New task.
// Due days are calendar days; "today" and finish times are the company's time zone.
import { labelName, type ContactLabelRecord } from '../../modules/contacts/index.js'
import { TASK_KINDS, type Task } from '../../modules/tasks/index.js'
import { html, type Html } from '../shared/html.js'
import { csrfInput, formatter, layout, listPageHead, time, type PageFrame, type Named } from '../frame/frame.js'
import { field, postForm, type FormState } from '../frame/form.js'
import { ANYONE, TASK_TABS, type TaskTab, type TasksView } from './tasks.forms.js'

export const TASKS = '/tasks'
export const TASKS_PER_PAGE = 25

export const TAB_LABELS: Record<TaskTab, string> = { today: 'Today', overdue: 'Overdue', upcoming: 'Upcoming', done: 'Done' }
export const KIND_LABELS: Record<Task['kind'], string> = {
  phonecall: 'Call',
  email: 'Email',
  linkedin: 'LinkedIn',
  social: 'Social',
  meeting: 'Meeting',
}


/** What the last write did, shown once on the next page. */
export type TasksFlash = { kind: 'task-done'; title: string } | { kind: 'task-created'; title: string }
export const TASKS_FLASHES: readonly TasksFlash['kind'][] = ['task-done', 'task-created']

export interface TasksListView {
  view: TasksView
  tab: TaskTab
  tasks: Task[]
  total: number
  contacts: Map<number, ContactLabelRecord>
  flows: Named[]
  /** The company's users: the assignee filter and column, for admins. */
  users: Named[]
  admin: boolean
  /** Whose tasks these are ("Your tasks", "Ana's tasks", "Everyone's tasks"). */
  whose: string
  timezone: string
  today: string
  csrf: string
  flash?: TasksFlash | undefined
  /** A refused view (a bad page, an unknown tab), or a refused Mark done. */
  problem?: string | undefined
}

/** The list's address for a view: only the parameters that are set. */
export function tasksHref(view: TasksView, change: Partial<TasksView> = {}): string {
  const merged = { ...view, ...change }
  const params = new URLSearchParams()
  if (merged.tab !== undefined && merged.tab !== 'today') params.set('tab', merged.tab)
  if (merged.kind !== undefined) params.set('kind', merged.kind)
  if (merged.flow_id !== undefined) params.set('flow_id', String(merged.flow_id))
  if (merged.assignee !== undefined) params.set('assignee', merged.assignee)
  if (merged.page !== undefined && merged.page > 1) params.set('page', String(merged.page))
  const query = params.toString()
  return query === '' ? TASKS : `${TASKS}?${query}`
}

/** "Mon 9 Mar 2026": a due day, a calendar day (no time zone applies). */
export function dayLabel(day: string): string {
  const at = new Date(`${day}T12:00:00Z`)
  return new Intl.DateTimeFormat('en-GB', { weekday: 'short', day: 'numeric', month: 'short', year: 'numeric', timeZone: 'UTC' }).format(at)
}

function flashNotice(flash: TasksFlash): Html {
  const text = flash.kind === 'task-done' ? `Done: ${flash.title}.` : `Task created: ${flash.title}.`
  return html`<p class="notice" role="status">${text}</p>`
}

/** Mark done: a form per open task, back to this very view afterwards. */
export function markDoneForm(task: Pick<Task, 'id' | 'title'>, csrf: string, back: string): Html {
  return html`<form method="post" action="${TASKS}/${String(task.id)}/complete" class="inline" data-enhance="replace">
  ${csrfInput(csrf)}
  <input type="hidden" name="back" value="${back}">
  <button type="submit" aria-label="Mark done: ${task.title}">Mark done</button>
</form>`
}

function contactCell(contactId: number, contacts: Map<number, ContactLabelRecord>): Html {
  const contact = contacts.get(contactId)
  if (!contact) return html`<span class="muted">Contact ${String(contactId)}</span>`
  if (contact.deleted) return html`${labelName(contact)} <span class="muted">(deleted)</span>`
  return html`<a href="/contacts/${String(contactId)}">${labelName(contact)}</a>`
}

function pager(list: TasksListView): Html | false {
  const page = list.view.page ?? 1
  const pages = Math.max(1, Math.ceil(list.total / TASKS_PER_PAGE))
  if (pages <= 1 && page <= 1) return false
  return html`<nav class="pager" aria-label="Pages">
  ${page > 1 ? html`<a href="${tasksHref(list.view, { page: page - 1 })}" rel="prev">Previous</a>` : ''}
  <span>Page ${String(page)} of ${String(pages)}</span>
  ${page < pages ? html`<a href="${tasksHref(list.view, { page: page + 1 })}" rel="next">Next</a>` : ''}
</nav>`
}

export function tasksListPage(chrome: PageFrame, list: TasksListView): Html {
  const format = formatter(list.timezone)
  const flows = new Map(list.flows.map((flow) => [flow.id, flow.name]))
  const users = new Map(list.users.map((user) => [user.id, user.name]))
  const back = tasksHref(list.view)
  const filters: FormState = {
    values: {
      kind: list.view.kind ?? '',
      flow_id: list.view.flow_id === undefined ? '' : String(list.view.flow_id),
      assignee: list.view.assignee ?? '',
    },
    errors: {},
  }
  const showAssignee = list.admin && list.view.assignee !== undefined
  const open = list.tab !== 'done'
  const empty: Record<TaskTab, string> = {
    today: 'Nothing due today.',
    overdue: 'Nothing overdue.',
    upcoming: 'Nothing coming up.',
    done: 'Nothing done in the last 7 days.',
  }
  return layout(
    chrome,
    `Tasks · ${TAB_LABELS[list.tab]}`,
    html`${listPageHead('Tasks', TASKS, 'New task')}
<p class="muted">${list.whose}. Today is ${dayLabel(list.today)} (${list.timezone})${list.tab === 'done' && '; Done shows what was finished in the last 7 days'}.</p>
${list.flash && flashNotice(list.flash)}
${list.problem && html`<p class="alert" role="alert">${list.problem}</p>`}
<nav class="tabs" aria-label="Tasks by day">
  ${TASK_TABS.map((tab) => html`<a href="${tasksHref(list.view, { tab, page: undefined })}"${tab === list.tab ? html` aria-current="page"` : ''}>${TAB_LABELS[tab]}</a>`)}
</nav>
<form method="get" action="${TASKS}" class="filters" role="search" aria-label="Filter tasks">
  ${list.tab !== 'today' && html`<input type="hidden" name="tab" value="${list.tab}">`}
  ${field(filters, { name: 'kind', label: 'Kind', type: 'select', options: [['', 'Any kind'], ...TASK_KINDS.map((kind) => [kind, KIND_LABELS[kind]] as const)] })}
  ${field(filters, { name: 'flow_id', label: 'Flow', type: 'select', options: [['', 'Any flow'], ...list.flows.map((flow) => [String(flow.id), flow.name] as const)] })}
  ${list.admin && field(filters, { name: 'assignee', label: 'Assignee', type: 'select', options: [['', 'Me'], [ANYONE, 'Anyone'], ...list.users.map((user) => [String(user.id), user.name] as const)] })}
  <button type="submit">Show</button>
</form>
<div class="table-wrap" id="tasks-results" aria-live="polite">
${list.tasks.length === 0
  ? html`<p class="muted">${empty[list.tab]}</p>`
  : html`<table class="records tasks">
  <caption class="visually-hidden">${TAB_LABELS[list.tab]}: ${String(list.total)} task${list.total === 1 ? '' : 's'}</caption>
  <thead><tr>
    <th scope="col">Task</th><th scope="col">Contact</th><th scope="col">Kind</th><th scope="col">Due</th><th scope="col">Flow</th>
    ${showAssignee && html`<th scope="col">Assignee</th>`}
    <th scope="col">${open ? html`<span class="visually-hidden">Actions</span>` : 'Done'}</th>
  </tr></thead>
  <tbody>
  ${list.tasks.map(
    (task) => html`<tr id="task-${String(task.id)}">
    <td data-label="Task">${task.title}</td>
    <td data-label="Contact">${contactCell(task.contact_id, list.contacts)}</td>
    <td data-label="Kind">${KIND_LABELS[task.kind]}</td>
    <td data-label="Due"><time datetime="${task.due_date}">${dayLabel(task.due_date)}</time></td>
    <td data-label="Flow">${task.flow_id === null ? html`<span class="muted">None</span>` : html`<a href="/flows/${String(task.flow_id)}">${flows.get(task.flow_id) ?? `Flow ${String(task.flow_id)}`}</a>`}</td>
    ${showAssignee && html`<td data-label="Assignee">${users.get(task.assigned_to_id) ?? ''}</td>`}
    <td data-label="${open ? 'Action' : 'Done'}" class="actions">${task.done ? time(task.done_at === null ? null : new Date(task.done_at), format) : markDoneForm(task, list.csrf, back)}</td>
  </tr>`,
  )}
  </tbody>
</table>`}
</div>
${pager(list)}`,
  )
}

export interface NewTaskView {
  state: FormState
  csrf: string
  /** The contact named by the address (from its page), shown by name. */
  contact?: ContactLabelRecord | undefined
  users: Named[]
  today: string
}

export const NEW_TASK_FIELDS = ['contact_id', 'kind', 'due_date', 'title', 'assigned_to_id'] as const

export function newTaskPage(chrome: PageFrame, view: NewTaskView): Html {
  const { state } = view
  return layout(
    chrome,
    'New task',
    html`<section class="card form-card">
  <h1>New task</h1>
  ${view.contact && html`<p>About <a href="/contacts/${String(view.contact.id)}">${labelName(view.contact)}</a>${view.contact.email && html` (${view.contact.email})`}.</p>`}
  ${postForm({
    action: TASKS,
    csrf: view.csrf,
    state,
    submit: 'Create task',
    shown: NEW_TASK_FIELDS,
    fields: html`${view.contact
      ? html`<input type="hidden" name="contact_id" value="${String(view.contact.id)}">`
      : field(state, { name: 'contact_id', label: 'Contact id', type: 'text', required: true, hint: 'The number at the end of the contact’s address, /contacts/…' })}
    ${view.contact && state.errors.contact_id && html`<p class="field-error">${state.errors.contact_id.join(' ')}</p>`}
    ${field(state, { name: 'kind', label: 'Kind', type: 'select', required: true, options: [['', 'Choose a kind'], ...TASK_KINDS.map((kind) => [kind, KIND_LABELS[kind]] as const)] })}
    ${field(state, { name: 'due_date', label: 'Due', type: 'date', required: true, hint: `A day, as yyyy-mm-dd; today is ${view.today}` })}
    ${field(state, { name: 'title', label: 'Title', maxlength: 255, hint: 'Without one: the kind and the contact’s name, “Call Ana Souza”' })}
    ${field(state, { name: 'assigned_to_id', label: 'Assignee', type: 'select', options: [['', 'The contact’s owner'], ...view.users.map((user) => [String(user.id), user.name] as const)] })}`,
  })}
</section>`,
  )
}
