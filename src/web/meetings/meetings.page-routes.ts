// The Meetings page group: a user's transcriptions (/meetings, the API's list statement), a
// transcription's page (/meetings/:id) with Stop, attaching a transcript and linking to a
// task, and its whole transcript as text. Each write is the meet-transcriptions service
// function of its API operation (stopTranscription, setTranscript, linkToTask: PUT …/stop,
// …/transcript and …/to_task), so the rows, contact event and webhook events are the API's.
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify'
import { ApiError, type ErrorDetails } from '../../errors.js'
import { contactLabels, labelName } from '../../modules/contacts/index.js'
import {
  TRANSCRIPT_BODY_LIMIT,
  getTranscription,
  linkToTask,
  setTranscript,
  stopTranscription,
  transcriptionsPage,
} from '../../modules/meet-transcriptions/index.js'
import type { Task } from '../../modules/tasks/index.js'
import { getTask, tasksPage } from '../../modules/tasks-api/index.js'
import { listUsers } from '../../modules/users-api/index.js'
import type { Caller, CompanyId } from '../../tenancy.js'
import { readForm, refusalsOf, type FormState } from '../frame/form.js'
import { sendHtml } from '../frame/frame.js'
import { formRoute, pageRoute, pathId, signedIn, webCaller, type PageGroupOptions, type SignedIn } from '../frame/guard.js'
import {
  MEETINGS,
  MEETING_FLASHES,
  meetingPage,
  meetingsPage,
  MEETINGS_PER_PAGE,
  type Meeting,
  type MeetingFlash,
  type MeetingItem,
  type MeetingRefusals,
  type TaskChoice,
} from './meetings.pages.js'
import { LinkTaskForm, MeetingsView, MeetingView, TranscriptForm } from './meetings.forms.js'

/** Open tasks Link to a task offers: one page of the API's list, by due day. */
const TASK_CHOICES = 100

const listOf = <T>(listed: { json: string } | { data: unknown[] }) => ('json' in listed ? JSON.parse(listed.json) : listed.data) as T[]

/**
 * A refusal about the transcription's state (`status`, the API's detail) shown beside the
 * form's field as a sentence that names it: "Status is recording: stop it before …".
 */
function besideField(errors: ErrorDetails, name: string): ErrorDetails {
  const { status, ...rest } = errors
  if (!status) return errors
  return { ...rest, [name]: [...(rest[name] ?? []), ...status.map((problem) => `status ${problem}`)] }
}

const meetingsPages: FastifyPluginAsync<PageGroupOptions> = async (app, { cookies, now }) => {
  const callerOf = (request: FastifyRequest, current: SignedIn) => webCaller(request, current.account, now())
  const people = async (companyId: CompanyId) => (await listUsers(app.db, companyId)).data.map((user) => ({ id: user.id, name: user.name }))

  /** The tasks of `ids` (a page's links), with their contacts' names; a task that is gone is left out. */
  async function tasksById(caller: Caller, ids: readonly number[]): Promise<TaskChoice[]> {
    const found = await Promise.all([...new Set(ids)].map((id) =>
      getTask(app.db, caller, id).catch((err: unknown) => {
        if (err instanceof ApiError && err.statusCode === 404) return undefined
        throw err
      })))
    return choicesOf(caller, found.filter((task): task is Task => task !== undefined))
  }

  async function choicesOf(caller: Caller, tasks: readonly Task[]): Promise<TaskChoice[]> {
    const labels = await contactLabels(app.db, caller.companyId, tasks.map((task) => task.contact_id))
    return tasks.map((task) => {
      const label = labels.get(task.contact_id)
      return { id: task.id, title: task.title, due_date: task.due_date, done: task.done, contact_id: task.contact_id, contactName: label && labelName(label) }
    })
  }

  app.get(MEETINGS, pageRoute('member'), async (request, reply) => {
    const current = signedIn(request)
    const { account } = current
    const caller = callerOf(request, current)
    const users = await people(account.companyId)
    const read = readForm(MeetingsView, request.query)
    const known = read.ok && (read.value.user_id === undefined || users.some((user) => user.id === read.value.user_id))
    const view = read.ok && known ? read.value : {}
    const userId = view.user_id ?? account.userId
    const listed = await transcriptionsPage(app.db, caller, {
      page: view.page ?? 1,
      per_page: MEETINGS_PER_PAGE,
      user_id: userId,
      ...(view.task === 'with' ? { with_task: true } : view.task === 'without' ? { without_task: true } : {}),
    })
    const meetings = listOf<MeetingItem>(listed)
    const tasks = await tasksById(caller, meetings.flatMap((meeting) => (meeting.task_id === null ? [] : [meeting.task_id])))
    const problem = read.ok && known ? undefined : 'This address cannot be shown: here are your meeting transcriptions.'
    return sendHtml(reply, problem ? 422 : 200, meetingsPage(current.chrome, {
      view, userId, meetings, total: listed.total, users, tasks: new Map(tasks.map((task) => [task.id, task])),
      timezone: account.timezone, signedInUserId: account.userId, problem,
    }))
  })

  /** A transcription's page; after a refused form, that form's refusals beside it (422). */
  async function sendMeeting(request: FastifyRequest, reply: FastifyReply, current: SignedIn, refused?: MeetingRefusals, flash?: MeetingFlash) {
    const caller = callerOf(request, current)
    const [meeting, users] = await Promise.all([
      getTranscription(app.db, caller, pathId(request)) as Promise<Meeting>,
      people(current.account.companyId),
    ])
    const read = readForm(MeetingView, request.query)
    const asked = read.ok ? read.value.tasks_of : undefined
    const tasksOf = asked !== undefined && users.some((user) => user.id === asked) ? asked : meeting.user_id
    const [open, linked] = await Promise.all([
      tasksPage(app.db, caller, { assigned_to_id: tasksOf, undone: true, page: 1, per_page: TASK_CHOICES }),
      tasksById(caller, meeting.task_id === null ? [] : [meeting.task_id]),
    ])
    const choices = await choicesOf(caller, listOf<Task>(open))
    return sendHtml(reply, refused ? 422 : 200, meetingPage(current.chrome, {
      meeting,
      owner: users.find((user) => user.id === meeting.user_id)?.name ?? '',
      task: linked[0],
      tasksOf,
      users,
      choices,
      timezone: current.account.timezone,
      csrf: current.csrf,
      flash,
      refused,
    }))
  }

  app.get(`${MEETINGS}/:id`, pageRoute('member'), async (request, reply) => {
    const current = signedIn(request)
    const flash = cookies.takeFlash<MeetingFlash>(request, reply, current.secret, MEETING_FLASHES)
    return sendMeeting(request, reply, current, undefined, flash)
  })

  // The whole transcript, as text: a page shows its first characters only (a transcript may hold 10 MiB).
  app.get(`${MEETINGS}/:id/transcript.txt`, pageRoute('member'), async (request, reply) => {
    const current = signedIn(request)
    const meeting = await getTranscription(app.db, callerOf(request, current), pathId(request))
    if (meeting.transcript === null) throw new ApiError(404)
    return reply
      .header('cache-control', 'no-store')
      .header('content-disposition', `attachment; filename="meeting-${String(meeting.id)}.txt"`)
      .type('text/plain; charset=utf-8')
      .send(meeting.transcript)
  })

  /** After a write: its notice on the transcription's page (303). */
  const done = (reply: FastifyReply, current: SignedIn, id: number, flash: MeetingFlash) => {
    cookies.setFlash(reply, current.secret, flash)
    return reply.redirect(`${MEETINGS}/${String(id)}`, 303)
  }

  // Stop is PUT …/stop at this instant (recording → stopped); a transcription not recording gets the page again, 422.
  app.post(`${MEETINGS}/:id/stop`, formRoute('member'), async (request, reply) => {
    const current = signedIn(request)
    const caller = callerOf(request, current)
    const id = pathId(request)
    try {
      await stopTranscription(app.db, caller, id, caller.now.toISOString())
    } catch (err) {
      const problems = besideField(refusalsOf(err), 'stop')
      return sendMeeting(request, reply, current, { stop: Object.values(problems).flat() })
    }
    return done(reply, current, id, { kind: 'meeting-stopped' })
  })

  // Attach a transcript: PUT …/transcript's body, rules and 10 MiB bound; what was typed is kept on a refusal.
  app.post(`${MEETINGS}/:id/transcript`, { ...formRoute('member'), bodyLimit: TRANSCRIPT_BODY_LIMIT }, async (request, reply) => {
    const current = signedIn(request)
    const id = pathId(request)
    const typed = (request.body as Record<string, unknown> | undefined)?.transcript
    const again = (errors: ErrorDetails) => {
      const state: FormState = { values: { transcript: typeof typed === 'string' ? typed : '' }, errors: besideField(errors, 'transcript') }
      return sendMeeting(request, reply, current, { transcript: state })
    }
    const read = readForm(TranscriptForm, request.body)
    if (!read.ok) return again(read.errors)
    try {
      await setTranscript(app.db, current.account.companyId, id, read.value.transcript)
    } catch (err) {
      return again(refusalsOf(err))
    }
    return done(reply, current, id, { kind: 'meeting-transcribed' })
  })

  // Link to a task: PUT …/to_task's body (a task of the company, replacing an earlier link).
  app.post(`${MEETINGS}/:id/task`, formRoute('member'), async (request, reply) => {
    const current = signedIn(request)
    const caller = callerOf(request, current)
    const id = pathId(request)
    const typed = (request.body as Record<string, unknown> | undefined)?.task_id
    const again = (errors: ErrorDetails) => {
      const state: FormState = { values: { task_id: typeof typed === 'string' ? typed : '' }, errors }
      return sendMeeting(request, reply, current, { link: state })
    }
    const read = readForm(LinkTaskForm, request.body)
    if (!read.ok) return again(typed === '' ? { task_id: ['choose a task'] } : read.errors)
    let linked: Awaited<ReturnType<typeof linkToTask>>
    try {
      linked = await linkToTask(app.db, caller, id, read.value.task_id)
    } catch (err) {
      return again(refusalsOf(err))
    }
    const [task] = await tasksById(caller, linked.task_id === null ? [] : [linked.task_id])
    return done(reply, current, id, { kind: 'meeting-linked', title: task?.title ?? `Task ${String(read.value.task_id)}` })
  })
}

export default meetingsPages
