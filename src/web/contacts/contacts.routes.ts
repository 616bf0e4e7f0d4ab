// The Contacts page group: the list (/contacts) and a contact's page (/contacts/:id), through
// the contacts, flows and tasks services the API uses.
import type { FastifyPluginAsync } from 'fastify'
import { contactsPage as listContacts, type Contact } from '../../modules/contacts/contacts.service.js'
import { listUsers } from '../../modules/users/users.service.js'
import { readForm, type FormState } from '../frame/form.js'
import { sendPage } from '../frame/frame.js'
import { pageRoute, signedIn, webCaller, type PageGroupOptions } from '../frame/guard.js'
import { CONTACTS, contactsPage, PER_PAGE, type AddedFlash } from './contacts.pages.js'
import { ContactsView } from './contacts.schemas.js'

const contactsPages: FastifyPluginAsync<PageGroupOptions> = async (app, { cookies, now }) => {
  app.get(CONTACTS, pageRoute('member'), async (request, reply) => {
    const current = signedIn(request)
    const caller = webCaller(request, current.account, now())
    const read = readForm(ContactsView, request.query)
    const users = (await listUsers(app.db, current.account.companyId)).data
    const owners = users.map((user) => ({ id: user.id, name: user.name }))
    const flash = cookies.takeFlash(request, reply, current.secret) as AddedFlash | undefined
    const common = { owners, flows: [], timezone: current.account.timezone, csrf: current.csrf, flash }
    if (!read.ok) {
      const viewState: FormState = { values: {}, errors: read.errors }
      return sendPage(reply, 422, contactsPage(current.chrome, { ...common, view: {}, contacts: [], total: 0, viewState }))
    }
    const view = read.value
    const listed = await listContacts(app.db, caller, { ...view, page: view.page ?? 1, per_page: PER_PAGE })
    const contacts = ('json' in listed ? JSON.parse(listed.json) : listed.data) as Contact[]
    return sendPage(reply, 200, contactsPage(current.chrome, { ...common, view, contacts, total: listed.total }))
  })
}

export default contactsPages
