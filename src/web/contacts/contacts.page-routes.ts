// The Contacts page group: the list (/contacts) and a contact's page (/contacts/:id), through
// the contacts, flows and tasks services the API uses.
import type { FastifyPluginAsync } from 'fastify'
import { contactsPage as listContacts, getContactJson, type ContactRecord } from '../../modules/contacts/index.js'
import { addContacts } from '../../modules/flows-api/index.js'
import { tagsOfCompany } from '../../modules/tags-api/index.js'
import { listUsers } from '../../modules/users-api/index.js'
import type { Caller } from '../../tenancy.js'
import { readForm, refusalsOf, typedValues, type FormState } from '../frame/form.js'
import { sendHtml } from '../frame/frame.js'
import { formRoute, pageRoute, signedIn, webCaller, type PageGroupOptions, type SignedIn } from '../frame/guard.js'
import { CONTACTS, contactsListPage, fullName, CONTACTS_PER_PAGE, type AddedFlash } from './contacts.pages.js'
import contactPages from './contact.page-routes.js'
import { AddToFlowForm, ContactsView, VIEW_FIELDS } from './contacts.forms.js'
import { flowChoices } from './flow-choices.js'

const contactsPages: FastifyPluginAsync<PageGroupOptions> = async (app, options) => {
  const { cookies, now } = options
  /** The list at `query` (the address); after a refused Add to flow, with that form as typed and its refusals (422). */
  async function listPage(current: SignedIn, caller: Caller, query: unknown, extra: { flash?: AddedFlash | undefined; addState?: FormState } = {}) {
    const read = readForm(ContactsView, query)
    const [users, tagList, flows] = await Promise.all([listUsers(app.db, current.account.companyId), tagsOfCompany(app.db, caller), flowChoices(app.db, caller)])
    const owners = users.data.map((user) => ({ id: user.id, name: user.name }))
    const tags = tagList.data.map((tag) => ({ id: tag.id, name: tag.name })).sort((a, b) => a.name.localeCompare(b.name))
    const common = { owners, tags, flows, timezone: current.account.timezone, csrf: current.csrf, ...extra }
    if (!read.ok) {
      const viewState: FormState = { values: typedValues(query, VIEW_FIELDS), errors: read.errors }
      return { status: 422, page: contactsListPage(current.chrome, { ...common, view: {}, contacts: [], total: 0, viewState }) }
    }
    const view = read.value
    const listed = await listContacts(app.db, caller, { ...view, page: view.page ?? 1, per_page: CONTACTS_PER_PAGE })
    const contacts = ('json' in listed ? JSON.parse(listed.json) : listed.data) as ContactRecord[]
    return { status: extra.addState ? 422 : 200, page: contactsListPage(current.chrome, { ...common, view, contacts, total: listed.total }) }
  }

  app.get(CONTACTS, pageRoute('member'), async (request, reply) => {
    const current = signedIn(request)
    const flash = cookies.takeFlash<AddedFlash>(request, reply, current.secret, ['added-to-flow'])
    const shown = await listPage(current, webCaller(request, current.account, now()), request.query, { flash })
    return sendHtml(reply, shown.status, shown.page)
  })

  // Add to flow: the ticked contacts, in one transaction; then back to the list it was sent from.
  app.post(`${CONTACTS}/add-to-flow`, formRoute('member'), async (request, reply) => {
    const current = signedIn(request)
    const caller = webCaller(request, current.account, now())
    const read = readForm(AddToFlowForm, request.body)
    const again = async (errors: FormState['errors']) => {
      const shown = await listPage(current, caller, {}, { addState: { values: typedValues(request.body, ['flow_id', 'contact_ids']), errors } })
      return sendHtml(reply, 422, shown.page)
    }
    if (!read.ok) return again(read.errors)
    let result
    try {
      result = await addContacts(app.db, caller, read.value.flow_id, read.value.contact_ids)
    } catch (err) {
      return again(refusalsOf(err))
    }
    const flow = (await flowChoices(app.db, caller)).find((choice) => choice.id === read.value.flow_id)?.name ?? 'the flow'
    const already = await namesOf(caller, result.already)
    cookies.setFlash(reply, current.secret, { kind: 'added-to-flow', flow, added: result.added.length, already } satisfies AddedFlash)
    return reply.redirect(CONTACTS, 303)
  })

  /** The names of a few contacts, for a message. */
  async function namesOf(caller: Caller, ids: number[]): Promise<string[]> {
    const names: string[] = []
    for (const id of ids.slice(0, 10)) names.push(fullName(JSON.parse(await getContactJson(app.db, caller, id)) as ContactRecord))
    return ids.length > 10 ? [...names, `${String(ids.length - 10)} more`] : names
  }

  // A contact's pages, after /contacts/new and /contacts/add-to-flow are taken.
  await app.register(contactPages, options)
}

export default contactsPages
