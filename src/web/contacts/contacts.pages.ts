// Contacts (/contacts): the company's contacts, 25 a page, with the search, the owner, stage
// and tag filters and the page in the address; a checkbox per row and Add to flow.
import { STAGES, type ContactRecord } from '../../modules/contacts/index.js'
import { html, type Html } from '../shared/html.js'
import { field, postForm, type FormState } from '../frame/form.js'
import { formatter, layout, time, type PageFrame, type Named } from '../frame/frame.js'
import { VIEW_FIELDS, type ContactsView } from './contacts.forms.js'

export const CONTACTS = '/contacts'
export const CONTACTS_PER_PAGE = 25


export interface FlowChoice {
  id: number
  name: string
}

export interface TagChoice {
  id: number
  name: string
}

/** What Add to flow did, shown once on the next page. */
export interface AddedFlash {
  kind: 'added-to-flow'
  flow: string
  added: number
  /** The names of the contacts already in the flow, left as they were. */
  already: string[]
}

export interface ContactsListView {
  view: ContactsView
  contacts: ContactRecord[]
  total: number
  owners: Named[]
  tags: TagChoice[]
  flows: FlowChoice[]
  timezone: string
  csrf: string
  flash?: AddedFlash | undefined
  /** The view's refusals (a bad page number, a repeated parameter): the list is then empty. */
  viewState?: FormState
  /** The Add to flow form drawn again after a refusal. */
  addState?: FormState
}

export const fullName = (contact: Pick<ContactRecord, 'first_name' | 'last_name'>) => [contact.first_name, contact.last_name].filter(Boolean).join(' ')

export const STAGE_LABELS: Record<string, string> = {
  smart_lead: 'Smart lead',
  prospect: 'Prospect',
  lead: 'Lead',
  mql: 'MQL',
  sql: 'SQL',
  opportunity: 'Opportunity',
  client: 'Client',
  lost: 'Lost',
}

/** The view's search and filters as typed into its form ('' where none). */
const viewValues = (view: ContactsView): FormState['values'] =>
  Object.fromEntries(VIEW_FIELDS.map((name) => [name, view[name] === undefined ? '' : String(view[name])]))

/** Whether the view narrows the list (a search or a filter). */
const narrowed = (view: ContactsView) => VIEW_FIELDS.some((name) => view[name] !== undefined && view[name] !== '')

/** The list's address for a view: only the parameters that are set, so addresses stay short and stable. */
export function contactsViewHref(view: ContactsView, change: Partial<ContactsView> = {}): string {
  const merged = { ...view, ...change }
  const params = new URLSearchParams()
  for (const [name, value] of Object.entries(viewValues(merged))) if (value !== '') params.set(name, String(value))
  if (merged.page !== undefined && merged.page > 1) params.set('page', String(merged.page))
  const query = params.toString()
  return query === '' ? CONTACTS : `${CONTACTS}?${query}`
}

/** Contacts → Export of a view: its search and filters, as CSV (/contacts/export). */
function exportHref(view: ContactsView): string {
  const query = contactsViewHref({ ...view, page: 1 }).slice(CONTACTS.length)
  return `${CONTACTS}/export${query}`
}

function addedNotice(flash: AddedFlash): Html {
  return html`<div class="notice" role="status">
  <p>${String(flash.added)} added to ${flash.flow}.</p>
  ${flash.already.length > 0 && html`<p>Already in the flow, left as they were: ${flash.already.join(', ')}.</p>`}
</div>`
}

function pager(view: ContactsView, total: number): Html {
  const page = view.page ?? 1
  const pages = Math.max(1, Math.ceil(total / CONTACTS_PER_PAGE))
  return html`<nav class="pager" id="contacts-pager" aria-label="Pages">
  ${page > 1 ? html`<a href="${contactsViewHref(view, { page: page - 1 })}" rel="prev">Previous</a>` : ''}
  <span>Page ${String(page)} of ${String(pages)} · ${total.toLocaleString('en-GB')} contact${total === 1 ? '' : 's'}</span>
  ${page < pages ? html`<a href="${contactsViewHref(view, { page: page + 1 })}" rel="next">Next</a>` : ''}
</nav>`
}

export function contactsListPage(chrome: PageFrame, list: ContactsListView): Html {
  const format = formatter(list.timezone)
  const owners = new Map(list.owners.map((owner) => [owner.id, owner.name]))
  const viewState = list.viewState ?? { values: viewValues(list.view), errors: {} }
  const addState = list.addState ?? { values: {}, errors: {} }
  return layout(
    chrome,
    'Contacts',
    html`<div class="page-head">
  <h1>Contacts</h1>
  <a class="button" href="${CONTACTS}/import">Import</a>
  <a class="button" href="${exportHref(list.view)}" id="export-view">Export this view</a>
  <a class="button primary" href="${CONTACTS}/new">New contact</a>
</div>
${list.flash && addedNotice(list.flash)}
<form method="get" action="${CONTACTS}" class="filters" role="search" aria-label="Contacts">
  ${field(viewState, { name: 'search_term', label: 'Search', type: 'search', maxlength: 255, hint: 'Part of a name, a business or an email', id: 'search' })}
  ${field(viewState, { name: 'user_id', label: 'Owner', type: 'select', options: [['', 'Anyone'], ...list.owners.map((owner) => [String(owner.id), owner.name] as const)] })}
  ${field(viewState, { name: 'stage', label: 'Stage', type: 'select', options: [['', 'Any stage'], ...STAGES.map((stage) => [stage, STAGE_LABELS[stage] ?? stage] as const)] })}
  ${field(viewState, { name: 'tag_id', label: 'Tag', type: 'select', options: [['', 'Any tag'], ...list.tags.map((tag) => [String(tag.id), tag.name] as const)] })}
  <button type="submit">Show</button>
  ${(narrowed(list.view) || list.viewState) && html`<a href="${CONTACTS}" class="clear-view">Clear</a>`}
</form>
${postForm({
  action: `${CONTACTS}/add-to-flow`,
  csrf: list.csrf,
  state: addState,
  submit: 'Add to flow',
  label: 'Add the selected contacts to a flow',
  className: 'selection',
  shown: ['flow_id', 'contact_ids'],
  fields: html`<div class="table-wrap" id="contacts-results">
  ${list.contacts.length === 0
    ? html`<p class="muted">${list.viewState ? 'Nothing to show: see the refusal above.' : narrowed(list.view) ? 'No contact matches this view.' : 'No contacts here yet.'}</p>`
    : html`<table class="records contacts">
    <caption class="visually-hidden">Contacts, last change in ${list.timezone}</caption>
    <thead><tr>
      <th scope="col"><span class="visually-hidden">Select</span></th>
      <th scope="col">Name</th><th scope="col">Email</th><th scope="col">Business</th><th scope="col">Stage</th>
      <th scope="col">Tags</th><th scope="col">Owner</th><th scope="col">Last change</th>
    </tr></thead>
    <tbody>
    ${list.contacts.map(
      (contact) => html`<tr>
      <td><input type="checkbox" name="contact_ids[]" value="${String(contact.id)}" id="select-${String(contact.id)}" aria-label="Select ${fullName(contact)}"${(addState.values.contact_ids ?? []).includes(String(contact.id)) ? html` checked` : ''}></td>
      <td data-label="Name"><a href="${CONTACTS}/${String(contact.id)}">${fullName(contact)}</a></td>
      <td data-label="Email" class="wrap">${contact.email}</td>
      <td data-label="Business">${contact.business ?? ''}</td>
      <td data-label="Stage">${contact.stage ? STAGE_LABELS[contact.stage] : ''}</td>
      <td data-label="Tags">${contact.tags.map((tag) => html`<span class="tag">${tag.name}</span> `)}</td>
      <td data-label="Owner">${owners.get(contact.user_id) ?? ''}</td>
      <td data-label="Last change">${time(new Date(contact.updated_at), format)}</td>
    </tr>`,
    )}
    </tbody>
  </table>`}
  ${addState.errors.contact_ids && html`<p class="field-error" id="contact-ids-error">${addState.errors.contact_ids.join(' ')}</p>`}
  </div>
  ${pager(list.view, list.total)}
  ${field(addState, { name: 'flow_id', label: 'Flow', type: 'select', required: true, options: [['', 'Choose a flow'], ...list.flows.map((flow) => [String(flow.id), flow.name] as const)] })}`,
})}`,
  )
}

