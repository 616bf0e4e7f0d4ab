// The workspace's writes on the Tasks, Flows and Settings → Users pages leave exactly what
// their API operation (or, for users, the admin command line's command) leaves: the same rows,
// contact events, audit records and webhook events (test/helpers/same-effect.ts). The contacts,
// leads and meetings pages' writes are compared in their own files.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { backends, startApp, type TestApp } from '../helpers/app.js'
import { runAdmin } from '../helpers/cli.js'
import { addContact } from '../helpers/contacts-factories.js'
import { addSubscription, tenant, type Tenant } from '../helpers/factories.js'
import { addFlow, addTask } from '../helpers/flows-factories.js'
import { assertSameEffect } from '../helpers/same-effect.js'
import { rawRows, sql } from '../helpers/sql.js'
import { Browser, csrfOf, flowForm, member } from './helpers.js'

const [firstBackend] = backends()
if (!firstBackend) throw new Error('no backend')
const backend = firstBackend

const STEPS = [['email', '0', 'Thank you'], ['phonecall', '2', 'Intro call'], ['meeting', '7', 'Demo']] as [string, string, string][]
const asApiSteps = (steps: typeof STEPS) => steps.map(([kind, day, title]) => ({ kind, day: Number(day), title }))

describe('workspace writes do what the API and the command line do: Tasks, Flows, Users', () => {
  let t: TestApp
  before(async () => {
    t = await startApp(backend, { config: { signInLimit: { max: 100_000, windowMs: 60_000 } } })
  })
  after(() => t.close())

  /** A company with an admin's api token and a subscription (its webhook events are recorded), and a signed-in user of `role`. */
  async function company(role: 'member' | 'admin' = 'member') {
    const owner = await tenant(t.db)
    await addSubscription(t.db, owner.companyId)
    const user = await member(t.db, owner.companyId, { name: 'Rita Rep', role })
    const browser = new Browser(t.app)
    assert.equal((await browser.signIn(user.email)).status, 303)
    return { owner, user, browser }
  }

  async function api(owner: Tenant, method: 'PUT' | 'POST', url: string, payload?: object) {
    const res = await t.app.inject({ method, url: `/api/v1${url}`, headers: owner.auth, ...(payload ? { payload } : {}) })
    assert.ok(res.statusCode < 300, `${method} ${url}: ${String(res.statusCode)} ${res.body}`)
    return res
  }

  test('Mark done on Tasks does what PUT /tasks/:id/complete does', async () => {
    const a = await company()
    const b = await company()
    const due = new Date().toISOString().slice(0, 10)
    const [ta, tb] = await Promise.all([a, b].map(async ({ owner, user }) => {
      const contact = await addContact(t.db, { companyId: owner.companyId, userId: user.id }, { first_name: 'Ines', email: 'ines@example.com' })
      return addTask(t.db, owner.companyId, contact.id, { due, title: 'Call Ines', assignedToId: user.id })
    }))
    if (!ta || !tb) throw new Error('no tasks')
    await assertSameEffect(t.db, { api: a.owner.companyId, web: b.owner.companyId }, {
      api: () => api(a.owner, 'PUT', `/tasks/${String(ta.id)}/complete`),
      web: async () => {
        const res = await b.browser.submit('/tasks', `/tasks/${String(tb.id)}/complete`, { back: '/tasks' })
        assert.equal(res.status, 303, res.body)
      },
    })
    assert.match((await b.browser.get('/tasks?tab=done')).body, /Call Ines/)
  })

  test('New task does what POST /tasks does', async () => {
    const a = await company()
    const b = await company()
    const [ca, cb] = await Promise.all([a, b].map(({ owner }) => addContact(t.db, owner, { first_name: 'Joao', email: 'joao@example.com' })))
    if (!ca || !cb) throw new Error('no contacts')
    const fields = { kind: 'phonecall', due_date: '2026-12-01', title: 'Call about the offer' }
    await assertSameEffect(t.db, { api: a.owner.companyId, web: b.owner.companyId }, {
      api: () => api(a.owner, 'POST', '/tasks', { ...fields, contact_id: ca.id, assigned_to_id: a.user.id }),
      web: async () => {
        const res = await b.browser.submit(`/tasks/new?contact_id=${String(cb.id)}`, '/tasks', { ...fields, contact_id: String(cb.id), assigned_to_id: String(b.user.id) })
        assert.equal(res.status, 303, res.body)
      },
    })
  })

  test('New flow does what POST /flows does; editing it, what PUT /flows/:id does', async () => {
    const a = await company()
    const b = await company()
    await assertSameEffect(t.db, { api: a.owner.companyId, web: b.owner.companyId }, {
      api: () => api(a.owner, 'POST', '/flows', { name: 'Inbound three', steps: asApiSteps(STEPS) }),
      web: async () => {
        const form = await b.browser.get('/flows/new')
        const res = await b.browser.request('POST', '/flows', flowForm(csrfOf(form.body, '/flows'), 'Inbound three', STEPS))
        assert.equal(res.status, 303, res.body)
      },
    })
    const [flowA, flowB] = await Promise.all([a, b].map(({ owner }) => addFlow(t.db, owner.companyId, { userId: owner.userId, name: 'Editable' })))
    if (!flowA || !flowB) throw new Error('no flows')
    const edited: typeof STEPS = [['linkedin', '1', 'Connect'], ['email', '4', 'Follow up']]
    await assertSameEffect(t.db, { api: a.owner.companyId, web: b.owner.companyId }, {
      api: () => api(a.owner, 'PUT', `/flows/${String(flowA.id)}`, { name: 'Edited', status: 'paused', steps: asApiSteps(edited) }),
      web: async () => {
        const edit = await b.browser.get(`/flows/${String(flowB.id)}/edit`)
        const res = await b.browser.request('POST', `/flows/${String(flowB.id)}`, flowForm(csrfOf(edit.body, `/flows/${String(flowB.id)}`), 'Edited', edited, { status: 'paused' }))
        assert.equal(res.status, 303, res.body)
      },
    })
  })

  test('Add contacts on a flow’s page does what PUT /flows/:id/add_contact does for each', async () => {
    const a = await company()
    const b = await company()
    const setUp = async (owner: Tenant) => ({
      flow: await addFlow(t.db, owner.companyId, { userId: owner.userId, name: 'Onboarding' }),
      contacts: [
        await addContact(t.db, owner, { first_name: 'Gil', last_name: 'Findme', email: 'gil@example.com' }),
        await addContact(t.db, owner, { first_name: 'Hana', last_name: 'Findme', email: 'hana@example.com' }),
      ],
    })
    const twinA = await setUp(a.owner)
    const twinB = await setUp(b.owner)
    await assertSameEffect(t.db, { api: a.owner.companyId, web: b.owner.companyId }, {
      api: async () => {
        for (const contact of twinA.contacts) await api(a.owner, 'PUT', `/flows/${String(twinA.flow.id)}/add_contact`, { contact_id: contact.id })
      },
      web: async () => {
        const action = `/flows/${String(twinB.flow.id)}/contacts?search_term=findme`
        const found = await b.browser.get(`/flows/${String(twinB.flow.id)}?search_term=findme`)
        const body = new URLSearchParams({ _csrf: csrfOf(found.body, action) })
        for (const contact of twinB.contacts) body.append('contact_ids[]', String(contact.id))
        const res = await b.browser.request('POST', action, body.toString())
        assert.equal(res.status, 303, res.body)
      },
    })
  })

  test('Settings → Users: Invite, Make admin, Deactivate and Activate do what user create, user invite, user set-role, user deactivate and user activate do', async () => {
    const a = await company('admin')
    const b = await company('admin')
    const cli = async (args: string[]) => {
      const run = await runAdmin([...args, '--json'], { database: t.db })
      assert.equal(run.code, 0, run.stderr)
      return JSON.parse(run.stdout) as { id?: number; user_id?: number }
    }
    const users = async (browser: Browser, action: string, fields: Record<string, string> = {}) => {
      const res = await browser.submit('/settings/users', action, fields)
      assert.equal(res.status, 303, res.body)
    }
    let invitedA = 0
    await assertSameEffect(t.db, { api: a.owner.companyId, web: b.owner.companyId }, {
      api: async () => {
        const created = await cli(['user', 'create', '--company', String(a.owner.companyId), '--name', 'Nina New', '--email', 'nina@example.com', '--role', 'member'])
        invitedA = created.id ?? 0
        await cli(['user', 'invite', '--user', String(invitedA)])
      },
      web: () => users(b.browser, '/settings/users/invite', { name: 'Nina New', email: 'nina@example.com', role: 'member' }),
    })
    const [{ id: invitedB } = { id: 0 }] = await rawRows<{ id: number }>(t.db, sql`select id from users where company_id = ${b.owner.companyId} and email = 'nina@example.com'`)
    assert.ok(invitedA > 0 && invitedB > 0, 'both new users found')
    for (const [cliArgs, action, fields] of [
      [['user', 'set-role', '--user', String(invitedA), '--role', 'admin'], 'role', { role: 'admin' }],
      [['user', 'deactivate', '--user', String(invitedA)], 'deactivate', {}],
      [['user', 'activate', '--user', String(invitedA)], 'activate', {}],
    ] as const) {
      await assertSameEffect(t.db, { api: a.owner.companyId, web: b.owner.companyId }, {
        api: () => cli([...cliArgs]),
        web: () => users(b.browser, `/settings/users/${String(invitedB)}/${action}`, fields),
      })
    }
  })
})
