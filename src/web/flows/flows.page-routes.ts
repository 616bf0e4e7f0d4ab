// The Flows page group: the list (/flows), a flow's page (/flows/:id) with Add contacts, New
// flow (/flows/new, POST /flows) and a flow's edit page (/flows/:id/edit, POST /flows/:id),
// through the flows service the API uses (flowsPage, getFlow, createFlow, changeFlow,
// addContacts): the same rows, audit records, contact events and webhook events as
// POST /api/v1/flows, PUT /api/v1/flows/:id and add_contact.
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify'
import type { ErrorDetails } from '../../errors.js'
import { contactLabels, labelName, contactsPage as listContacts, type ContactRecord } from '../../modules/contacts/index.js'
import { flowContactsPage, MAX_STEPS, type Flow } from '../../modules/flows/index.js'
import { addContacts, changeFlow, createFlow, flowsPage, getFlow } from '../../modules/flows-api/index.js'
import { listUsers } from '../../modules/users-api/index.js'
import { freshForm, readForm, refusalsOf, typedValues, type FormState } from '../frame/form.js'
import { sendHtml } from '../frame/frame.js'
import { formRoute, pageRoute, pathId, signedIn, webCaller, type PageGroupOptions, type SignedIn } from '../frame/guard.js'
import { BLANK_STEPS, FLOWS, flowFormPage, flowPage, flowsListPage, FLOWS_PER_PAGE, type FlowFormView, FLOWS_FLASHES, type FlowsFlash } from './flows.pages.js'
import { AddContactsForm, FlowCreateBody, FlowsView, FlowUpdateBody, FlowView, StepRow } from './flows.forms.js'

type Row = FlowFormView['rows'][number]
const STEP_FIELDS = ['kind', 'day', 'title'] as const
/** The step rows of a new flow's form. */
const NEW_FLOW_ROWS = 5

/** The step rows as typed (`steps[][kind]`, …), blank ones left out. */
function typedRows(body: unknown): Record<string, string>[] {
  const steps = ((body ?? {}) as Record<string, unknown>).steps
  if (!Array.isArray(steps)) return []
  return steps.slice(0, MAX_STEPS + BLANK_STEPS).flatMap((step: unknown) => {
    if (typeof step !== 'object' || step === null) return []
    const row: Record<string, string> = {}
    for (const name of STEP_FIELDS) {
      const value = (step as Record<string, unknown>)[name]
      row[name] = typeof value === 'string' ? value.slice(0, 1000) : ''
    }
    return STEP_FIELDS.some((name) => row[name] !== '') ? [row] : []
  })
}

/** The rows a form shows: those given, then blank ones to fill in. */
const withBlanks = (rows: Row[]): Row[] => [
  ...rows,
  ...Array.from({ length: Math.max(0, Math.min(BLANK_STEPS, MAX_STEPS - rows.length)) }, () => ({ values: {}, errors: {} })),
]

const rowsOf = (flow: Flow): Row[] =>
  flow.steps.map((step) => ({ values: { kind: step.kind, day: String(step.day), title: step.title }, errors: {} }))

/**
 * The flow form read: each step row with the API's step rules (its refusals shown beside it),
 * then the whole body with `schema`. The body, or the form to draw again.
 */
function readFlowForm<S extends typeof FlowCreateBody | typeof FlowUpdateBody>(schema: S, body: unknown) {
  const form = (body ?? {}) as Record<string, unknown>
  const typed = typedRows(body)
  const read = typed.map((row) => ({ row, result: readForm(StepRow, row) }))
  const rows: Row[] = read.map(({ row, result }) => ({ values: row, errors: result.ok ? {} : result.errors }))
  const steps = read.flatMap(({ result }) => (result.ok ? [result.value] : []))
  const fields: Record<string, unknown> = { name: form.name, steps }
  if (form.status !== undefined && form.status !== '') fields.status = form.status
  const whole = readForm(schema, fields)
  const stepsRefused = rows.some((row) => Object.keys(row.errors).length > 0)
  const errors: ErrorDetails = whole.ok ? {} : { ...whole.errors }
  if (stepsRefused) {
    delete errors.steps
    errors.base = ['A step is not right: see beside it']
  } else if (errors.steps) {
    errors.steps = typed.length === 0 ? ['Give at least one step'] : errors.steps
  }
  const state: FormState = { values: typedValues(body, ['name', 'status']), errors }
  return whole.ok && !stepsRefused ? { ok: true as const, value: whole.value, rows, state } : { ok: false as const, rows, state }
}

const flowsPages: FastifyPluginAsync<PageGroupOptions> = async (app, { cookies, now }) => {
  const owners = async (current: SignedIn) =>
    new Map((await listUsers(app.db, current.account.companyId)).data.map((user) => [user.id, user.name]))

  app.get(FLOWS, pageRoute('member'), async (request, reply) => {
    const current = signedIn(request)
    const flash = cookies.takeFlash<FlowsFlash>(request, reply, current.secret, FLOWS_FLASHES)
    const read = readForm(FlowsView, request.query)
    const names = await owners(current)
    if (!read.ok) {
      const viewState: FormState = { values: typedValues(request.query, ['search_term']), errors: read.errors }
      return sendHtml(reply, 422, flowsListPage(current.chrome, { view: {}, flows: [], total: 0, owners: names, viewState }))
    }
    const view = read.value
    const listed = await flowsPage(app.db, webCaller(request, current.account, now()), { page: view.page ?? 1, per_page: FLOWS_PER_PAGE, search_term: view.search_term || undefined })
    const flows = ('data' in listed ? listed.data : JSON.parse(listed.json)) as Flow[]
    return sendHtml(reply, 200, flowsListPage(current.chrome, { view, flows, total: listed.total, owners: names, flash }))
  })

  app.get(`${FLOWS}/new`, pageRoute('member'), async (request, reply) => {
    const current = signedIn(request)
    return sendHtml(reply, 200, flowFormPage(current.chrome, { state: freshForm(), rows: Array.from({ length: NEW_FLOW_ROWS }, () => ({ values: {}, errors: {} })), csrf: current.csrf }))
  })

  app.post(FLOWS, formRoute('member'), async (request, reply) => {
    const current = signedIn(request)
    const read = readFlowForm(FlowCreateBody, request.body)
    const again = (state: FormState, rows: Row[]) => sendHtml(reply, 422, flowFormPage(current.chrome, { state, rows: withBlanks(rows), csrf: current.csrf }))
    if (!read.ok) return again(read.state, read.rows)
    let flow: Flow
    try {
      flow = await createFlow(app.db, webCaller(request, current.account, now()), read.value)
    } catch (err) {
      return again({ ...read.state, errors: refusalsOf(err) }, read.rows)
    }
    cookies.setFlash(reply, current.secret, { kind: 'flow-created', name: flow.name } satisfies FlowsFlash)
    return reply.redirect(`${FLOWS}/${String(flow.id)}`, 303)
  })

  async function sendFlow(request: FastifyRequest, reply: FastifyReply, current: SignedIn, status: number, addState: FormState, flash?: FlowsFlash) {
    const id = pathId(request)
    const caller = webCaller(request, current.account, now())
    const flow = await getFlow(app.db, caller, id)
    const read = readForm(FlowView, request.query)
    const view = read.ok ? read.value : {}
    const page = view.page ?? 1
    const term = view.search_term?.trim()
    const [contacts, names, found] = await Promise.all([
      flowContactsPage(app.db, current.account.companyId, flow.id, { limit: FLOWS_PER_PAGE, offset: (page - 1) * FLOWS_PER_PAGE }),
      owners(current),
      term ? listContacts(app.db, caller, { page: 1, per_page: 10, search_term: term }) : undefined,
    ])
    const labels = await contactLabels(app.db, current.account.companyId, contacts.map((entry) => entry.contact_id))
    const matches = found ? (('data' in found ? found.data : JSON.parse(found.json)) as ContactRecord[]) : []
    return sendHtml(reply, status, flowPage(current.chrome, {
      flow, owner: names.get(flow.user_id) ?? '', view, contacts, labels,
      found: matches.map((contact) => ({ id: contact.id, name: labelName(contact), email: contact.email })),
      addState, timezone: current.account.timezone, csrf: current.csrf, flash,
    }))
  }

  app.get(`${FLOWS}/:id`, pageRoute('member'), async (request, reply) => {
    const current = signedIn(request)
    const flash = cookies.takeFlash<FlowsFlash>(request, reply, current.secret, FLOWS_FLASHES)
    return sendFlow(request, reply, current, 200, freshForm(), flash)
  })

  // Add contacts: the flows service's addContacts, as the contacts list's Add to flow; back to
  // the flow's page with the search, saying how many were added and which were in it already.
  app.post(`${FLOWS}/:id/contacts`, formRoute('member'), async (request, reply) => {
    const current = signedIn(request)
    const caller = webCaller(request, current.account, now())
    const flow = await getFlow(app.db, caller, pathId(request))
    const values = typedValues(request.body, ['contact_ids'])
    const read = readForm(AddContactsForm, request.body)
    const refusedWith = (errors: ErrorDetails) => sendFlow(request, reply, current, 422, { values, errors })
    if (!read.ok) return refusedWith(read.errors.contact_ids ? { contact_ids: ['Tick at least one contact (100 at most)'] } : read.errors)
    let result: Awaited<ReturnType<typeof addContacts>>
    try {
      result = await addContacts(app.db, caller, flow.id, read.value.contact_ids)
    } catch (err) {
      return refusedWith(refusalsOf(err))
    }
    const labels = await contactLabels(app.db, current.account.companyId, result.already)
    const already = result.already.map((id) => { const label = labels.get(id); return label ? labelName(label) : `Contact ${String(id)}` })
    cookies.setFlash(reply, current.secret, { kind: 'contacts-added', added: result.added.length, already } satisfies FlowsFlash)
    return reply.redirect(`${FLOWS}/${String(flow.id)}`, 303)
  })

  app.get(`${FLOWS}/:id/edit`, pageRoute('member'), async (request, reply) => {
    const current = signedIn(request)
    const flow = await getFlow(app.db, webCaller(request, current.account, now()), pathId(request))
    const state = freshForm({ name: flow.name, status: flow.status })
    return sendHtml(reply, 200, flowFormPage(current.chrome, { flow, state, rows: withBlanks(rowsOf(flow)), csrf: current.csrf }))
  })

  app.post(`${FLOWS}/:id`, formRoute('member'), async (request, reply) => {
    const current = signedIn(request)
    const caller = webCaller(request, current.account, now())
    const flow = await getFlow(app.db, caller, pathId(request))
    const read = readFlowForm(FlowUpdateBody, request.body)
    const again = (state: FormState, rows: Row[]) => sendHtml(reply, 422, flowFormPage(current.chrome, { flow, state, rows: withBlanks(rows), csrf: current.csrf }))
    if (!read.ok) return again(read.state, read.rows)
    let changed: Flow
    try {
      changed = await changeFlow(app.db, caller, flow.id, read.value)
    } catch (err) {
      return again({ ...read.state, errors: refusalsOf(err) }, read.rows)
    }
    cookies.setFlash(reply, current.secret, { kind: 'flow-changed', name: changed.name } satisfies FlowsFlash)
    return reply.redirect(`${FLOWS}/${String(changed.id)}`, 303)
  })
}

export default flowsPages
