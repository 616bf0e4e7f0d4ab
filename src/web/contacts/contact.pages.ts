// A contact's page (/contacts/:id): its fields, custom field values, tags and stage with their
// forms; beside them its events, business, tasks (Mark done), flows (Add to flow), linked
// leads and its WhatsApp conversation as a chat. Also the edit, new-contact and delete pages.
import { STAGES, type ContactRecord } from '../../modules/contacts/index.js'
import type { LeadRecord } from '../../modules/leads/index.js'
import type { Task } from '../../modules/tasks/index.js'
import { html, type Html, type Interpolation } from '../shared/html.js'
import { field, personField, postForm, type FieldSpec, type FormState } from '../frame/form.js'
import { confirmPage, csrfInput, formatter, layout, recordPageHead, time, type PageFrame, type Named } from '../frame/frame.js'
import { contactLeadsSection } from '../leads/leads.pages.js'
import { CONTACTS, fullName, STAGE_LABELS, type AddedFlash, type FlowChoice } from './contacts.pages.js'
import { contactMeetings, type MeetingItem } from '../meetings/meetings.pages.js'

/** The fields of the edit and new-contact forms, in the API's names. */
export const CONTACT_FIELDS: readonly FieldSpec[] = [
  personField('first_name', { autocomplete: 'off' }),
  personField('last_name'),
  personField('email'),
  { name: 'business', label: 'Business', maxlength: 255 },
  personField('position'),
  personField('telephone'),
  { name: 'cellphone', label: 'Cellphone', type: 'tel', maxlength: 255 },
  personField('city'),
  personField('country'),
  { name: 'url', label: 'Website', maxlength: 255 },
  { name: 'linkedin', label: 'LinkedIn', maxlength: 255 },
]
export const CONTACT_FIELD_NAMES = CONTACT_FIELDS.map((spec) => spec.name)

export interface ContactEventView {
  id: number
  kind: string
  data: Record<string, unknown>
  occurred_at: Date | string
}

export interface WhatsappMessageView {
  id: number
  direction: 'inbound' | 'outbound'
  body: string
  status: string
  sent_at: Date | string
}

export interface ContactPageBusiness {
  name: string
  [key: string]: unknown
}

export type ContactFlash = AddedFlash | { kind: 'contact-saved'; what: string } | { kind: 'task-done'; title: string }
export const CONTACT_FLASHES: readonly ContactFlash['kind'][] = ['added-to-flow', 'contact-saved', 'task-done']

export interface ContactView {
  contact: ContactRecord
  csrf: string
  timezone: string
  owners: Named[]
  tags: { id: number; name: string }[]
  flows: FlowChoice[]
  business: ContactPageBusiness | undefined
  tasks: Task[]
  events: { data: ContactEventView[]; page: number; pages: number }
  messages: WhatsappMessageView[]
  /** The leads linked to the contact. */
  leads: LeadRecord[]
  /** Its meeting transcriptions: those linked to one of its tasks, newest first. */
  meetings: readonly MeetingItem[]
  flash?: ContactFlash | undefined
  /** The add-to-flow or tag form drawn again after a refusal. */
  state?: FormState
}

const EVENT_WORDS: Record<string, string> = {
  contact_created: 'Contact created',
  contact_updated: 'Contact changed',
  stage_changed: 'Stage changed',
  tag_added: 'Tag added',
  tag_removed: 'Tag removed',
  added_to_flow: 'Added to a flow',
  task_completed: 'Task done',
  meet_transcription_linked: 'Meeting transcription linked',
  contact_deleted: 'Contact deleted',
}

/** The detail of an event worth a line: the stage, tag, flow or task it names. */
function eventDetail(event: ContactEventView): string {
  const data = event.data
  const pick = (...names: string[]) => names.map((name) => data[name]).find((value): value is string => typeof value === 'string')
  if (event.kind === 'stage_changed') {
    const to = pick('to', 'stage', 'new_stage')
    return to ? (STAGE_LABELS[to] ?? to) : ''
  }
  return pick('tag_name', 'name', 'flow_name', 'title', 'task_title') ?? ''
}

const when = (at: Date | string, format: Intl.DateTimeFormat) => time(new Date(at), format)

function flashNotice(flash: ContactFlash | undefined): Html | false {
  if (!flash) return false
  if (flash.kind === 'added-to-flow') {
    return html`<div class="notice" role="status"><p>${String(flash.added)} added to ${flash.flow}.</p>${flash.already.length > 0 && html`<p>Already in the flow: ${flash.already.join(', ')}.</p>`}</div>`
  }
  if (flash.kind === 'task-done') return html`<p class="notice" role="status">Task “${flash.title}” done.</p>`
  return html`<p class="notice" role="status">${flash.what}</p>`
}

function section(id: string, title: string, body: Interpolation, sectionId?: string): Html {
  return html`<section class="card"${sectionId && html` id="${sectionId}"`} aria-labelledby="${id}"><h2 id="${id}">${title}</h2>${body}</section>`
}

function taskRow(task: Task, csrf: string, contactId: number, format: Intl.DateTimeFormat): Html {
  return html`<li class="task${task.done ? ' done' : ''}" id="task-${String(task.id)}">
  <span class="task-title">${task.title}</span>
  <span class="muted">${task.done ? html`done ${task.done_at ? when(task.done_at, format) : ''}` : `due ${task.due_date}`}</span>
  ${!task.done && html`<form method="post" action="${CONTACTS}/${String(contactId)}/tasks/${String(task.id)}/done" class="inline" data-enhance="mark-done">
    ${csrfInput(csrf)}<button type="submit">Mark done<span class="visually-hidden"> ${task.title}</span></button>
  </form>`}
</li>`
}

export function contactPage(chrome: PageFrame, view: ContactView): Html {
  const { contact, csrf } = view
  const format = formatter(view.timezone)
  const id = String(contact.id)
  const base = `${CONTACTS}/${id}`
  const owner = view.owners.find((person) => person.id === contact.user_id)?.name ?? ''
  const state = view.state ?? { values: {}, errors: {} }
  const open = view.tasks.filter((task) => !task.done)
  const done = view.tasks.filter((task) => task.done)
  const inFlows = view.flows.filter((flow) => view.tasks.some((task) => task.flow_id === flow.id))
  const addable = view.tags.filter((tag) => !contact.tags.some((own) => own.id === tag.id))
  const facts = CONTACT_FIELDS.filter((spec) => spec.name !== 'first_name' && spec.name !== 'last_name')
    .flatMap((spec) => {
      const value = contact[spec.name as keyof ContactRecord]
      return typeof value === 'string' && value !== '' ? [[spec.label, value] as const] : []
    })
  return layout(
    chrome,
    fullName(contact),
    html`${recordPageHead(CONTACTS, 'Contacts', fullName(contact), { actions: html`<a class="button" href="${base}/edit">Edit</a>
  <a class="button danger" href="${base}/delete">Delete</a>` })}
${flashNotice(view.flash)}
<div class="columns">
<div class="main-column">
${section('details-title', 'Details', html`<dl class="facts">
  ${facts.map(([label, value]) => html`<dt>${label}</dt><dd class="wrap">${value}</dd>`)}
  <dt>Owner</dt><dd>${owner}</dd>
  <dt>Stage</dt><dd>${contact.stage ? STAGE_LABELS[contact.stage] : html`<span class="muted">None</span>`}</dd>
  ${contact.custom_fields.map((custom) => html`<dt>${custom.field}</dt><dd class="wrap">${custom.value}</dd>`)}
</dl>
<form method="post" action="${base}/stage" class="row">
  ${csrfInput(csrf)}
  ${field({ values: { stage: contact.stage ?? '' }, errors: state.errors.stage ? { stage: state.errors.stage } : {} }, { name: 'stage', label: 'Change stage', type: 'select', options: [['', 'None'], ...STAGES.map((stage) => [stage, STAGE_LABELS[stage] ?? stage] as const)] })}
  <button type="submit">Save stage</button>
</form>`)}
${section('tags-title', 'Tags', html`${contact.tags.length === 0 ? html`<p class="muted">No tags.</p>` : html`<ul class="tags">
  ${contact.tags.map((tag) => html`<li><span class="tag">${tag.name}</span>
    <form method="post" action="${base}/tags/${String(tag.id)}/remove" class="inline">${csrfInput(csrf)}<button type="submit" class="link">Remove<span class="visually-hidden"> tag ${tag.name}</span></button></form></li>`)}
</ul>`}
${addable.length > 0 && html`<form method="post" action="${base}/tags" class="row">
  ${csrfInput(csrf)}
  ${field(state.errors.tag_id ? state : { values: {}, errors: {} }, { name: 'tag_id', label: 'Tag', type: 'select', options: addable.map((tag) => [String(tag.id), tag.name] as const) })}
  <button type="submit">Add tag</button>
</form>`}`)}
${section('chat-title', 'WhatsApp', view.messages.length === 0 ? html`<p class="muted">No WhatsApp messages.</p>` : html`<ol class="chat">
  ${view.messages.map((message) => html`<li class="${message.direction === 'outbound' ? 'sent' : 'received'}">
    <span class="visually-hidden">${message.direction === 'outbound' ? 'Sent' : 'Received'}:</span>
    <p>${message.body}</p>
    <span class="muted">${message.direction === 'outbound' ? 'Sent' : 'Received'} ${when(message.sent_at, format)} · ${message.status}</span>
  </li>`)}
</ol>`)}
${section('events-title', 'Events', html`${view.events.data.length === 0 ? html`<p class="muted">No events.</p>` : html`<ol class="timeline">
  ${view.events.data.map((event) => html`<li><strong>${EVENT_WORDS[event.kind] ?? event.kind}</strong> ${eventDetail(event)} <span class="muted">${when(event.occurred_at, format)}</span></li>`)}
</ol>`}
<nav class="pager" aria-label="Event pages">
  ${view.events.page > 1 && html`<a href="${base}?events_page=${String(view.events.page - 1)}">Newer events</a>`}
  ${view.events.page < view.events.pages && html`<a href="${base}?events_page=${String(view.events.page + 1)}">Older events</a>`}
</nav>`)}
</div>
<div class="side-column">
${section('business-title', 'Business', view.business ? html`<p>${view.business.name}</p>` : html`<p class="muted">${contact.business ?? 'No business.'}</p>`)}
${section('tasks-title', 'Tasks', html`<h3>Open</h3>
${open.length === 0 ? html`<p class="muted">No open tasks.</p>` : html`<ul class="tasks">${open.map((task) => taskRow(task, csrf, contact.id, format))}</ul>`}
<h3>Done</h3>
${done.length === 0 ? html`<p class="muted">No done tasks.</p>` : html`<ul class="tasks">${done.map((task) => taskRow(task, csrf, contact.id, format))}</ul>`}`, 'tasks')}
${contactMeetings(view.meetings, view.tasks)}
${section('flows-title', 'Flows', html`${inFlows.length === 0 ? html`<p class="muted">In no flow.</p>` : html`<ul>${inFlows.map((flow) => html`<li>${flow.name}</li>`)}</ul>`}
${view.flows.length > 0 && postForm({
  action: `${base}/add-to-flow`,
  csrf,
  state: state.errors.flow_id || state.errors.base ? state : { values: {}, errors: {} },
  submit: 'Add to flow',
  shown: ['flow_id'],
  fields: field(state, { name: 'flow_id', label: 'Flow', type: 'select', required: true, options: view.flows.map((flow) => [String(flow.id), flow.name] as const) }),
})}`)}
${contactLeadsSection(view.leads)}
</div>
</div>`,
  )
}

/** The edit form (PUT's rules), or the new-contact form. */
export function contactFormPage(chrome: PageFrame, csrf: string, state: FormState, target: { contact?: ContactRecord }): Html {
  const editing = target.contact
  const title = editing ? `Edit ${fullName(editing)}` : 'New contact'
  return layout(
    chrome,
    title,
    html`<p class="crumbs"><a href="${CONTACTS}">Contacts</a>${editing && html` › <a href="${CONTACTS}/${String(editing.id)}">${fullName(editing)}</a>`}</p>
<section class="card">
  <h1>${title}</h1>
  ${postForm({
    action: editing ? `${CONTACTS}/${String(editing.id)}` : CONTACTS,
    csrf,
    state,
    submit: editing ? 'Save contact' : 'Create contact',
    shown: CONTACT_FIELD_NAMES,
    fields: CONTACT_FIELDS.map((spec) => field(state, spec)),
  })}
</section>`,
  )
}

export function deleteContactPage(chrome: PageFrame, csrf: string, contact: ContactRecord): Html {
  return confirmPage(chrome, csrf, {
    title: 'Delete contact',
    question: `Delete ${fullName(contact)}?`,
    facts: html`<dt>Email</dt><dd>${contact.email}</dd>${contact.business && html`<dt>Business</dt><dd>${contact.business}</dd>`}`,
    consequence: 'The contact leaves every list and flow; its history stays in the security log. This cannot be undone here.',
    action: `${CONTACTS}/${String(contact.id)}/delete`,
    button: 'Delete contact',
    back: `${CONTACTS}/${String(contact.id)}`,
  })
}
