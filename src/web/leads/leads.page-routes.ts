// The Leads page group: the list (/leads), New lead (/leads/new, POST /leads), a lead's page
// (/leads/:id) and Link to contact (POST /leads/:id/contact), through the leads service the
// API uses (leadsPage, leadsCount, getLead, createLead, linkLeadToContact): the same rows,
// counters, webhook events and audit records as GET /api/v1/leads and /count, POST
// /api/v1/leads and PUT /api/v1/leads/:id/contact.
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify'
import { contactLabels, labelName, contactsPage, type ContactLabelRecord, type ContactRecord } from '../../modules/contacts/index.js'
import { createLead, getLead, leadsCount, leadsPage, linkLeadToContact } from '../../modules/leads-api/index.js'
import type { LeadRecord } from '../../modules/leads/index.js'
import { listUsers } from '../../modules/users-api/index.js'
import { freshForm, readForm, refusalsOf, typedValues, type FormState } from '../frame/form.js'
import { sendHtml, type Named } from '../frame/frame.js'
import { formRoute, pageRoute, pathId, signedIn, webCaller, type PageGroupOptions, type SignedIn } from '../frame/guard.js'
import {
  LEAD_FIELD_NAMES,
  leadName,
  leadPage,
  LEADS,
  LEADS_FLASHES,
  leadsListPage,
  newLeadPage,
  OPTIONAL_FIELD_NAMES,
  LEADS_PER_PAGE,
  type LeadsFlash,
} from './leads.pages.js'
import { LeadsView, LeadView, LinkContactForm, NewLeadForm } from './leads.forms.js'

/** How many contacts Link to contact's search shows. */
const FOUND = 10

/** A form's optional fields left blank are not given, as the API takes an omitted field. */
function withoutBlank(body: unknown, names: readonly string[]): Record<string, unknown> {
  return Object.fromEntries(Object.entries((body ?? {}) as Record<string, unknown>).filter(([name, value]) => !(value === '' && names.includes(name))))
}

const leadsPages: FastifyPluginAsync<PageGroupOptions> = async (app, { cookies, now }) => {
  /** The company's users, for the creator filter and names (deactivated ones too: their leads stay). */
  const usersOf = async (current: SignedIn): Promise<Named[]> =>
    (await listUsers(app.db, current.account.companyId)).data.map((user) => ({ id: user.id, name: user.active ? user.name : `${user.name} (deactivated)` }))

  app.get(LEADS, pageRoute('member'), async (request, reply) => {
    const current = signedIn(request)
    const { account } = current
    const flash = cookies.takeFlash<LeadsFlash>(request, reply, current.secret, LEADS_FLASHES)
    const caller = webCaller(request, account, now())
    const read = readForm(LeadsView, request.query)
    const view = read.ok ? read.value : {}
    const userId = view.user_id ?? account.userId
    const flag = view.contact === 'with' ? { with_contact: true as const } : view.contact === 'without' ? { without_contact: true as const } : {}
    const [listed, all, linked, users] = await Promise.all([
      leadsPage(app.db, caller, { page: view.page ?? 1, per_page: LEADS_PER_PAGE, user_id: userId, ...flag }),
      leadsCount(app.db, caller, { user_id: userId }),
      leadsCount(app.db, caller, { user_id: userId, with_contact: true }),
      usersOf(current),
    ])
    const leads = ('data' in listed ? listed.data : JSON.parse(listed.json)) as LeadRecord[]
    const contacts = await contactLabels(app.db, account.companyId, leads.flatMap((lead) => (lead.contact_id === null ? [] : [lead.contact_id])))
    const whose = userId === account.userId ? 'Your leads' : `Leads of ${users.find((user) => user.id === userId)?.name ?? `user ${String(userId)}`}`
    const problem = read.ok ? undefined : `This address cannot be shown (${Object.keys(read.errors).join(', ')}): here are your leads.`
    return sendHtml(reply, read.ok ? 200 : 422, leadsListPage(current.chrome, {
      view, userId, whose, leads, contacts, users, flash, problem,
      counts: { all, with: linked, without: all - linked },
      timezone: account.timezone,
    }))
  })

  app.get(`${LEADS}/new`, pageRoute('member'), async (request, reply) => {
    const current = signedIn(request)
    return sendHtml(reply, 200, newLeadPage(current.chrome, current.csrf, freshForm()))
  })

  // New lead follows POST /leads's rules; a refusal is shown beside its field, with what was typed kept.
  app.post(LEADS, formRoute('member'), async (request, reply) => {
    const current = signedIn(request)
    const values = typedValues(request.body, LEAD_FIELD_NAMES)
    const again = (errors: FormState['errors']) => sendHtml(reply, 422, newLeadPage(current.chrome, current.csrf, { values, errors }))
    const read = readForm(NewLeadForm, withoutBlank(request.body, OPTIONAL_FIELD_NAMES))
    if (!read.ok) return again(read.errors)
    let lead: LeadRecord
    try {
      lead = await createLead(app.db, webCaller(request, current.account, now()), read.value)
    } catch (err) {
      return again(refusalsOf(err))
    }
    cookies.setFlash(reply, current.secret, { kind: 'lead-created', name: leadName(lead) } satisfies LeadsFlash)
    return reply.redirect(`${LEADS}/${String(lead.id)}`, 303)
  })

  /** A lead's page; after a refused Link to contact, that form as chosen with its refusals (422). */
  async function sendLead(request: FastifyRequest, reply: FastifyReply, current: SignedIn, linkState?: FormState) {
    const { account } = current
    const caller = webCaller(request, account, now())
    const lead = await getLead(app.db, caller, pathId(request))
    const flash = linkState ? undefined : cookies.takeFlash<LeadsFlash>(request, reply, current.secret, LEADS_FLASHES)
    const read = readForm(LeadView, request.query)
    const view = read.ok ? read.value : {}
    const search = view.contact_search?.trim()
    const [labels, users, found] = await Promise.all([
      lead.contact_id === null ? new Map<number, ContactLabelRecord>() : contactLabels(app.db, account.companyId, [lead.contact_id]),
      usersOf(current),
      search ? contactsPage(app.db, caller, { page: 1, per_page: FOUND, search_term: search }) : undefined,
    ])
    const contacts = found ? (('data' in found ? found.data : JSON.parse(found.json)) as ContactRecord[]) : []
    return sendHtml(reply, linkState ? 422 : 200, leadPage(current.chrome, {
      lead,
      creator: users.find((user) => user.id === lead.user_id)?.name ?? `User ${String(lead.user_id)}`,
      contact: lead.contact_id === null ? undefined : labels.get(lead.contact_id),
      view,
      found: contacts.map((contact) => ({ id: contact.id, name: labelName(contact), email: contact.email })),
      linkState: linkState ?? freshForm(),
      timezone: account.timezone,
      csrf: current.csrf,
      flash,
    }))
  }

  app.get(`${LEADS}/:id`, pageRoute('member'), async (request, reply) => sendLead(request, reply, signedIn(request)))

  // Link to contact: PUT /leads/:id/contact's service; back to the lead's page, or its page
  // again with the search and the refusal beside the choice.
  app.post(`${LEADS}/:id/contact`, formRoute('member'), async (request, reply) => {
    const current = signedIn(request)
    const caller = webCaller(request, current.account, now())
    const id = pathId(request)
    const values = typedValues(request.body, ['contact_id'])
    const read = readForm(LinkContactForm, request.body)
    if (!read.ok) {
      const chose = typeof values.contact_id === 'string' && values.contact_id !== ''
      return sendLead(request, reply, current, { values, errors: chose ? read.errors : { contact_id: ['Choose a contact'] } })
    }
    let linked: LeadRecord
    try {
      linked = await linkLeadToContact(app.db, caller, id, read.value)
    } catch (err) {
      return sendLead(request, reply, current, { values, errors: refusalsOf(err) })
    }
    const label = (await contactLabels(app.db, current.account.companyId, [read.value.contact_id])).get(read.value.contact_id)
    const contact = label ? labelName(label) : `contact ${String(read.value.contact_id)}`
    cookies.setFlash(reply, current.secret, { kind: 'lead-linked', name: leadName(linked), contact } satisfies LeadsFlash)
    return reply.redirect(`${LEADS}/${String(id)}`, 303)
  })
}

export default leadsPages
