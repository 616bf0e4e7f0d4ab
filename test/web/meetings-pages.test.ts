// The Meetings pages over HTTP (app.inject), as a browser without JavaScript uses them: a
// user's transcriptions (status, meet id, transcript length, task link, 25 a page, filters in
// the address), a transcription's page (its transcript escaped; a long one shown in part and
// downloadable whole), Stop, attaching a transcript and linking to a task (303 back to the
// page; refusals 422 with the page and the message beside the field, what was typed kept),
// another company's ids, forms without their CSRF token, members' and admins' rights (the
// roles matrix: any user of the company), a contact's Meetings section, and that each write
// leaves what its API operation leaves (test/helpers/same-effect.ts).
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { TRANSCRIPT_BODY_LIMIT } from '../../src/modules/meet-transcriptions/meet-transcriptions.schemas.js'
import { backends, startApp, type TestApp } from '../helpers/app.js'
import { addSubscription, tenant, type Tenant } from '../helpers/factories.js'
import { addContact, addTask } from '../helpers/flows-factories.js'
import { assertSameEffect } from '../helpers/same-effect.js'
import { tableSnapshot } from '../helpers/snapshot.js'
import { rawRows, sql } from '../helpers/sql.js'
import { Browser, csrfOf, member } from './helpers.js'

const [backend] = backends()
if (!backend) throw new Error('no backend')

const DUE = '2026-11-22'

interface Row {
  status: string
  stopped_at: Date | null
  transcript: string | null
  task_id: number | null
}

/** The meet ids of the list's rows, in order. */
const meetIds = (body: string) => [...body.matchAll(/<td data-label="Meeting" class="wrap"><a href="\/meetings\/\d+">([^<]*)<\/a><\/td>/g)].map((m) => m[1])

describe('Meetings pages', () => {
  let t: TestApp
  let seq = 0

  before(async () => {
    t = await startApp(backend, { config: { signInLimit: { max: 100_000, windowMs: 60_000 } } })
  })
  after(() => t.close())

  const api = (owner: Tenant, method: 'POST' | 'PUT', url: string, payload: object) =>
    t.app.inject({ method, url: `/api/v1/meet_transcriptions${url}`, headers: owner.auth, payload })

  /** A transcription of `userId` through the API, as a meeting integration creates it. */
  async function transcription(owner: Tenant, userId: number, meetId = `abc-defg-${String(++seq)}`) {
    const res = await api(owner, 'POST', '', { user_id: userId, company_id: owner.companyId, meet_id: meetId })
    assert.equal(res.statusCode, 201, res.body)
    return res.json<{ id: number; meet_id: string }>()
  }

  const rowOf = async (id: number) =>
    (await rawRows<Row>(t.db, sql`select status, stopped_at, transcript, task_id from meet_transcriptions where id = ${id}`))[0]

  /** A company with an admin's token and a webhook subscription, and a member signed in. */
  async function company(role: 'admin' | 'member' = 'member') {
    const owner = await tenant(t.db, { name: 'Acme' })
    await addSubscription(t.db, owner.companyId)
    const user = await member(t.db, owner.companyId, { role, name: role === 'admin' ? 'Ada Admin' : 'Rita Rep' })
    const browser = new Browser(t.app)
    const res = await browser.signIn(user.email)
    assert.equal(res.status, 303, res.body)
    const contact = await addContact(t.db, owner.companyId, { userId: user.id, firstName: 'Ana', lastName: 'Souza' })
    return { owner, user, browser, contact }
  }

  test('the list: the signed-in user’s transcriptions (status, meet id, transcript length, task), 25 a page, filters in the address', async () => {
    const { owner, user, browser, contact } = await company()
    const task = await addTask(t.db, owner.companyId, contact.id, { due: DUE, title: 'Demo call', assignedToId: user.id })
    const first = await transcription(owner, user.id, 'first-meet')
    for (let i = 0; i < 25; i++) await transcription(owner, user.id)
    await transcription(owner, owner.userId, 'the-admins-meet')
    assert.equal((await api(owner, 'PUT', `/${first.id}/stop`, { stopped_at: '2026-11-22T10:30:00Z' })).statusCode, 200)
    assert.equal((await api(owner, 'PUT', `/${first.id}/transcript`, { transcript: 'Olá, Ana! 👋' })).statusCode, 200)
    assert.equal((await api(owner, 'PUT', `/${first.id}/to_task`, { task_id: task.id })).statusCode, 200)

    const list = await browser.get('/meetings')
    assert.equal(list.status, 200)
    assert.match(list.body, /<h1>Meetings<\/h1>/)
    assert.match(list.body, /<a href="\/meetings" aria-current="page">Meetings<\/a>/, 'the header’s Meetings link, current')
    assert.equal(meetIds(list.body).length, 25)
    assert.equal(meetIds(list.body)[0], 'first-meet')
    assert.ok(!meetIds(list.body).includes('the-admins-meet'))
    assert.match(list.body, /Page 1 of 2 · 26 transcriptions/)
    const row = /<tr>\s*<td data-label="Meeting" class="wrap"><a href="\/meetings\/\d+">first-meet<\/a><\/td>[\s\S]*?<\/tr>/.exec(list.body)?.[0] ?? ''
    assert.match(row, /<td data-label="Status">Transcribed<\/td>/)
    assert.match(row, /<td data-label="Stopped"><time datetime="2026-11-22T10:30:00.000Z">/)
    assert.match(row, /<td data-label="Transcript">11 characters<\/td>/, 'code points, as the API counts them')
    assert.match(row, new RegExp(`<a href="/contacts/${String(contact.id)}#task-${String(task.id)}">Demo call</a>`))
    assert.match((await browser.get('/meetings?page=2')).body, /Page 2 of 2/)
    assert.equal(meetIds((await browser.get('/meetings?page=2')).body).length, 1)

    assert.deepEqual(meetIds((await browser.get('/meetings?task=with')).body), ['first-meet'])
    assert.equal(meetIds((await browser.get('/meetings?task=without')).body).length, 25)
    const admins = await browser.get(`/meetings?user_id=${String(owner.userId)}`)
    assert.deepEqual(meetIds(admins.body), ['the-admins-meet'])
    assert.match(admins.body, /<option value="\d+" selected>User \d+<\/option>/)

    for (const bad of ['/meetings?page=0', '/meetings?task=maybe', '/meetings?user_id=999999999', '/meetings?user_id[]=1']) {
      const res = await browser.get(bad)
      assert.equal(res.status, 422, bad)
      assert.match(res.body, /role="alert">This address cannot be shown/)
    }
  })

  test('a transcription’s page: its transcript escaped, its status and facts; a long one shown in part, the whole as text', async () => {
    const { owner, user, browser } = await company()
    const meeting = await transcription(owner, user.id)
    assert.equal((await api(owner, 'PUT', `/${meeting.id}/stop`, { stopped_at: '2026-11-22' })).statusCode, 200)
    const text = 'Ana: <script>alert(1)</script> & "quotes"\nBruno: fine'
    assert.equal((await api(owner, 'PUT', `/${meeting.id}/transcript`, { transcript: text })).statusCode, 200)
    const page = await browser.get(`/meetings/${String(meeting.id)}`)
    assert.equal(page.status, 200)
    assert.match(page.body, new RegExp(`<h1 class="wrap">Meeting ${meeting.meet_id}</h1>`))
    assert.match(page.body, /<dt>Status<\/dt><dd>Transcribed<\/dd>/)
    assert.match(page.body, /<dt>Recorded by<\/dt><dd>Rita Rep<\/dd>/)
    assert.ok(page.body.includes('<div class="transcript">Ana: &lt;script&gt;alert(1)&lt;/script&gt; &amp; &quot;quotes&quot;\nBruno: fine</div>'))
    assert.ok(!page.body.includes('<script>alert'))
    assert.ok(!page.body.includes('action="/meetings/' + String(meeting.id) + '/stop"'), 'no Stop once stopped')
    assert.match(page.body, /<h2 id="attach-title">Replace the transcript<\/h2>/)

    const long = `${'word '.repeat(5000)}${'é'.repeat(10)}${'x'.repeat(10_000)}THE END`
    assert.equal((await api(owner, 'PUT', `/${meeting.id}/transcript`, { transcript: long })).statusCode, 200)
    const longPage = await browser.get(`/meetings/${String(meeting.id)}`)
    assert.match(longPage.body, /its first 20,000 characters are shown/)
    assert.ok(!longPage.body.includes('THE END'))
    assert.ok(longPage.body.length < 100_000, `${String(longPage.body.length)} bytes`)
    const whole = await browser.get(`/meetings/${String(meeting.id)}/transcript.txt`)
    assert.equal(whole.status, 200)
    assert.match(String(whole.headers['content-type']), /^text\/plain; charset=utf-8/)
    assert.match(String(whole.headers['content-disposition']), /^attachment; filename="meeting-\d+.txt"$/)
    assert.equal(whole.body, long)

    const fresh = await transcription(owner, user.id)
    const recording = await browser.get(`/meetings/${String(fresh.id)}`)
    assert.match(recording.body, /<dt>Status<\/dt><dd>Recording<\/dd>/)
    assert.match(recording.body, /No transcript yet: stop the recording/)
    assert.equal((await browser.get(`/meetings/${String(fresh.id)}/transcript.txt`)).status, 404)
  })

  test('Stop: 303 back to the page, stopped now; stopping again answers the page with the service’s refusal (422)', async () => {
    const { owner, user, browser } = await company()
    const meeting = await transcription(owner, user.id)
    const path = `/meetings/${String(meeting.id)}`
    const stopped = await browser.submit(path, `${path}/stop`)
    assert.equal(stopped.status, 303)
    assert.equal(stopped.location, path)
    const row = await rowOf(meeting.id)
    assert.equal(row?.status, 'stopped')
    assert.ok(row.stopped_at && Math.abs(row.stopped_at.getTime() - Date.now()) < 60_000)
    const page = await browser.get(path)
    assert.match(page.body, /role="status">Recording stopped\./)
    assert.match(page.body, /<dt>Status<\/dt><dd>Stopped<\/dd>/)

    // A second Stop (a form left open in another tab): the service refuses, nothing changes.
    const again = await browser.request('POST', `${path}/stop`, { _csrf: csrfOf(page.body) })
    assert.equal(again.status, 422)
    assert.match(again.body, /<p class="alert" role="alert" id="stop-error">Status is stopped: only a recording transcription can be stopped\.<\/p>/)
    assert.deepEqual(await rowOf(meeting.id), row)
  })

  test('attaching a transcript: refused while recording and when blank (422, beside the field, the text kept); then 303, and a later one replaces it', async () => {
    const { owner, user, browser } = await company()
    const meeting = await transcription(owner, user.id)
    const path = `/meetings/${String(meeting.id)}`
    const typed = 'Ana: hello <b>there</b>\r\nBruno: hi'
    const early = await browser.submit(path, `${path}/transcript`, { transcript: typed })
    assert.equal(early.status, 422)
    assert.match(early.body, /id="field-transcript-error" class="field-error">Status is recording: stop it before sending its transcript\.<\/p>/)
    assert.ok(early.body.includes('>Ana: hello &lt;b&gt;there&lt;/b&gt;\r\nBruno: hi</textarea>'), 'what was typed is kept')
    assert.equal((await rowOf(meeting.id))?.transcript, null)

    assert.equal((await browser.submit(path, `${path}/stop`)).status, 303)
    const blank = await browser.submit(path, `${path}/transcript`, { transcript: '  \n ' })
    assert.equal(blank.status, 422)
    assert.match(blank.body, /id="field-transcript-error" class="field-error">[^<]+<\/p>/)
    assert.match(blank.body, /aria-invalid="true"/)
    assert.equal((await rowOf(meeting.id))?.status, 'stopped')

    const attached = await browser.submit(path, `${path}/transcript`, { transcript: typed })
    assert.equal(attached.status, 303)
    assert.equal(attached.location, path)
    assert.deepEqual({ ...(await rowOf(meeting.id)), stopped_at: null }, { status: 'transcribed', stopped_at: null, transcript: typed, task_id: null })
    const page = await browser.get(path)
    assert.match(page.body, /role="status">Transcript attached\./)
    const replaced = await browser.submit(path, `${path}/transcript`, { transcript: 'Second take' })
    assert.equal(replaced.status, 303)
    assert.equal((await rowOf(meeting.id))?.transcript, 'Second take')

    // Larger than an ordinary form (64 KiB), within the operation's 10 MiB; past it, the 413 page.
    const long = 'Ana: and so on. '.repeat(8192)
    assert.equal((await browser.submit(path, `${path}/transcript`, { transcript: long })).status, 303)
    assert.equal((await rowOf(meeting.id))?.transcript, long)
    const tooLarge = await browser.request('POST', `${path}/transcript`, { _csrf: csrfOf(page.body), transcript: 'x'.repeat(TRANSCRIPT_BODY_LIMIT) })
    assert.equal(tooLarge.status, 413)
    assert.match(tooLarge.body, /<h1>Too large<\/h1>/)
    assert.equal((await rowOf(meeting.id))?.transcript, long)
  })

  test('linking to a task: a task of the company (303, the contact event); an unknown or another company’s task, or none chosen, 422 beside the field', async () => {
    const { owner, user, browser, contact } = await company()
    const other = await tenant(t.db)
    const theirContact = await addContact(t.db, other.companyId, { userId: other.userId })
    const theirTask = await addTask(t.db, other.companyId, theirContact.id, { due: DUE })
    const task = await addTask(t.db, owner.companyId, contact.id, { due: DUE, title: 'Demo call', assignedToId: user.id })
    const meeting = await transcription(owner, user.id)
    const path = `/meetings/${String(meeting.id)}`
    const page = await browser.get(path)
    assert.match(page.body, new RegExp(`<option value="${String(task.id)}">Demo call \\(Ana Souza, due Sun, 22 Nov 2026\\)</option>`))
    const csrf = csrfOf(page.body, `${path}/task`)
    for (const [id, message] of [[String(theirTask.id), 'Does not exist.'], ['999999999', 'Does not exist.'], ['', 'Choose a task.']] as const) {
      const refused = await browser.request('POST', `${path}/task`, { _csrf: csrf, task_id: id })
      assert.equal(refused.status, 422, id)
      assert.ok(refused.body.includes(`id="field-task_id-error" class="field-error">${message}</p>`), `${id}: ${refused.body.slice(refused.body.indexOf('field-task_id'), refused.body.indexOf('field-task_id') + 300)}`)
    }
    assert.equal((await rowOf(meeting.id))?.task_id, null)

    const linked = await browser.request('POST', `${path}/task`, { _csrf: csrf, task_id: String(task.id) })
    assert.equal(linked.status, 303)
    assert.equal(linked.location, path)
    assert.equal((await rowOf(meeting.id))?.task_id, task.id)
    const after = await browser.get(path)
    assert.match(after.body, /role="status">Linked to the task “Demo call”\./)
    assert.match(after.body, new RegExp(`<dt>Task</dt><dd><a href="/contacts/${String(contact.id)}#task-${String(task.id)}">Demo call \\(Ana Souza, due Sun, 22 Nov 2026\\)</a></dd>`))
    assert.match(after.body, new RegExp(`<option value="${String(task.id)}" selected>`))
    const [event] = await rawRows<{ user_id: number; contact_id: number }>(t.db, sql`
      select user_id, contact_id from contact_events where company_id = ${owner.companyId} and kind = 'meet_transcription_linked'`)
    assert.deepEqual(event, { user_id: user.id, contact_id: contact.id })

    // Another user's open tasks, chosen in the address.
    await addTask(t.db, owner.companyId, contact.id, { due: DUE, title: 'Admin follow-up', assignedToId: owner.userId })
    assert.match((await browser.get(`${path}?tasks_of=${String(owner.userId)}`)).body, />Admin follow-up \(Ana Souza, due Sun, 22 Nov 2026\)<\/option>/)
    assert.doesNotMatch((await browser.get(path)).body, /Admin follow-up/)
  })

  test('another company’s transcription answers the 404 page to every page and form; a form without its CSRF token answers 403 and changes nothing', async () => {
    const { owner, user, browser } = await company()
    const other = await tenant(t.db)
    const theirs = await transcription(other, other.userId)
    const mine = await transcription(owner, user.id)
    const page = await browser.get(`/meetings/${String(mine.id)}`)
    const csrf = csrfOf(page.body)
    for (const id of [String(theirs.id), '999999999', 'abc']) {
      for (const [method, path, form] of [
        ['GET', `/meetings/${id}`, undefined],
        ['GET', `/meetings/${id}/transcript.txt`, undefined],
        ['POST', `/meetings/${id}/stop`, { _csrf: csrf }],
        ['POST', `/meetings/${id}/transcript`, { _csrf: csrf, transcript: 'Mine now' }],
        ['POST', `/meetings/${id}/transcript`, { _csrf: csrf, transcript: ' ' }],
        ['POST', `/meetings/${id}/task`, { _csrf: csrf, task_id: '1' }],
      ] as const) {
        const res = await browser.request(method, path, form)
        assert.equal(res.status, 404, `${method} ${path}`)
        assert.match(String(res.headers['content-type']), /^text\/html/)
        assert.match(res.body, /Page not found/)
      }
    }
    assert.deepEqual(await rowOf(theirs.id), { status: 'recording', stopped_at: null, transcript: null, task_id: null })

    const before = await tableSnapshot(t.db, ['meet_transcriptions', 'contact_events', 'api_event_outbox', 'api_events'])
    for (const [path, form] of [
      [`/meetings/${String(mine.id)}/stop`, {}],
      [`/meetings/${String(mine.id)}/transcript`, { transcript: 'Forged' }],
      [`/meetings/${String(mine.id)}/task`, { task_id: '1' }],
      [`/meetings/${String(mine.id)}/stop`, { _csrf: 'not-the-token' }],
    ] as const) {
      const res = await browser.request('POST', path, form)
      assert.equal(res.status, 403, path)
      assert.match(res.body, /<h1>Form expired<\/h1>/)
    }
    assert.deepEqual(await tableSnapshot(t.db, ['meet_transcriptions', 'contact_events', 'api_event_outbox', 'api_events']), before)
  })

  test('members and admins alike (the roles matrix: any user of the company) see every user’s transcriptions and act on them', async () => {
    for (const role of ['member', 'admin'] as const) {
      const { owner, browser, contact } = await company(role)
      const colleague = await member(t.db, owner.companyId, { name: 'Cole League' })
      const task = await addTask(t.db, owner.companyId, contact.id, { due: DUE, assignedToId: colleague.id })
      const theirs = await transcription(owner, colleague.id, `colleague-${role}`)
      assert.deepEqual(meetIds((await browser.get(`/meetings?user_id=${String(colleague.id)}`)).body), [`colleague-${role}`])
      const path = `/meetings/${String(theirs.id)}`
      assert.equal((await browser.submit(path, `${path}/stop`)).status, 303, role)
      assert.equal((await browser.submit(path, `${path}/transcript`, { transcript: `By the ${role}` })).status, 303, role)
      assert.equal((await browser.submit(path, `${path}/task`, { task_id: String(task.id) })).status, 303, role)
      assert.deepEqual({ ...(await rowOf(theirs.id)), stopped_at: null }, { status: 'transcribed', stopped_at: null, transcript: `By the ${role}`, task_id: task.id })
    }
  })

  test('a contact’s page lists its meeting transcriptions: those linked to one of its tasks', async () => {
    const { owner, user, browser, contact } = await company()
    const otherContact = await addContact(t.db, owner.companyId, { userId: user.id, firstName: 'Bruno' })
    const task = await addTask(t.db, owner.companyId, contact.id, { due: DUE, title: 'Demo call', assignedToId: user.id })
    const elsewhere = await addTask(t.db, owner.companyId, otherContact.id, { due: DUE, assignedToId: user.id })
    const linked = await transcription(owner, user.id, 'linked-meet')
    const notHers = await transcription(owner, user.id, 'bruno-meet')
    await transcription(owner, user.id, 'unlinked-meet')
    assert.equal((await api(owner, 'PUT', `/${linked.id}/to_task`, { task_id: task.id })).statusCode, 200)
    assert.equal((await api(owner, 'PUT', `/${notHers.id}/to_task`, { task_id: elsewhere.id })).statusCode, 200)
    const page = await browser.get(`/contacts/${String(contact.id)}`)
    assert.equal(page.status, 200)
    const section = /<section class="card" id="meetings"[\s\S]*?<\/section>/.exec(page.body)?.[0] ?? ''
    assert.match(section, /<h2 id="meetings-title">Meetings<\/h2>/)
    assert.match(section, new RegExp(`<a href="/meetings/${String(linked.id)}" class="wrap">linked-meet</a>`))
    assert.match(section, /Recording · Demo call/)
    assert.doesNotMatch(section, /bruno-meet|unlinked-meet/)
    const bruno = await browser.get(`/contacts/${String(otherContact.id)}`)
    assert.match(bruno.body, /bruno-meet/)
    assert.match((await browser.get(`/contacts/${String((await addContact(t.db, owner.companyId, { userId: user.id })).id)}`)).body, /No meeting transcriptions\./)
  })

  test('Stop, attaching a transcript and linking to a task leave what PUT …/stop, …/transcript and …/to_task leave', async () => {
    const a = await company()
    const b = await company()
    const twins = { api: a.owner.companyId, web: b.owner.companyId }
    const taskA = await addTask(t.db, a.owner.companyId, a.contact.id, { due: DUE, title: 'Demo call', assignedToId: a.user.id })
    const taskB = await addTask(t.db, b.owner.companyId, b.contact.id, { due: DUE, title: 'Demo call', assignedToId: b.user.id })
    const ma = await transcription(a.owner, a.user.id, 'twin-meet')
    const mb = await transcription(b.owner, b.user.id, 'twin-meet')
    const path = `/meetings/${String(mb.id)}`
    const onPage = (action: string, form: Record<string, string> = {}) => async () => {
      const res = await b.browser.submit(path, action, form)
      assert.equal(res.status, 303, res.body)
    }
    const stop = await assertSameEffect(t.db, twins, {
      api: () => api(a.owner, 'PUT', `/${String(ma.id)}/stop`, { stopped_at: new Date().toISOString() }),
      web: onPage(`${path}/stop`),
    })
    assert.deepEqual(Object.keys(stop).sort(), ['meet_transcriptions', 'webhook events'])
    await assertSameEffect(t.db, twins, {
      api: () => api(a.owner, 'PUT', `/${String(ma.id)}/transcript`, { transcript: 'Ana: thanks for joining.\nBruno: happy to.' }),
      web: onPage(`${path}/transcript`, { transcript: 'Ana: thanks for joining.\nBruno: happy to.' }),
    })
    const link = await assertSameEffect(t.db, twins, {
      api: () => api(a.owner, 'PUT', `/${String(ma.id)}/to_task`, { task_id: taskA.id }),
      web: onPage(`${path}/task`, { task_id: String(taskB.id) }),
    })
    assert.deepEqual(Object.keys(link).sort(), ['contact_events', 'meet_transcriptions', 'webhook events'])
  })
})
