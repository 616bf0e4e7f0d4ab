// The Tasks pages over HTTP (app.inject), as a browser without JavaScript uses them: the tabs
// of the signed-in user's tasks in the company's time zone, Mark done (CSRF, 303 back, the
// task moves from Today to Done, a refusal answers the list again), New task (the form again
// with the message beside its field), admins' assignee filter, another company's ids.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { backends, startApp, type TestApp } from '../helpers/app.js'
import { tenant, type Tenant } from '../helpers/factories.js'
import { addContact, addFlow, addTask } from '../helpers/flows-factories.js'
import { rawRows, sql } from '../helpers/sql.js'
import { Browser, csrfOf, member } from './helpers.js'

const [backend] = backends()
if (!backend) throw new Error('no backend')

// 02:00 UTC on 10 March: still 9 March in São Paulo, the company's zone.
const NOW = new Date('2026-03-10T02:00:00Z')
const TODAY = '2026-03-09'

/** The titles of the table's rows, in order. */
const titles = (body: string) => [...body.matchAll(/<td data-label="Task">([^<]*)<\/td>/g)].map((m) => m[1])

describe('Tasks pages', () => {
  let t: TestApp
  let acme: Tenant
  let other: Tenant
  let rep: { id: number; email: string }
  let boss: { id: number; email: string }
  let contactId: number

  const openTask = async (title: string, due: string, assignedToId = rep.id) =>
    addTask(t.db, acme.companyId, contactId, { due, title, assignedToId })
  const taskRow = async (id: number) =>
    (await rawRows<{ done: boolean }>(t.db, sql`select done from tasks where company_id = ${acme.companyId} and id = ${id}`))[0]

  async function signIn(email: string) {
    const browser = new Browser(t.app)
    const res = await browser.signIn(email)
    assert.equal(res.status, 303, res.body)
    return { browser, landing: res.location }
  }

  before(async () => {
    t = await startApp(backend, { deps: { clock: () => NOW }, config: { signInLimit: { max: 100_000, windowMs: 60_000 } } })
    acme = await tenant(t.db, { name: 'Acme', timezone: 'America/Sao_Paulo' })
    other = await tenant(t.db, { name: 'Other' })
    rep = await member(t.db, acme.companyId, { name: 'Rita Rep' })
    boss = await member(t.db, acme.companyId, { name: 'Bea Boss', role: 'admin' })
    contactId = (await addContact(t.db, acme.companyId, { userId: rep.id, firstName: 'Ana', lastName: 'Souza' })).id
  })
  after(() => t.close())

  test('a member lands on Tasks → Today: their open tasks due today (company zone), the contact linked; the other tabs', async () => {
    await openTask('Call Ana today', TODAY)
    await openTask('Overdue email', '2026-03-01')
    await openTask('Next week', '2026-03-16')
    await openTask('Not mine', TODAY, boss.id)
    const { browser, landing } = await signIn(rep.email)
    assert.equal(landing, '/tasks')
    const today = await browser.get('/tasks')
    assert.equal(today.status, 200)
    assert.match(today.body, /<h1>Tasks<\/h1>/)
    assert.match(today.body, /<a href="\/tasks"[^>]*aria-current="page">Today<\/a>/)
    assert.ok(titles(today.body).includes('Call Ana today'))
    assert.ok(!titles(today.body).includes('Not mine'), 'a member sees their own tasks')
    assert.ok(!titles(today.body).includes('Overdue email'))
    assert.match(today.body, new RegExp(`<a href="/contacts/${contactId}">Ana Souza</a>`))
    assert.match(today.body, /<time datetime="2026-03-09">Mon, 9 Mar 2026<\/time>/)
    assert.deepEqual(titles((await browser.get('/tasks?tab=overdue')).body), ['Overdue email'])
    assert.ok(titles((await browser.get('/tasks?tab=upcoming')).body).includes('Next week'))
    const mine = await browser.get('/tasks?assignee=anyone')
    assert.ok(!titles(mine.body).includes('Not mine'), 'a member cannot look at anyone’s tasks')
    assert.ok(!mine.body.includes('name="assignee"'), 'members have no assignee filter')
  })

  test('Mark done: 303 back to the view; the task leaves Today and shows under Done; the contact event is the user’s', async () => {
    const task = await openTask('Mark me', TODAY)
    const { browser } = await signIn(rep.email)
    const page = await browser.get('/tasks')
    const csrf = csrfOf(page.body, `/tasks/${task.id}/complete`)
    const res = await browser.request('POST', `/tasks/${task.id}/complete`, { _csrf: csrf, back: '/tasks?kind=email' })
    assert.equal(res.status, 303)
    assert.equal(res.location, '/tasks?kind=email')
    assert.equal((await taskRow(task.id))?.done, true)
    const after = await browser.get('/tasks')
    assert.match(after.body, /Done: Mark me\./)
    assert.ok(!titles(after.body).includes('Mark me'))
    assert.ok(titles((await browser.get('/tasks?tab=done')).body).includes('Mark me'))
    const [event] = await rawRows<{ user_id: number; kind: string }>(t.db, sql`
      select user_id, kind from contact_events where company_id = ${acme.companyId} and kind = 'task_completed' and (data->>'task_id')::bigint = ${task.id}`)
    assert.deepEqual(event, { user_id: rep.id, kind: 'task_completed' })
    const [audit] = await rawRows<{ actor_type: string; actor_id: number }>(t.db, sql`
      select actor_type, actor_id from audit_events where company_id = ${acme.companyId} and action = 'task.completed' and target_id = ${task.id}`)
    assert.deepEqual(audit, { actor_type: 'user', actor_id: rep.id })

    const again = await browser.request('POST', `/tasks/${task.id}/complete`, { _csrf: csrf, back: '/tasks' })
    assert.equal(again.status, 422)
    assert.match(again.body, /role="alert">Not marked done: task is already done\./)
  })

  test('Mark done without the CSRF token: 403 page, the task stays open; another company’s task: the 404 page', async () => {
    const task = await openTask('Guarded', TODAY)
    const { browser } = await signIn(rep.email)
    const forged = await browser.request('POST', `/tasks/${task.id}/complete`, { back: '/tasks' })
    assert.equal(forged.status, 403)
    assert.match(forged.headers['content-type'] as string, /text\/html/)
    assert.equal((await taskRow(task.id))?.done, false)

    const theirContact = await addContact(t.db, other.companyId, { userId: other.userId })
    const theirs = await addTask(t.db, other.companyId, theirContact.id, { due: TODAY })
    const csrf = csrfOf((await browser.get('/tasks')).body)
    for (const id of [String(theirs.id), '999999999', 'abc']) {
      const res = await browser.request('POST', `/tasks/${id}/complete`, { _csrf: csrf })
      assert.equal(res.status, 404, id)
      assert.match(res.body, /Page not found/)
    }
    const [row] = await rawRows<{ done: boolean }>(t.db, sql`select done from tasks where id = ${theirs.id}`)
    assert.equal(row?.done, false)
  })

  test('New task: the form; a refusal answers it again (422) with the message beside the field and what was typed; then 303', async () => {
    const { browser } = await signIn(rep.email)
    const form = await browser.get(`/tasks/new?contact_id=${contactId}`)
    assert.equal(form.status, 200)
    assert.match(form.body, /About <a href="\/contacts\/\d+">Ana Souza<\/a>/)
    const csrf = csrfOf(form.body, '/tasks')
    const refused = await browser.request('POST', '/tasks', { _csrf: csrf, contact_id: String(contactId), kind: 'email', due_date: '2026-02-30', title: 'Typed title' })
    assert.equal(refused.status, 422)
    assert.match(refused.body, /id="field-due_date-error" class="field-error">Must be a date \(yyyy-mm-dd\)\./)
    assert.match(refused.body, /value="Typed title"/)
    const before = await rawRows(t.db, sql`select id from tasks where company_id = ${acme.companyId}`)
    const theirContact = await addContact(t.db, other.companyId, { userId: other.userId })
    const foreign = await browser.request('POST', '/tasks', { _csrf: csrf, contact_id: String(theirContact.id), kind: 'email', due_date: TODAY })
    assert.equal(foreign.status, 422)
    assert.match(foreign.body, /Does not exist\./)
    assert.deepEqual(await rawRows(t.db, sql`select id from tasks where company_id = ${acme.companyId}`), before)

    const created = await browser.request('POST', '/tasks', { _csrf: csrf, contact_id: String(contactId), kind: 'phonecall', due_date: TODAY, title: '', assigned_to_id: '' })
    assert.equal(created.status, 303, created.body)
    assert.equal(created.location, '/tasks')
    const list = await browser.get('/tasks')
    assert.match(list.body, /Task created: Call Ana Souza\./)
    assert.ok(titles(list.body).includes('Call Ana Souza'))
  })

  test('admins: the assignee filter (anyone, one user), the flow and kind filters; a bad address is 422 with today’s list', async () => {
    const flow = await addFlow(t.db, acme.companyId, { userId: boss.id, name: 'Outbound' })
    await addTask(t.db, acme.companyId, contactId, { due: TODAY, title: 'In the flow', assignedToId: rep.id, flowId: flow.id, kind: 'linkedin' })
    const { browser } = await signIn(boss.email)
    const own = await browser.get('/tasks')
    assert.ok(!titles(own.body).includes('In the flow'), 'an admin sees their own tasks first')
    assert.match(own.body, /name="assignee"/)
    const anyone = await browser.get('/tasks?assignee=anyone')
    assert.ok(titles(anyone.body).includes('In the flow'))
    assert.match(anyone.body, /<th scope="col">Assignee<\/th>/)
    assert.deepEqual(titles((await browser.get(`/tasks?assignee=${rep.id}&flow_id=${flow.id}`)).body), ['In the flow'])
    assert.deepEqual(titles((await browser.get(`/tasks?assignee=anyone&kind=linkedin`)).body), ['In the flow'])
    const bad = await browser.get('/tasks?tab=someday&page=0')
    assert.equal(bad.status, 422)
    assert.match(bad.body, /role="alert">This address cannot be shown/)
  })
})
