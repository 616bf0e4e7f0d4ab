// Meetings (/meetings): a user's meeting transcriptions (status, meet id, transcript length,
// task), a transcription's page (its transcript, Stop, attaching a transcript, linking to a
// task), and the Meetings section of a contact's page. Times in the company's time zone.
import { TRANSCRIPTION_STATUSES } from '../../modules/meet-transcriptions/index.js'
import { html, type Html, type Interpolation } from '../shared/html.js'
import { field, postForm, type FormState } from '../frame/form.js'
import { csrfInput, formatter, layout, recordPageHead, time, viewHref, type PageFrame, type Named } from '../frame/frame.js'
import { dayLabel } from '../tasks/tasks.pages.js'
import type { MeetingsView, TaskLinkFilter } from './meetings.forms.js'

export const MEETINGS = '/meetings'
export const MEETINGS_PER_PAGE = 25
/** Characters of a transcript a page shows (a transcript may hold 10 MiB); the whole one is a download. */
export const TRANSCRIPT_SHOWN = 20_000

export type Status = (typeof TRANSCRIPTION_STATUSES)[number]
export const STATUS_LABELS: Record<Status, string> = { recording: 'Recording', stopped: 'Stopped', transcribed: 'Transcribed' }

/** A transcription as a list shows it: the transcript's length, not its text. */
export interface MeetingItem {
  id: number
  user_id: number
  meet_id: string
  status: Status
  stopped_at: Date | string | null
  task_id: number | null
  transcript_length: number | null
  created_at: Date | string
}

/** A transcription with its transcript. */
export type Meeting = Omit<MeetingItem, 'transcript_length'> & { transcript: string | null }

/** A task a transcription is linked to (or may be): its title, due day and contact. */
export interface TaskChoice {
  id: number
  title: string
  due_date: string
  done: boolean
  contact_id: number
  contactName: string | undefined
}


/** What the last write did, shown once on the transcription's page. */
export type MeetingFlash = { kind: 'meeting-stopped' } | { kind: 'meeting-transcribed' } | { kind: 'meeting-linked'; title: string }
export const MEETING_FLASHES: readonly MeetingFlash['kind'][] = ['meeting-stopped', 'meeting-transcribed', 'meeting-linked']

const TASK_FILTER_LABELS: Record<TaskLinkFilter, string> = { with: 'Linked to a task', without: 'Not linked to a task' }

const at = (value: Date | string | null, format: Intl.DateTimeFormat, never: string) => time(value === null ? null : new Date(value), format, never)
const meetingHref = (id: number) => `${MEETINGS}/${String(id)}`
const taskHref = (task: Pick<TaskChoice, 'id' | 'contact_id'>) => `/contacts/${String(task.contact_id)}#task-${String(task.id)}`
const sentence = (problem: string) => `${problem.charAt(0).toUpperCase()}${problem.slice(1)}${/[.!?]$/.test(problem) ? '' : '.'}`
const characters = (n: number) => `${n.toLocaleString('en-GB')} character${n === 1 ? '' : 's'}`

/** "Call Ana Souza (Ana Souza, due Mon 9 Mar 2026)": a task as a choice or a link names it. */
const taskText = (task: TaskChoice) =>
  `${task.title} (${task.contactName ? `${task.contactName}, ` : ''}${task.done ? 'done' : `due ${dayLabel(task.due_date)}`})`

function taskCell(taskId: number | null, tasks: Map<number, TaskChoice>): Html {
  if (taskId === null) return html`<span class="muted">None</span>`
  const task = tasks.get(taskId)
  return task ? html`<a href="${taskHref(task)}">${task.title}</a>` : html`Task ${String(taskId)}`
}

/** The list's address for a view: only the parameters that are set. */
export function meetingsHref(view: MeetingsView, change: Partial<MeetingsView> = {}): string {
  const merged = { ...view, ...change }
  return viewHref(MEETINGS, { user_id: merged.user_id, task: merged.task, page: merged.page })
}

function pager(view: MeetingsView, total: number): Html {
  const page = view.page ?? 1
  const pages = Math.max(1, Math.ceil(total / MEETINGS_PER_PAGE))
  return html`<nav class="pager" aria-label="Pages">
  ${page > 1 && html`<a href="${meetingsHref(view, { page: page - 1 })}" rel="prev">Previous</a>`}
  <span>Page ${String(page)} of ${String(pages)} · ${String(total)} transcription${total === 1 ? '' : 's'}</span>
  ${page < pages && html`<a href="${meetingsHref(view, { page: page + 1 })}" rel="next">Next</a>`}
</nav>`
}

export interface MeetingsListView {
  view: MeetingsView
  /** Whose transcriptions these are. */
  userId: number
  meetings: MeetingItem[]
  total: number
  users: Named[]
  tasks: Map<number, TaskChoice>
  timezone: string
  signedInUserId: number
  /** A refused address: the default view is shown instead. */
  problem?: string | undefined
}

export function meetingsPage(chrome: PageFrame, list: MeetingsListView): Html {
  const format = formatter(list.timezone)
  const whose = list.userId === list.signedInUserId ? 'Your meeting transcriptions' : `Meeting transcriptions of ${list.users.find((user) => user.id === list.userId)?.name ?? `user ${String(list.userId)}`}`
  const filters: FormState = { values: { user_id: String(list.userId), task: list.view.task ?? '' }, errors: {} }
  return layout(
    chrome,
    'Meetings',
    html`<div class="page-head">
  <h1>Meetings</h1>
</div>
<p class="muted">${whose}${list.view.task && html`, ${TASK_FILTER_LABELS[list.view.task].toLowerCase()}`}. Each is recorded, then stopped, then transcribed.</p>
${list.problem && html`<p class="alert" role="alert">${list.problem}</p>`}
<form method="get" action="${MEETINGS}" class="filters" role="search" aria-label="Filter meeting transcriptions">
  ${field(filters, { name: 'user_id', label: 'Recorded by', type: 'select', options: list.users.map((user) => [String(user.id), user.id === list.signedInUserId ? `${user.name} (you)` : user.name] as const) })}
  ${field(filters, { name: 'task', label: 'Task', type: 'select', options: [['', 'Linked or not'], ...(Object.entries(TASK_FILTER_LABELS) as [TaskLinkFilter, string][])] })}
  <button type="submit">Show</button>
</form>
<div class="table-wrap">
${list.meetings.length === 0
  ? html`<p class="muted">No meeting transcriptions here.</p>`
  : html`<table class="records meetings">
  <caption class="visually-hidden">Meeting transcriptions, times in ${list.timezone}</caption>
  <thead><tr><th scope="col">Meeting</th><th scope="col">Status</th><th scope="col">Stopped</th><th scope="col">Transcript</th><th scope="col">Task</th></tr></thead>
  <tbody>
  ${list.meetings.map((meeting) => html`<tr>
    <td data-label="Meeting" class="wrap"><a href="${meetingHref(meeting.id)}">${meeting.meet_id}</a></td>
    <td data-label="Status">${STATUS_LABELS[meeting.status]}</td>
    <td data-label="Stopped">${at(meeting.stopped_at, format, 'Not yet')}</td>
    <td data-label="Transcript">${meeting.transcript_length === null ? html`<span class="muted">None</span>` : characters(meeting.transcript_length)}</td>
    <td data-label="Task" class="wrap">${taskCell(meeting.task_id, list.tasks)}</td>
  </tr>`)}
  </tbody>
</table>`}
</div>
${pager(list.view, list.total)}`,
  )
}

/** The refusals of a transcription page's forms, each drawn beside its form (422). */
export interface MeetingRefusals {
  stop?: string[] | undefined
  transcript?: FormState | undefined
  link?: FormState | undefined
}

export interface MeetingPageView {
  meeting: Meeting
  owner: string
  task: TaskChoice | undefined
  /** Link to a task: whose open tasks are offered, and those tasks. */
  tasksOf: number
  users: Named[]
  choices: TaskChoice[]
  timezone: string
  csrf: string
  flash?: MeetingFlash | undefined
  refused?: MeetingRefusals
}

/** The first `max` characters (code points) of `text`, and whether that is all of it. */
export function opening(text: string, max: number): { shown: string; whole: boolean } {
  let points = 0
  for (let i = 0; i < text.length; i++) {
    if (points === max) return { shown: text.slice(0, i), whole: false }
    const unit = text.charCodeAt(i)
    if (unit >= 0xd800 && unit <= 0xdbff && i + 1 < text.length) i++
    points++
  }
  return { shown: text, whole: true }
}

function flashNotice(flash: MeetingFlash | undefined): Html | false {
  if (!flash) return false
  const text = flash.kind === 'meeting-stopped' ? 'Recording stopped.' : flash.kind === 'meeting-transcribed' ? 'Transcript attached.' : `Linked to the task “${flash.title}”.`
  return html`<p class="notice" role="status">${text}</p>`
}

function transcriptSection(meeting: Meeting): Html {
  const base = meetingHref(meeting.id)
  if (meeting.transcript === null) {
    return html`<p class="muted">${meeting.status === 'recording' ? 'No transcript yet: stop the recording, then attach its transcript.' : 'No transcript yet.'}</p>`
  }
  const { shown, whole } = opening(meeting.transcript, TRANSCRIPT_SHOWN)
  return html`${!whole && html`<p class="notice">The transcript is long: its first ${TRANSCRIPT_SHOWN.toLocaleString('en-GB')} characters are shown. <a href="${base}/transcript.txt">Download the whole transcript</a> (text).</p>`}
<div class="transcript">${shown}</div>
${whole && html`<p><a href="${base}/transcript.txt">Download the transcript</a> (text)</p>`}`
}

function card(id: string, title: string, body: Interpolation): Html {
  return html`<section class="card" id="${id}" aria-labelledby="${id}-title"><h2 id="${id}-title">${title}</h2>${body}</section>`
}

export function meetingPage(chrome: PageFrame, page: MeetingPageView): Html {
  const { meeting, csrf } = page
  const format = formatter(page.timezone)
  const base = meetingHref(meeting.id)
  const refused = page.refused ?? {}
  const recording = meeting.status === 'recording'
  const transcriptState = refused.transcript ?? { values: {}, errors: {} }
  const linkState = refused.link ?? { values: { task_id: meeting.task_id === null ? '' : String(meeting.task_id) }, errors: {} }
  const choices = page.task && !page.choices.some((task) => task.id === page.task?.id) ? [page.task, ...page.choices] : page.choices
  return layout(
    chrome,
    `Meeting ${meeting.meet_id}`,
    html`${recordPageHead(MEETINGS, 'Meetings', `Meeting ${meeting.meet_id}`, { wrap: true })}
${flashNotice(page.flash)}
<dl class="facts">
  <dt>Status</dt><dd>${STATUS_LABELS[meeting.status]}</dd>
  <dt>Recorded by</dt><dd>${page.owner}</dd>
  <dt>Started</dt><dd>${at(meeting.created_at, format, '')}</dd>
  <dt>Stopped</dt><dd>${at(meeting.stopped_at, format, 'Not yet')}</dd>
  <dt>Task</dt><dd>${page.task ? html`<a href="${taskHref(page.task)}">${taskText(page.task)}</a>` : html`<span class="muted">None</span>`}</dd>
</dl>
${card('stop', 'Recording', html`${refused.stop && html`<p class="alert" role="alert" id="stop-error">${refused.stop.map(sentence).join(' ')}</p>`}
${recording
  ? html`<form method="post" action="${base}/stop" class="row">
  ${csrfInput(csrf)}
  <p class="hint" id="stop-hint">Recording since ${at(meeting.created_at, format, '')}. Stop it now; then attach its transcript.</p>
  <button type="submit" class="primary" aria-describedby="stop-hint">Stop</button>
</form>`
  : html`<p>Stopped ${at(meeting.stopped_at, format, '')}.</p>`}`)}
${card('transcript', 'Transcript', transcriptSection(meeting))}
${card('attach', meeting.transcript === null ? 'Attach a transcript' : 'Replace the transcript', postForm({
  action: `${base}/transcript`,
  csrf,
  state: transcriptState,
  submit: 'Attach transcript',
  shown: ['transcript'],
  className: 'stack transcript-form',
  fields: field(transcriptState, {
    name: 'transcript',
    label: 'Transcript',
    type: 'textarea',
    required: true,
    hint: `${recording ? 'Stop the recording first. ' : ''}${meeting.transcript === null ? '' : 'It replaces the transcript above. '}Plain text, up to 10 MiB.`,
  }),
}))}
${card('link', 'Link to a task', html`<p class="muted">The transcription is linked to one task of the company at a time; linking it again replaces the link. The task’s contact gets a “Meeting transcription linked” event.</p>
<form method="get" action="${base}#link" class="filters" aria-label="Whose tasks to choose from">
  ${field({ values: { tasks_of: String(page.tasksOf) }, errors: {} }, { name: 'tasks_of', label: 'Open tasks of', type: 'select', options: page.users.map((user) => [String(user.id), user.name] as const) })}
  <button type="submit">Show tasks</button>
</form>
${choices.length === 0 && !linkState.errors.task_id
  ? html`<p class="muted">No open tasks to choose from.</p>`
  : postForm({
    action: `${base}/task`,
    csrf,
    state: linkState,
    submit: 'Link to task',
    shown: ['task_id'],
    fields: field(linkState, { name: 'task_id', label: 'Task', type: 'select', required: true, options: [['', 'Choose a task'], ...choices.map((task) => [String(task.id), taskText(task)] as const)] }),
  })}`)}`,
  )
}

/** The Meetings section of a contact's page: its transcriptions (those linked to one of its tasks), newest first. */
export function contactMeetings(meetings: readonly MeetingItem[], tasks: readonly { id: number; title: string }[]): Html {
  const titles = new Map(tasks.map((task) => [task.id, task.title]))
  return html`<section class="card" id="meetings" aria-labelledby="meetings-title"><h2 id="meetings-title">Meetings</h2>
${meetings.length === 0
  ? html`<p class="muted">No meeting transcriptions.</p>`
  : html`<ul class="meetings">${meetings.map((meeting) => html`<li><a href="${meetingHref(meeting.id)}" class="wrap">${meeting.meet_id}</a>
  <span class="muted">${STATUS_LABELS[meeting.status]}${meeting.task_id !== null && titles.has(meeting.task_id) && ` · ${titles.get(meeting.task_id) ?? ''}`}</span></li>`)}</ul>`}
</section>`
}
