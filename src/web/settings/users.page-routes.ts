// Settings → Users: the command line's user commands in the browser (user create + user
// invite, user set-role, user deactivate, user activate), through the same services, so
// the audit records are the same. Admins only for every change; the list for everyone.
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify'
import { Type } from 'typebox'
import { ApiError } from '../../errors.js'
import { publicBaseUrl } from '../../config.js'
import { activateUser, deactivateUser, inviteUser, setUserRole } from '../../modules/auth/index.js'
import { UserCreateInput } from '../../modules/users/index.js'
import { createUser, listUsers } from '../../modules/users-api/index.js'
import { freshForm, readForm, refusalsOf, typedValues, type FormState } from '../frame/form.js'
import { sendHtml } from '../frame/frame.js'
import { formRoute, pageRoute, pathId, signedIn, webCaller, type PageGroupOptions } from '../frame/guard.js'
import { USERS, usersListPage, USERS_FLASHES, type UsersFlash } from './users.pages.js'

const InviteForm = Type.Object({
  name: UserCreateInput.properties.name,
  email: UserCreateInput.properties.email,
  role: Type.Optional(UserCreateInput.properties.role),
})
const RoleForm = Type.Object({ role: Type.Union([Type.Literal('admin'), Type.Literal('member')]) })

const usersPages: FastifyPluginAsync<PageGroupOptions> = async (app, { config, cookies, now }) => {
  /** Where invite links point: PUBLIC_URL, else this request's own origin. */
  const baseUrlOf = (request: FastifyRequest) => (config.publicUrl ? publicBaseUrl(config) : `${request.protocol}://${request.host}`)

  async function show(request: FastifyRequest, reply: FastifyReply, invite?: FormState) {
    const current = signedIn(request)
    const flash = invite ? undefined : cookies.takeFlash<UsersFlash>(request, reply, current.secret, USERS_FLASHES)
    const users = (await listUsers(app.db, current.account.companyId)).data
    return sendHtml(reply, invite ? 422 : 200, usersListPage(current.chrome, current.csrf, current.account, users, flash, invite ?? freshForm({ role: 'member' })))
  }

  /** A user of the signed-in admin's company, by the path's id; another company's answers the 404 page. */
  async function ownUser(request: FastifyRequest) {
    const id = pathId(request)
    const users = (await listUsers(app.db, signedIn(request).account.companyId)).data
    const user = users.find((own) => own.id === id)
    if (!user) throw new ApiError(404)
    return user
  }

  app.get(USERS, pageRoute('member'), async (request, reply) => show(request, reply))

  // Invite: `user create` then `user invite`; the link is shown once, on the next page.
  app.post(`${USERS}/invite`, formRoute('admin'), async (request, reply) => {
    const current = signedIn(request)
    const acting = webCaller(request, current.account, now())
    const again = (errors: FormState['errors']) => show(request, reply, { values: typedValues(request.body, ['name', 'email', 'role']), errors })
    const read = readForm(InviteForm, request.body)
    if (!read.ok) return again(read.errors)
    let invited
    try {
      const user = await createUser(app.db, acting, { company: current.account.companyId, ...read.value })
      invited = await inviteUser(app.db, acting, user.id, baseUrlOf(request))
    } catch (err) {
      return again(refusalsOf(err))
    }
    cookies.setFlash(reply, current.secret, { kind: 'invited', name: read.value.name, email: invited.email, url: invited.url } satisfies UsersFlash)
    return reply.redirect(USERS, 303)
  })

  /** A change to one user of the company, then back to the list with what was done. */
  function userForm(act: (request: FastifyRequest, user: { id: number; name: string; email: string }) => Promise<UsersFlash>) {
    return async (request: FastifyRequest, reply: FastifyReply) => {
      const current = signedIn(request)
      const user = await ownUser(request)
      const flash = await act(request, user)
      cookies.setFlash(reply, current.secret, flash)
      return reply.redirect(USERS, 303)
    }
  }
  const actingOf = (request: FastifyRequest) => webCaller(request, signedIn(request).account, now())

  app.post(`${USERS}/:id/role`, formRoute('admin'), userForm(async (request, user) => {
    const read = readForm(RoleForm, request.body)
    if (!read.ok) throw new ApiError(400)
    await setUserRole(app.db, actingOf(request), { user: user.id, role: read.value.role })
    return { kind: 'user-changed', what: `${user.name} is ${read.value.role === 'admin' ? 'an admin' : 'a member'} now.` }
  }))

  app.post(`${USERS}/:id/invite`, formRoute('admin'), userForm(async (request, user) => {
    const invited = await inviteUser(app.db, actingOf(request), user.id, baseUrlOf(request))
    return { kind: 'invited', name: user.name, email: invited.email, url: invited.url }
  }))

  app.post(`${USERS}/:id/deactivate`, formRoute('admin'), userForm(async (request, user) => {
    await deactivateUser(app.db, actingOf(request), user.id)
    return { kind: 'user-changed', what: `${user.name} is deactivated: signed out everywhere, and their api tokens stop working.` }
  }))

  app.post(`${USERS}/:id/activate`, formRoute('admin'), userForm(async (request, user) => {
    await activateUser(app.db, actingOf(request), user.id)
    return { kind: 'user-changed', what: `${user.name} is active again.` }
  }))
}

export default usersPages
