// Leads (/leads): a user's leads (the API's list and count are by creator), by link to a
// contact, 25 a page; New lead; a lead's page with its fields, its business, the contact it is
// linked to and Link to contact; and the Leads section of a contact's page.
import { labelName, type ContactLabelRecord } from '../../modules/contacts/index.js'
import type { LeadRecord } from '../../modules/leads/index.js'
import { html, type Html } from '../shared/html.js'
import { field, formErrors, personField, postForm, sentence, type FieldSpec, type FormState } from '../frame/form.js'
import { csrfInput, formatter, layout, listPageHead, recordPageHead, time, viewHref, type PageFrame, type Named } from '../frame/frame.js'
import { LINK_FILTERS, type LeadsView, type LeadView, type LinkChoice } from './leads.forms.js'

export const LEADS = '/leads'
export const LEADS_PER_PAGE = 25


/** What the last write did, shown once on the next page. */
export type LeadsFlash = { kind: 'lead-created'; name: string } | { kind: 'lead-linked'; name: string; contact: string }

/** The kinds of LeadsFlash: the one flash cookie may hold another page's notice, which is not drawn here. */
export const LEADS_FLASHES: readonly LeadsFlash['kind'][] = ['lead-created', 'lead-linked']

/** The lead's own fields, in the API's names and order, as New lead asks for them and its page shows them. */
export const PERSON_FIELDS: readonly FieldSpec[] = [
  personField('first_name', { autocomplete: 'off' }),
  personField('last_name', { autocomplete: 'off' }),
  personField('email', { autocomplete: 'off' }),
  { name: 'provider', label: 'Provider', required: true, maxlength: 255, hint: 'Where the lead was found: linkedin, apollo, a web form… Each email once per provider.' },
  personField('position'),
  { name: 'linkedin_url', label: 'LinkedIn', type: 'url', maxlength: 255 },
  personField('telephone'),
  personField('city'),
  { name: 'state_province', label: 'State or province', maxlength: 255 },
  personField('country'),
  { name: 'degree_of_connection', label: 'Degree of connection', type: 'number', hint: '1 for a first-degree connection, 2 for the second…' },
]

/** The lead's business: its fields fill in the company's business of that name. */
export const BUSINESS_FIELDS: readonly FieldSpec[] = [
  { name: 'business_name', label: 'Business name', maxlength: 255, hint: 'Its details below fill in the business of this name' },
  { name: 'business_sector', label: 'Business sector', maxlength: 255 },
  { name: 'business_linkedin_url', label: 'Business LinkedIn', type: 'url', maxlength: 255 },
  { name: 'business_colaborators_count', label: 'Business employees', type: 'number' },
  { name: 'business_telephone', label: 'Business telephone', type: 'tel', maxlength: 255 },
]

export const LEAD_FIELD_NAMES = [...PERSON_FIELDS, ...BUSINESS_FIELDS].map((spec) => spec.name)
/** The fields New lead may leave blank: not given, as the API takes an omitted field. */
export const OPTIONAL_FIELD_NAMES = [...PERSON_FIELDS, ...BUSINESS_FIELDS].filter((spec) => !spec.required).map((spec) => spec.name)

export const leadName = (lead: Pick<LeadRecord, 'first_name' | 'last_name'>) => [lead.first_name, lead.last_name].filter(Boolean).join(' ')

const LINK_LABELS: Record<LinkChoice | 'all', string> = { all: 'All', with: 'With a contact', without: 'Without a contact' }

/** The list's address for a view: only the parameters that are set. */
export function leadsHref(view: LeadsView, change: Partial<LeadsView> = {}): string {
  const merged = { ...view, ...change }
  return viewHref(LEADS, { user_id: merged.user_id, contact: merged.contact, page: merged.page })
}

function flashNotice(flash: LeadsFlash | undefined): Html | false {
  if (!flash) return false
  const text = flash.kind === 'lead-created' ? `Lead created: ${flash.name}.` : `${flash.name} is linked to ${flash.contact}.`
  return html`<p class="notice" role="status">${text}</p>`
}

function contactLink(contactId: number | null, contacts: Map<number, ContactLabelRecord>): Html {
  if (contactId === null) return html`<span class="muted">None</span>`
  const contact = contacts.get(contactId)
  return html`<a href="/contacts/${String(contactId)}">${contact ? labelName(contact) : `Contact ${String(contactId)}`}</a>`
}

export interface LeadsListView {
  view: LeadsView
  /** Whose leads: the creator the list shows. */
  userId: number
  whose: string
  leads: LeadRecord[]
  /** The API's count of the creator's leads: all of them, with a contact, without one. */
  counts: Record<LinkChoice | 'all', number>
  contacts: Map<number, ContactLabelRecord>
  users: Named[]
  timezone: string
  flash?: LeadsFlash | undefined
  /** A refused address: the list is then empty. */
  problem?: string | undefined
}

export function leadsListPage(chrome: PageFrame, list: LeadsListView): Html {
  const format = formatter(list.timezone)
  const shown = list.view.contact ?? 'all'
  const total = list.counts[shown]
  const page = list.view.page ?? 1
  const pages = Math.max(1, Math.ceil(total / LEADS_PER_PAGE))
  const filters: FormState = { values: { user_id: String(list.userId) }, errors: {} }
  return layout(
    chrome,
    'Leads',
    html`${listPageHead('Leads', LEADS, 'New lead')}
<p class="muted" id="leads-count">${list.whose}: ${String(list.counts.all)} lead${list.counts.all === 1 ? '' : 's'}, ${String(list.counts.with)} with a contact.</p>
${flashNotice(list.flash)}
${list.problem && html`<p class="alert" role="alert">${list.problem}</p>`}
<form method="get" action="${LEADS}" class="filters" aria-label="Whose leads">
  ${list.view.contact !== undefined && html`<input type="hidden" name="contact" value="${list.view.contact}">`}
  ${field(filters, { name: 'user_id', label: 'Created by', type: 'select', options: list.users.map((user) => [String(user.id), user.name] as const) })}
  <button type="submit">Show</button>
</form>
<nav class="tabs" aria-label="Leads by contact">
  ${(['all', ...LINK_FILTERS] as const).map((choice) => html`<a href="${leadsHref(list.view, { contact: choice === 'all' ? undefined : choice, page: undefined })}"${choice === shown ? html` aria-current="page"` : ''}>${LINK_LABELS[choice]} (${String(list.counts[choice])})</a>`)}
</nav>
<div class="table-wrap">
${list.leads.length === 0
  ? html`<p class="muted">${total === 0 ? 'No leads here.' : 'No leads on this page.'}</p>`
  : html`<table class="records">
  <caption class="visually-hidden">${list.whose}, ${LINK_LABELS[shown].toLowerCase()}: ${String(total)} lead${total === 1 ? '' : 's'}, added in ${list.timezone}</caption>
  <thead><tr><th scope="col">Name</th><th scope="col">Email</th><th scope="col">Provider</th><th scope="col">Business</th><th scope="col">Contact</th><th scope="col">Added</th></tr></thead>
  <tbody>
  ${list.leads.map((lead) => html`<tr>
    <td data-label="Name"><a href="${LEADS}/${String(lead.id)}">${leadName(lead)}</a></td>
    <td data-label="Email" class="wrap">${lead.email}</td>
    <td data-label="Provider">${lead.provider}</td>
    <td data-label="Business">${lead.business_name ?? ''}</td>
    <td data-label="Contact">${contactLink(lead.contact_id, list.contacts)}</td>
    <td data-label="Added">${time(new Date(lead.created_at), format)}</td>
  </tr>`)}
  </tbody>
</table>`}
</div>
${(pages > 1 || page > 1) && html`<nav class="pager" aria-label="Pages">
  ${page > 1 ? html`<a href="${leadsHref(list.view, { page: page - 1 })}" rel="prev">Previous</a>` : ''}
  <span>Page ${String(page)} of ${String(pages)} · ${String(total)} lead${total === 1 ? '' : 's'}</span>
  ${page < pages ? html`<a href="${leadsHref(list.view, { page: page + 1 })}" rel="next">Next</a>` : ''}
</nav>`}`,
  )
}

export function newLeadPage(chrome: PageFrame, csrf: string, state: FormState): Html {
  return layout(
    chrome,
    'New lead',
    html`<p class="crumbs"><a href="${LEADS}">Leads</a></p>
<section class="card form-card">
  <h1>New lead</h1>
  <p class="muted">A lead with the email of a contact is linked to that contact.</p>
  ${postForm({
    action: LEADS,
    csrf,
    state,
    submit: 'Create lead',
    shown: LEAD_FIELD_NAMES,
    fields: html`${PERSON_FIELDS.map((spec) => field(state, spec))}
    <fieldset>
      <legend>Business</legend>
      ${BUSINESS_FIELDS.map((spec) => field(state, spec))}
    </fieldset>`,
  })}
</section>`,
  )
}

/** A contact found by Link to contact's search. */
export interface FoundContact {
  id: number
  name: string
  email: string
}

export interface LeadPageView {
  lead: LeadRecord
  creator: string
  /** The contact it is linked to, when it is. */
  contact?: ContactLabelRecord | undefined
  view: LeadView
  /** The contacts the search found (none without a search). */
  found: FoundContact[]
  /** Link to contact as chosen, with its refusals (422). */
  linkState: FormState
  timezone: string
  csrf: string
  flash?: LeadsFlash | undefined
}

function facts(lead: LeadRecord, specs: readonly FieldSpec[]): Html[] {
  return specs.flatMap((spec) => {
    const value = lead[spec.name as keyof LeadRecord]
    if (value === null || value === '') return []
    return [html`<dt>${spec.label}</dt><dd class="wrap">${String(value)}</dd>`]
  })
}

export function leadPage(chrome: PageFrame, page: LeadPageView): Html {
  const { lead, contact } = page
  const format = formatter(page.timezone)
  const base = `${LEADS}/${String(lead.id)}`
  const search = page.view.contact_search ?? ''
  const chosen = page.linkState.values.contact_id
  const otherEmail = contact?.email != null && contact.email.toLowerCase() !== lead.email.toLowerCase()
  const business = facts(lead, BUSINESS_FIELDS.filter((spec) => spec.name !== 'business_name'))
  return layout(
    chrome,
    leadName(lead),
    html`${recordPageHead(LEADS, 'Leads', leadName(lead))}
${flashNotice(page.flash)}
<div class="columns">
<div class="main-column">
<section class="card" aria-labelledby="details-title">
  <h2 id="details-title">Details</h2>
  <dl class="facts">
    ${facts(lead, PERSON_FIELDS.filter((spec) => spec.name !== 'first_name' && spec.name !== 'last_name'))}
    <dt>Created by</dt><dd>${page.creator}</dd>
    <dt>Added</dt><dd>${time(new Date(lead.created_at), format)}</dd>
  </dl>
</section>
<section class="card" aria-labelledby="business-title">
  <h2 id="business-title">Business</h2>
  ${lead.business_name === null
    ? html`<p class="muted">No business.</p>`
    : html`<dl class="facts"><dt>Name</dt><dd class="wrap">${lead.business_name}</dd>${business}</dl>`}
</section>
</div>
<div class="side-column">
<section class="card" id="link-contact" aria-labelledby="contact-title">
  <h2 id="contact-title">Contact</h2>
  ${contact
    ? html`<p>Linked to <a href="/contacts/${String(contact.id)}">${labelName(contact)}</a>${contact.email && html` <span class="muted wrap">${contact.email}</span>`}</p>
  ${otherEmail && html`<p class="muted">The contact’s email is not the lead’s: it was linked by hand.</p>`}`
    : html`<p class="muted">No contact. A lead is linked by itself to the contact with its email, when there is one.</p>`}
  <h3>${contact ? 'Link to another contact' : 'Link to a contact'}</h3>
  <form method="get" action="${base}#link-contact" class="filters" role="search" aria-label="Find a contact to link">
    ${field({ values: { contact_search: search }, errors: {} }, { name: 'contact_search', label: 'Find a contact', type: 'search', maxlength: 255, hint: 'Part of a name, a business or an email', id: 'find-contact' })}
    <button type="submit">Find</button>
  </form>
  ${search !== '' && html`<form method="post" action="${base}/contact?${new URLSearchParams({ contact_search: search }).toString()}" class="stack" aria-label="Link the chosen contact" novalidate>
    ${formErrors(page.linkState, ['contact_id'])}
    ${csrfInput(page.csrf)}
    ${page.found.length === 0
      ? html`<p class="muted">No contact matches this search.</p>`
      : html`<fieldset${page.linkState.errors.contact_id ? html` aria-describedby="contact-choice-error"` : ''}><legend>Contacts found</legend>
      ${page.found.map((found) => html`<label class="choice"><input type="radio" name="contact_id" value="${String(found.id)}"${chosen === String(found.id) ? html` checked` : ''}${found.id === lead.contact_id ? html` disabled` : ''}> ${found.name} <span class="muted">${found.email}${found.id === lead.contact_id ? ' (linked now)' : ''}</span></label>`)}
      ${page.linkState.errors.contact_id && html`<p id="contact-choice-error" class="field-error">${page.linkState.errors.contact_id.map(sentence).join(' ')}</p>`}
      </fieldset>
      <button type="submit" class="primary">Link to contact</button>`}
  </form>`}
</section>
</div>
</div>`,
  )
}

/** The Leads section of a contact's page: the leads linked to it, each a link to its page. */
export function contactLeadsSection(leads: readonly LeadRecord[]): Html {
  return html`<section class="card" aria-labelledby="leads-title">
  <h2 id="leads-title">Leads</h2>
  ${leads.length === 0
    ? html`<p class="muted">No leads.</p>`
    : html`<ul>${leads.map((lead) => html`<li><a href="${LEADS}/${String(lead.id)}">${leadName(lead)}</a> <span class="muted wrap">${lead.provider} · ${lead.email}</span></li>`)}</ul>`}
</section>`
}
