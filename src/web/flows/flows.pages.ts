// Flows (/flows): the list with its search, a flow's page (its steps in order and the
// contacts in it, Add contacts), New flow and a flow's edit page (name, status, steps).
import { labelName, type ContactLabelRecord } from '../../modules/contacts/index.js'
import { MAX_STEPS, type FlowContactRecord, type Flow } from '../../modules/flows/index.js'
import { TASK_KINDS } from '../../modules/tasks/index.js'
import type { ErrorDetails } from '../../errors.js'
import { html, type Html } from '../shared/html.js'
import { csrfInput, formatter, layout, listPageHead, recordPageHead, time, type PageFrame } from '../frame/frame.js'
import { field, formErrors, type FormState } from '../frame/form.js'
import { KIND_LABELS } from '../tasks/tasks.pages.js'
import type { FlowsView, FlowView } from './flows.forms.js'

export const FLOWS = '/flows'
export const FLOWS_PER_PAGE = 25
/** Blank step rows a flow form offers beyond the steps typed: fill them in, or leave them blank. */
export const BLANK_STEPS = 3


export type FlowsFlash =
  | { kind: 'flow-created'; name: string }
  | { kind: 'flow-changed'; name: string }
  | { kind: 'contacts-added'; added: number; already: string[] }
export const FLOWS_FLASHES: readonly FlowsFlash['kind'][] = ['flow-created', 'flow-changed', 'contacts-added']

const STATUS_LABELS: Record<Flow['status'], string> = { active: 'Active', paused: 'Paused' }

export const dayText = (day: number) => (day === 0 ? 'The day added' : `Day ${String(day)}`)

function pager(href: (page: number) => string, page: number, total: number, noun: string): Html {
  const pages = Math.max(1, Math.ceil(total / FLOWS_PER_PAGE))
  return html`<nav class="pager" aria-label="Pages">
  ${page > 1 ? html`<a href="${href(page - 1)}" rel="prev">Previous</a>` : ''}
  <span>Page ${String(page)} of ${String(pages)} · ${String(total)} ${noun}${total === 1 ? '' : 's'}</span>
  ${page < pages ? html`<a href="${href(page + 1)}" rel="next">Next</a>` : ''}
</nav>`
}

export function flowsHref(view: FlowsView, change: Partial<FlowsView> = {}): string {
  const merged = { ...view, ...change }
  const params = new URLSearchParams()
  if (merged.search_term !== undefined && merged.search_term !== '') params.set('search_term', merged.search_term)
  if (merged.page !== undefined && merged.page > 1) params.set('page', String(merged.page))
  const query = params.toString()
  return query === '' ? FLOWS : `${FLOWS}?${query}`
}

function flashNotice(flash: FlowsFlash | undefined): Html | false {
  if (!flash) return false
  if (flash.kind === 'contacts-added') {
    return html`<div class="notice" role="status">
  <p>${String(flash.added)} added.</p>
  ${flash.already.length > 0 && html`<p>Already in the flow, left as they were: ${flash.already.join(', ')}.</p>`}
</div>`
  }
  return html`<p class="notice" role="status">${flash.kind === 'flow-created' ? 'Flow created' : 'Flow saved'}: ${flash.name}.</p>`
}

export function flowsListPage(
  chrome: PageFrame,
  list: { view: FlowsView; flows: Flow[]; total: number; owners: Map<number, string>; flash?: FlowsFlash | undefined; viewState?: FormState },
): Html {
  const state = list.viewState ?? { values: { search_term: list.view.search_term ?? '' }, errors: {} }
  return layout(
    chrome,
    'Flows',
    html`${listPageHead('Flows', FLOWS, 'New flow')}
${flashNotice(list.flash)}
<form method="get" action="${FLOWS}" class="filters" role="search" aria-label="Flows">
  ${field(state, { name: 'search_term', label: 'Search', type: 'search', maxlength: 255, hint: 'Part of a flow’s name', id: 'search' })}
  <button type="submit">Search</button>
</form>
<div class="table-wrap">
${list.flows.length === 0
  ? html`<p class="muted">${list.view.search_term ? 'No flow matches this search.' : 'No flows yet.'}</p>`
  : html`<table class="records flows">
  <caption class="visually-hidden">Flows</caption>
  <thead><tr><th scope="col">Name</th><th scope="col">Status</th><th scope="col">Steps</th><th scope="col">Contacts</th><th scope="col">Owner</th></tr></thead>
  <tbody>
  ${list.flows.map((flow) => html`<tr>
    <td data-label="Name"><a href="${FLOWS}/${String(flow.id)}">${flow.name}</a></td>
    <td data-label="Status">${STATUS_LABELS[flow.status]}</td>
    <td data-label="Steps">${String(flow.steps.length)}</td>
    <td data-label="Contacts">${String(flow.contacts_count)}</td>
    <td data-label="Owner">${list.owners.get(flow.user_id) ?? ''}</td>
  </tr>`)}
  </tbody>
</table>`}
</div>
${pager((page) => flowsHref(list.view, { page }), list.view.page ?? 1, list.total, 'flow')}`,
  )
}

export function stepsTable(steps: Flow['steps']): Html {
  return html`<table class="records steps">
  <caption class="visually-hidden">Steps, in order</caption>
  <thead><tr><th scope="col">Step</th><th scope="col">Kind</th><th scope="col">Day</th><th scope="col">Instructions</th></tr></thead>
  <tbody>
  ${steps.map((step) => html`<tr>
    <td data-label="Step">${String(step.position)}</td>
    <td data-label="Kind">${KIND_LABELS[step.kind]}</td>
    <td data-label="Day">${dayText(step.day)}</td>
    <td data-label="Instructions">${step.title}</td>
  </tr>`)}
  </tbody>
</table>`
}

export interface FlowPageView {
  flow: Flow
  owner: string
  view: FlowView
  contacts: FlowContactRecord[]
  labels: Map<number, ContactLabelRecord>
  /** Add contacts: the contacts found by the search, and what was ticked or refused. */
  found: { id: number; name: string; email: string | null }[]
  addState: FormState
  timezone: string
  csrf: string
  flash?: FlowsFlash | undefined
}

export function flowPage(chrome: PageFrame, page: FlowPageView): Html {
  const { flow } = page
  const format = formatter(page.timezone)
  const base = `${FLOWS}/${String(flow.id)}`
  const ticked = page.addState.values.contact_ids ?? []
  return layout(
    chrome,
    flow.name,
    html`${recordPageHead(FLOWS, 'Flows', flow.name, { actions: html`<a class="button" href="${base}/edit">Edit</a>` })}
${flashNotice(page.flash)}
<dl class="facts">
  <dt>Status</dt><dd>${STATUS_LABELS[flow.status]}</dd>
  <dt>Owner</dt><dd>${page.owner}</dd>
  <dt>Contacts in it</dt><dd>${String(flow.contacts_count)}</dd>
</dl>
<section aria-labelledby="steps-heading">
  <h2 id="steps-heading">Steps</h2>
  <p class="muted">Each contact added gets one task per step, due that many days after the day it is added.</p>
  <div class="table-wrap">${stepsTable(flow.steps)}</div>
</section>
<section aria-labelledby="contacts-heading">
  <h2 id="contacts-heading">Contacts</h2>
  <div class="table-wrap">
  ${page.contacts.length === 0
    ? html`<p class="muted">No contact is in this flow yet.</p>`
    : html`<table class="records flows">
    <caption class="visually-hidden">Contacts in the flow, added in ${page.timezone}</caption>
    <thead><tr><th scope="col">Name</th><th scope="col">Email</th><th scope="col">Added</th></tr></thead>
    <tbody>
    ${page.contacts.map((entry) => {
      const label = page.labels.get(entry.contact_id)
      const name = label ? labelName(label) : `Contact ${String(entry.contact_id)}`
      return html`<tr>
      <td data-label="Name">${label?.deleted ? html`${name} <span class="muted">(deleted)</span>` : html`<a href="/contacts/${String(entry.contact_id)}">${name}</a>`}</td>
      <td data-label="Email" class="wrap">${label?.email ?? ''}</td>
      <td data-label="Added">${time(entry.added_at, format)}</td>
    </tr>`
    })}
    </tbody>
  </table>`}
  </div>
  ${pager((n) => `${base}?page=${String(n)}`, page.view.page ?? 1, flow.contacts_count, 'contact')}
</section>
<section aria-labelledby="add-heading" class="card" id="add-contacts">
  <h2 id="add-heading">Add contacts</h2>
  ${flow.status === 'paused' && html`<p class="muted">This flow is paused: it takes no new contacts until it is active again (Edit).</p>`}
  <form method="get" action="${base}#add-contacts" class="filters" role="search" aria-label="Find contacts to add">
    ${field({ values: { search_term: page.view.search_term ?? '' }, errors: {} }, { name: 'search_term', label: 'Find contacts', type: 'search', maxlength: 255, hint: 'Part of a name, a business or an email', id: 'find-contacts' })}
    <button type="submit">Find</button>
  </form>
  ${page.view.search_term !== undefined && page.view.search_term !== '' && html`<form method="post" action="${base}/contacts?${new URLSearchParams({ search_term: page.view.search_term }).toString()}" class="stack" aria-label="Add the ticked contacts">
    ${formErrors(page.addState)}
    ${csrfInput(page.csrf)}
    ${page.found.length === 0
      ? html`<p class="muted">No contact matches this search.</p>`
      : html`<fieldset><legend>Contacts found</legend>
      ${page.found.map((contact) => html`<label class="choice"><input type="checkbox" name="contact_ids[]" value="${String(contact.id)}"${ticked.includes(String(contact.id)) ? html` checked` : ''}> ${contact.name}${contact.email && html` <span class="muted">${contact.email}</span>`}</label>`)}
      </fieldset>
      <button type="submit" class="primary">Add contacts</button>`}
  </form>`}
</section>`,
  )
}

export interface FlowFormView {
  /** Undefined: New flow. */
  flow?: Flow | undefined
  state: FormState
  /** The step rows as typed, and the refusals of each (by field: day, kind, title). */
  rows: { values: Record<string, string>; errors: ErrorDetails }[]
  csrf: string
}

/** The fields of one step row: its kind, day and instructions, each labelled with the step's number. */
function stepRow(row: FlowFormView['rows'][number], index: number): Html {
  const n = String(index + 1)
  const state: FormState = {
    values: { 'steps[][kind]': row.values.kind ?? '', 'steps[][day]': row.values.day ?? '', 'steps[][title]': row.values.title ?? '' },
    errors: Object.fromEntries(Object.entries(row.errors).map(([name, problems]) => [`steps[][${name}]`, problems])),
  }
  return html`<fieldset class="step-row">
  <legend>Step ${n}</legend>
  ${field(state, { name: 'steps[][kind]', id: `step-${n}-kind`, label: 'Kind', type: 'select', options: [['', 'Choose a kind'], ...TASK_KINDS.map((kind) => [kind, KIND_LABELS[kind]] as const)] })}
  ${field(state, { name: 'steps[][day]', id: `step-${n}-day`, label: 'Day', type: 'number', hint: 'Days after the contact is added (0: that day)' })}
  ${field(state, { name: 'steps[][title]', id: `step-${n}-title`, label: 'Instructions', maxlength: 255 })}
</fieldset>`
}

export function flowFormPage(chrome: PageFrame, view: FlowFormView): Html {
  const editing = view.flow !== undefined
  const title = editing ? `Edit ${view.flow?.name ?? ''}` : 'New flow'
  const action = editing ? `${FLOWS}/${String(view.flow?.id)}` : FLOWS
  const stepProblems = view.state.errors.steps
  return layout(
    chrome,
    title,
    html`<p class="crumbs"><a href="${FLOWS}">Flows</a></p>
<section class="card form-card">
  <h1>${title}</h1>
  ${editing && html`<p class="notice">Contacts already in this flow keep the tasks they have: only contacts added after you save get the new steps.</p>`}
  <form method="post" action="${action}" class="stack" novalidate>
    ${formErrors(view.state, ['name', 'status', 'steps'])}
    ${csrfInput(view.csrf)}
    ${field(view.state, { name: 'name', label: 'Name', required: true, maxlength: 255 })}
    ${editing && field(view.state, { name: 'status', label: 'Status', type: 'select', options: [['active', 'Active'], ['paused', 'Paused: takes no new contacts']] })}
    <h2>Steps</h2>
    <p class="hint" id="steps-hint">In order, 1 to ${String(MAX_STEPS)}. Blank rows are left out; save and edit again for more rows.</p>
    ${stepProblems && html`<p class="field-error" id="steps-error">${stepProblems.join(' ')}</p>`}
    ${view.rows.map(stepRow)}
    <button type="submit" class="primary">${editing ? 'Save flow' : 'Create flow'}</button>
  </form>
</section>`,
  )
}
