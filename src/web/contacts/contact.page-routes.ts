// A contact's pages and forms: each write is the API's operation's service function (PUT's
// changeContact for edit, stage and tags; deleteContact; the flows service's add; the tasks
// service's completion), so validation, events, audit records and webhooks are the API's.
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify'
import { Type } from 'typebox'
import { ApiError, type ErrorDetails } from '../../errors.js'
import { MAX_ID } from '../../http/schemas.js'
import { validate } from '../../http/validation.js'
import {
  contactBusiness,
  contactEventsPage,
  createContact,
  deleteContact,
  getContactJson,
  changeContact,
  ContactCreateBody,
  ContactUpdateBody,
  type ContactRecord,
} from '../../modules/contacts/index.js'
import { addContacts } from '../../modules/flows-api/index.js'
import { contactLeads } from '../../modules/leads-api/index.js'
import { tagsOfCompany } from '../../modules/tags-api/index.js'
import type { Task } from '../../modules/tasks/index.js'
import { completeTask, tasksPage } from '../../modules/tasks-api/index.js'
import { listUsers } from '../../modules/users-api/index.js'
import { messagesPage } from '../../modules/whatsapp/index.js'
import { transcriptionsOfContact } from '../../modules/meet-transcriptions/index.js'
import type { Caller } from '../../tenancy.js'
import { freshForm, readForm, refusalsOf, typedValues, type FormState } from '../frame/form.js'
import { sendHtml } from '../frame/frame.js'
import { formRoute, pageRoute, pathId, signedIn, webCaller, type PageGroupOptions, type SignedIn } from '../frame/guard.js'
import { CONTACT_FIELD_NAMES, contactFormPage, contactPage, deleteContactPage, type ContactEventView, CONTACT_FLASHES, type ContactFlash, type WhatsappMessageView } from './contact.pages.js'
import { CONTACTS, fullName } from './contacts.pages.js'
import { flowChoices } from './flow-choices.js'

const EVENTS_PER_PAGE = 20
/** The linked leads a contact's page lists (a contact has a few: one per provider of its email, and those linked by hand). */
const LEADS_SHOWN = 20
/** The newest meeting transcriptions a contact's page lists. */
const CONTACT_MEETINGS = 20

const EventsView = Type.Object({ events_page: Type.Optional(Type.Integer({ minimum: 1, maximum: 100_000 })) })
const StageForm = Type.Object({ stage: ContactUpdateBody.properties.stage })
const TagForm = Type.Object({ tag_id: Type.Integer({ minimum: 1, maximum: MAX_ID }) })
const FlowForm = Type.Object({ flow_id: Type.Integer({ minimum: 1, maximum: MAX_ID }) })

const listOf = <T>(listed: { json: string } | { data: unknown[] }) => ('json' in listed ? JSON.parse(listed.json) : listed.data) as T[]

/** The contact's values as PUT takes them: the required fields, and the change. */
const putBody = (contact: ContactRecord, change: Partial<ContactUpdateBody>): ContactUpdateBody => ({
  first_name: contact.first_name,
  email: contact.email,
  business: contact.business,
  ...change,
})

/**
 * The edit or new form's text as the API's body: blank optional fields clear (null), the
 * required ones go as typed so the API's own message refuses them.
 */
function contactBody(form: Record<string, unknown>): Record<string, unknown> {
  const body: Record<string, unknown> = {}
  for (const name of CONTACT_FIELD_NAMES) {
    const value = form[name]
    if (value === undefined) continue
    body[name] = typeof value === 'string' && value.trim() === '' && name !== 'first_name' && name !== 'email' ? null : value
  }
  return body
}

const contactPages: FastifyPluginAsync<PageGroupOptions> = async (app, { cookies, now }) => {
  const callerOf = (request: FastifyRequest, current: SignedIn) => webCaller(request, current.account, now())
  const contactOf = async (caller: Caller, id: number) => JSON.parse(await getContactJson(app.db, caller, id)) as ContactRecord

  /** The contact's page; after a refused form on it, that form's state (422). */
  async function showContact(request: FastifyRequest, reply: FastifyReply, id: number, state?: FormState) {
    const current = signedIn(request)
    const caller = callerOf(request, current)
    const contact = await contactOf(caller, id)
    const flash = state ? undefined : cookies.takeFlash<ContactFlash>(request, reply, current.secret, CONTACT_FLASHES)
    const eventsView = readForm(EventsView, request.query)
    const eventsPage = eventsView.ok ? (eventsView.value.events_page ?? 1) : 1
    const [users, tags, flows, business, tasks, events, messages, leads, meetings] = await Promise.all([
      listUsers(app.db, current.account.companyId),
      tagsOfCompany(app.db, caller),
      flowChoices(app.db, caller),
      contactBusiness(app.db, caller, id).catch((err: unknown) => {
        if (err instanceof ApiError && err.statusCode === 404) return undefined
        throw err
      }),
      tasksPage(app.db, caller, { contact_id: id, page: 1, per_page: 100 }),
      contactEventsPage(app.db, caller, id, { page: eventsPage, per_page: EVENTS_PER_PAGE }),
      messagesPage(app.db, caller, { contact_id: id, page: 1, per_page: 100 }),
      contactLeads(app.db, caller, id, LEADS_SHOWN),
      transcriptionsOfContact(app.db, caller, id, CONTACT_MEETINGS),
    ])
    const chat = listOf<WhatsappMessageView>(messages).sort((a, b) => new Date(a.sent_at).getTime() - new Date(b.sent_at).getTime() || a.id - b.id)
    const page = contactPage(current.chrome, {
      contact,
      csrf: current.csrf,
      timezone: current.account.timezone,
      owners: users.data.map((user) => ({ id: user.id, name: user.name })),
      tags: tags.data.map((tag) => ({ id: tag.id, name: tag.name })),
      flows,
      business,
      tasks: listOf<Task>(tasks),
      events: { data: listOf<ContactEventView>(events), page: eventsPage, pages: Math.max(1, Math.ceil(events.total / EVENTS_PER_PAGE)) },
      messages: chat,
      leads,
      meetings,
      flash,
      state,
    })
    return sendHtml(reply, state ? 422 : 200, page)
  }

  /** A form on the contact's page that changes it: `act` refused (422) draws the page again with the refusals. */
  function contactForm(act: (caller: Caller & { now: Date }, id: number, body: Record<string, unknown>, request: FastifyRequest) => Promise<ContactFlash>) {
    return async (request: FastifyRequest, reply: FastifyReply) => {
      const current = signedIn(request)
      const id = pathId(request)
      const body = (request.body ?? {}) as Record<string, unknown>
      try {
        const flash = await act(callerOf(request, current), id, body, request)
        cookies.setFlash(reply, current.secret, flash)
      } catch (err) {
        return showContact(request, reply, id, { values: typedValues(body, ['stage', 'tag_id', 'flow_id']), errors: refusalsOf(err) })
      }
      return reply.redirect(`${CONTACTS}/${String(id)}`, 303)
    }
  }

  app.get(`${CONTACTS}/new`, pageRoute('member'), async (request, reply) => {
    const current = signedIn(request)
    return sendHtml(reply, 200, contactFormPage(current.chrome, current.csrf, freshForm(), {}))
  })

  app.post(CONTACTS, formRoute('member'), async (request, reply) => {
    const current = signedIn(request)
    const body = (request.body ?? {}) as Record<string, unknown>
    try {
      const created = await createContact(app.db, callerOf(request, current), validate(ContactCreateBody, contactBody(body)))
      cookies.setFlash(reply, current.secret, { kind: 'contact-saved', what: 'Contact created.' } satisfies ContactFlash)
      return await reply.redirect(`${CONTACTS}/${String(created.id)}`, 303)
    } catch (err) {
      const state = { values: typedValues(body, CONTACT_FIELD_NAMES), errors: refusalsOf(err) }
      return sendHtml(reply, 422, contactFormPage(current.chrome, current.csrf, state, {}))
    }
  })

  app.get(`${CONTACTS}/:id`, pageRoute('member'), async (request, reply) => showContact(request, reply, pathId(request)))

  app.get(`${CONTACTS}/:id/edit`, pageRoute('member'), async (request, reply) => {
    const current = signedIn(request)
    const contact = await contactOf(callerOf(request, current), pathId(request))
    const values = Object.fromEntries(CONTACT_FIELD_NAMES.map((name) => [name, (contact[name as keyof ContactRecord] as string | null) ?? '']))
    return sendHtml(reply, 200, contactFormPage(current.chrome, current.csrf, freshForm(values), { contact }))
  })

  // Edit follows PUT /contacts/:id's rules; a refusal is shown beside its field, with what was typed kept.
  app.post(`${CONTACTS}/:id`, formRoute('member'), async (request, reply) => {
    const current = signedIn(request)
    const caller = callerOf(request, current)
    const id = pathId(request)
    const contact = await contactOf(caller, id)
    const body = (request.body ?? {}) as Record<string, unknown>
    try {
      await changeContact(app.db, caller, id, validate(ContactUpdateBody, { ...putBody(contact, {}), ...contactBody(body) }))
      cookies.setFlash(reply, current.secret, { kind: 'contact-saved', what: 'Contact saved.' } satisfies ContactFlash)
      return await reply.redirect(`${CONTACTS}/${String(id)}`, 303)
    } catch (err) {
      const state = { values: typedValues(body, CONTACT_FIELD_NAMES), errors: refusalsOf(err) }
      return sendHtml(reply, 422, contactFormPage(current.chrome, current.csrf, state, { contact }))
    }
  })

  app.post(`${CONTACTS}/:id/stage`, formRoute('member'), contactForm(async (caller, id, body) => {
    const { stage } = validate(StageForm, { stage: body.stage === '' ? null : body.stage })
    await changeContact(app.db, caller, id, putBody(await contactOf(caller, id), { stage }))
    return { kind: 'contact-saved', what: 'Stage saved.' }
  }))

  app.post(`${CONTACTS}/:id/tags`, formRoute('member'), contactForm(async (caller, id, body) => {
    const { tag_id } = validate(TagForm, { tag_id: body.tag_id })
    const contact = await contactOf(caller, id)
    await changeContact(app.db, caller, id, putBody(contact, { tags: [...contact.tags.map((tag) => tag.id), tag_id] }))
    return { kind: 'contact-saved', what: 'Tag added.' }
  }))

  app.post(`${CONTACTS}/:id/tags/:tagId/remove`, formRoute('member'), contactForm(async (caller, id, _body, request) => {
    const tagId = pathId(request, 'tagId')
    const contact = await contactOf(caller, id)
    await changeContact(app.db, caller, id, putBody(contact, { tags: contact.tags.map((tag) => tag.id).filter((own) => own !== tagId) }))
    return { kind: 'contact-saved', what: 'Tag removed.' }
  }))

  app.post(`${CONTACTS}/:id/add-to-flow`, formRoute('member'), contactForm(async (caller, id, body) => {
    const { flow_id } = validate(FlowForm, { flow_id: body.flow_id })
    const result = await addContacts(app.db, caller, flow_id, [id])
    const flow = (await flowChoices(app.db, caller)).find((choice) => choice.id === flow_id)?.name ?? 'the flow'
    const already = result.already.length > 0 ? [fullName(await contactOf(caller, id))] : []
    return { kind: 'added-to-flow', flow, added: result.added.length, already }
  }))

  // Mark done: the API's PUT /tasks/:id/complete (the signed-in user completes it), for a task of this contact.
  app.post(`${CONTACTS}/:id/tasks/:taskId/done`, formRoute('member'), async (request, reply) => {
    const current = signedIn(request)
    const caller = callerOf(request, current)
    const id = pathId(request)
    const taskId = pathId(request, 'taskId')
    const tasks = listOf<Task>(await tasksPage(app.db, caller, { contact_id: id, page: 1, per_page: 100 }))
    const task = tasks.find((own) => own.id === taskId)
    if (!task) throw new ApiError(404)
    let problem: ErrorDetails | undefined
    try {
      await completeTask(app.db, caller, taskId)
    } catch (err) {
      problem = refusalsOf(err)
    }
    if (problem) return showContact(request, reply, id, { values: {}, errors: problem })
    cookies.setFlash(reply, current.secret, { kind: 'task-done', title: task.title } satisfies ContactFlash)
    return reply.redirect(`${CONTACTS}/${String(id)}#tasks-title`, 303)
  })

  app.get(`${CONTACTS}/:id/delete`, pageRoute('member'), async (request, reply) => {
    const current = signedIn(request)
    const contact = await contactOf(callerOf(request, current), pathId(request))
    return sendHtml(reply, 200, deleteContactPage(current.chrome, current.csrf, contact))
  })

  app.post(`${CONTACTS}/:id/delete`, formRoute('member'), async (request, reply) => {
    const current = signedIn(request)
    await deleteContact(app.db, callerOf(request, current), pathId(request))
    return reply.redirect(CONTACTS, 303)
  })
}

export default contactPages
