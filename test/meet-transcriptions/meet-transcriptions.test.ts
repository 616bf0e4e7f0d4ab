import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import type { Response as Reply } from 'light-my-request'
import { addUser, tenant, type Tenant } from '../helpers/factories.js'
import { addContact, addTask } from '../helpers/leads-factories.js'
import { backends, startApp, type TestApp } from '../helpers/app.js'
import { rawRows, sql } from '../helpers/sql.js'

const RECORD_KEYS = ['company_id', 'created_at', 'id', 'meet_id', 'status', 'stopped_at', 'task_id', 'transcript', 'updated_at', 'user_id']
const ITEM_KEYS = ['company_id', 'created_at', 'id', 'meet_id', 'status', 'stopped_at', 'task_id', 'transcript_length', 'updated_at', 'user_id']

interface TranscriptionRow {
  company_id: number
  user_id: number
  status: string
  stopped_at: Date | null
  transcript: string | null
  transcript_length: number | null
  task_id: number | null
}

for (const backend of backends()) {
  describe(`meet transcriptions (${backend.name})`, () => {
    let t: TestApp
    let acme: Tenant
    let other: Tenant
    let seq = 0

    before(async () => {
      t = await startApp(backend)
      acme = await tenant(t.db, { timezone: 'America/Sao_Paulo' })
      other = await tenant(t.db)
    })
    after(() => t.close())

    // A string payload is a Rails-style form.
    const request = (who: Tenant, method: 'GET' | 'POST' | 'PUT', url: string, payload?: object | string) =>
      t.app.inject({
        method,
        url: `/api/v1/meet_transcriptions${url}`,
        headers: { ...who.auth, ...(typeof payload === 'string' ? { 'content-type': 'application/x-www-form-urlencoded' } : {}) },
        ...(payload === undefined ? {} : { payload }),
      })
    /** The whole row (every column), so that "nothing changes" compares all of them. */
    const rowOf = async (id: number) => (await rawRows<TranscriptionRow>(t.db, sql`select * from meet_transcriptions where id = ${id}`))[0]
    const eventCount = async () => (await rawRows<{ n: number }>(t.db, sql`select count(*)::int as n from contact_events`))[0]?.n


    interface Transcription { id: number; meet_id: string; stopped_at: string | null }
    async function create(who: Tenant, userId = who.userId) {
      const res = await request(who, 'POST', '', { user_id: userId, company_id: who.companyId, meet_id: `meet-${++seq}` })
      assert.equal(res.statusCode, 201, res.body)
      return res.json<Transcription>()
    }
    async function stopped(who: Tenant) {
      const created = await create(who)
      const res = await request(who, 'PUT', `/${created.id}/stop`, { stopped_at: '2026-11-22T10:00:00Z' })
      assert.equal(res.statusCode, 200, res.body)
      return res.json<Transcription>()
    }
    async function expectRefused(res: Reply, field: string, id: number, before: unknown) {
      assert.equal(res.statusCode, 422)
      const { error } = res.json<{ error: { details: Partial<Record<string, string[]>> } }>()
      assert.ok(error.details[field], JSON.stringify(error))
      assert.deepEqual(await rowOf(id), before)
    }

    test('POST starts a transcription: 201, Location, status recording, the row', async () => {
      const member = await addUser(t.db, acme.companyId)
      const res = await request(acme, 'POST', '', { user_id: String(member.id), company_id: acme.companyId, meet_id: 'abc-defg-hij' })
      assert.equal(res.statusCode, 201)
      const body = res.json()
      assert.equal(res.headers.location, `/api/v1/meet_transcriptions/${body.id}`)
      assert.deepEqual(Object.keys(body).sort(), RECORD_KEYS)
      assert.deepEqual({ ...body, id: 0, created_at: 0, updated_at: 0 }, {
        id: 0, user_id: member.id, company_id: acme.companyId, meet_id: 'abc-defg-hij', status: 'recording',
        stopped_at: null, transcript: null, task_id: null, created_at: 0, updated_at: 0,
      })
      const row = await rowOf(body.id)
      assert.deepEqual([row?.company_id, row?.user_id, row?.status], [acme.companyId, member.id, 'recording'])
    })

    test('POST: missing fields, another company, a user of another company: 422 and nothing stored', async () => {
      const count = async () => (await rawRows<{ id: number }>(t.db, sql`select id from meet_transcriptions`)).length
      const before = await count()
      const cases: [object, string, string][] = [
        [{ company_id: acme.companyId, meet_id: 'm' }, 'user_id', "can't be blank"],
        [{ user_id: acme.userId, meet_id: 'm' }, 'company_id', "can't be blank"],
        [{ user_id: acme.userId, company_id: acme.companyId }, 'meet_id', "can't be blank"],
        [{ user_id: acme.userId, company_id: acme.companyId, meet_id: '  ' }, 'meet_id', "can't be blank"],
        [{ user_id: acme.userId, company_id: acme.companyId, meet_id: 'm'.repeat(256) }, 'meet_id', 'is too long (maximum is 255 characters)'],
        [{ user_id: 'x', company_id: acme.companyId, meet_id: 'm' }, 'user_id', 'must be an integer'],
        [{ user_id: acme.userId, company_id: other.companyId, meet_id: 'm' }, 'company_id', 'does not exist'],
        [{ user_id: other.userId, company_id: acme.companyId, meet_id: 'm' }, 'user_id', 'does not exist'],
        [{ user_id: 999_999, company_id: acme.companyId, meet_id: 'm' }, 'user_id', 'does not exist'],
      ]
      for (const [payload, field, message] of cases) {
        const res = await request(acme, 'POST', '', payload)
        assert.equal(res.statusCode, 422, JSON.stringify(payload))
        assert.deepEqual(res.json().error.details, { [field]: [message] }, JSON.stringify(payload))
      }
      assert.equal(await count(), before)
    })

    test('details by ?id= and /:id with the transcript; another company: 404', async () => {
      const created = await create(acme)
      for (const url of [`?id=${created.id}`, `/${created.id}`, `?id=${created.id}&company_id=${acme.companyId}`]) {
        const res = await request(acme, 'GET', url)
        assert.equal(res.statusCode, 200, url)
        assert.deepEqual(res.json(), created)
      }
      for (const [who, url] of [
        [other, `?id=${created.id}`],
        [other, `/${created.id}`],
        [acme, `?id=${created.id}&company_id=${other.companyId}`],
        [acme, '?id=999999'],
      ] as const) {
        const res = await request(who, 'GET', url)
        assert.equal(res.statusCode, 404, url)
      }
    })

    test('stop: recording → stopped; a date-time with offset, or a date at midnight in the company zone', async () => {
      const a = await create(acme)
      const res = await request(acme, 'PUT', `/${a.id}/stop`, { stopped_at: '2026-11-22T10:30:00.250+02:00' })
      assert.equal(res.statusCode, 200)
      assert.equal(res.json().status, 'stopped')
      assert.equal(res.json().stopped_at, '2026-11-22T08:30:00.250Z')
      assert.equal((await rowOf(a.id))?.stopped_at?.toISOString(), '2026-11-22T08:30:00.250Z')

      const b = await create(acme)
      const day = await request(acme, 'PUT', `/${b.id}/stop`, 'stopped_at=2026-11-22')
      assert.equal(day.statusCode, 200, day.body)
      assert.equal(day.json().stopped_at, '2026-11-22T03:00:00.000Z') // America/Sao_Paulo is UTC-3
    })

    test('stop: bad stopped_at is 422; from any state but recording 422; the record unchanged', async () => {
      const a = await create(acme)
      const before = await rowOf(a.id)
      for (const payload of [{}, { stopped_at: '' }, { stopped_at: '2026-13-01' }, { stopped_at: '2026-11-22T10:00:00' }, { stopped_at: 'yesterday' }]) {
        await expectRefused(await request(acme, 'PUT', `/${a.id}/stop`, payload), 'stopped_at', a.id, before)
      }
      const s = await stopped(acme)
      await expectRefused(await request(acme, 'PUT', `/${s.id}/stop`, { stopped_at: '2026-11-23' }), 'status', s.id, await rowOf(s.id))
      const again = await request(acme, 'PUT', `/${s.id}/stop`, { stopped_at: '2026-11-23' })
      assert.deepEqual(again.json().error.details, { status: ['is stopped: only a recording transcription can be stopped'] })
      assert.equal((await request(other, 'PUT', `/${a.id}/stop`, { stopped_at: '2026-11-23' })).statusCode, 404)
      assert.equal((await request(acme, 'PUT', '/999999/stop', { stopped_at: '2026-11-23' })).statusCode, 404)
    })

    test('stop twice at once: exactly one wins', async () => {
      const a = await create(acme)
      const results = await Promise.all([
        request(acme, 'PUT', `/${a.id}/stop`, { stopped_at: '2026-11-22T10:00:00Z' }),
        request(acme, 'PUT', `/${a.id}/stop`, { stopped_at: '2026-11-22T11:00:00Z' }),
      ])
      assert.deepEqual(results.map((r) => r.statusCode).sort(), [200, 422])
      const winner = results.find((r) => r.statusCode === 200)?.json()
      assert.equal((await rowOf(a.id))?.stopped_at?.toISOString(), winner.stopped_at)
    })

    test('transcript: refused while recording; then transcribed; a later one replaces it', async () => {
      const a = await create(acme)
      await expectRefused(await request(acme, 'PUT', `/${a.id}/transcript`, { transcript: 'Hello' }), 'status', a.id, await rowOf(a.id))
      const refused = await request(acme, 'PUT', `/${a.id}/transcript`, { transcript: 'Hello' })
      assert.deepEqual(refused.json().error.details, { status: ['is recording: stop it before sending its transcript'] })

      const s = await stopped(acme)
      const first = await request(acme, 'PUT', `/${s.id}/transcript`, { transcript: 'Olá 👋 mundo' })
      assert.equal(first.statusCode, 200)
      assert.equal(first.json().status, 'transcribed')
      assert.equal(first.json().transcript, 'Olá 👋 mundo')
      assert.equal((await rowOf(s.id))?.transcript_length, 11) // code points, not UTF-16 units
      const second = await request(acme, 'PUT', `/${s.id}/transcript`, 'transcript=Second+take')
      assert.equal(second.statusCode, 200)
      assert.equal(second.json().transcript, 'Second take')
      assert.deepEqual([(await rowOf(s.id))?.transcript, (await rowOf(s.id))?.transcript_length], ['Second take', 11])
      assert.equal(second.json().stopped_at, s.stopped_at)

      for (const payload of [{}, { transcript: '' }, { transcript: ' \n ' }, { transcript: 5 }]) {
        await expectRefused(await request(acme, 'PUT', `/${s.id}/transcript`, payload), 'transcript', s.id, await rowOf(s.id))
      }
      assert.equal((await request(other, 'PUT', `/${s.id}/transcript`, { transcript: 'x' })).statusCode, 404)
    })

    test('transcript: beyond 255 characters and 1 MiB up to the 10 MiB body; over it 413', async () => {
      const s = await stopped(acme)
      const big = 'word '.repeat(1_200_000) // 6 MB
      const res = await request(acme, 'PUT', `/${s.id}/transcript`, { transcript: big })
      assert.equal(res.statusCode, 200)
      assert.equal((await rowOf(s.id))?.transcript_length, big.length)
      const list = await request(acme, 'GET', `?page=1&per_page=100&user_id=${acme.userId}&company_id=${acme.companyId}`)
      const item = list.json().data.find((i: { id: number }) => i.id === s.id)
      assert.equal(item.transcript_length, big.length)

      const before = await rowOf(s.id)
      const tooBig = await request(acme, 'PUT', `/${s.id}/transcript`, { transcript: 'x'.repeat(10 * 1024 * 1024) })
      assert.equal(tooBig.statusCode, 413)
      assert.deepEqual(await rowOf(s.id), before)
      // Other operations keep the 1 MiB limit.
      const elsewhere = await request(acme, 'POST', '', { user_id: acme.userId, company_id: acme.companyId, meet_id: 'm', pad: 'x'.repeat(1024 * 1024) })
      assert.equal(elsewhere.statusCode, 413)
    })

    test('to_task: any state, replaces an earlier link, writes meet_transcription_linked on the task contact', async () => {
      const contact = await addContact(t.db, acme.companyId, acme.userId)
      const contact2 = await addContact(t.db, acme.companyId, acme.userId)
      const task = await addTask(t.db, acme.companyId, { contactId: contact.id, assignedToId: acme.userId })
      const task2 = await addTask(t.db, acme.companyId, { contactId: contact2.id, assignedToId: acme.userId })
      const recording = await create(acme)
      const res = await request(acme, 'PUT', `/${recording.id}/to_task`, { task_id: task.id })
      assert.equal(res.statusCode, 200)
      assert.equal(res.json().task_id, task.id)
      assert.equal(res.json().status, 'recording')

      const relinked = await request(acme, 'PUT', `/${recording.id}/to_task`, `task_id=${task2.id}`)
      assert.equal(relinked.json().task_id, task2.id)
      assert.equal((await rowOf(recording.id))?.task_id, task2.id)

      const events = await rawRows<{ contact_id: number; user_id: number | null; data: Record<string, unknown> }>(t.db, sql`
        select contact_id, user_id, data from contact_events
        where company_id = ${acme.companyId} and kind = 'meet_transcription_linked' order by id`)
      assert.deepEqual(
        events.map((e) => [e.contact_id, e.user_id, e.data]),
        [
          [contact.id, acme.userId, { meet_transcription_id: recording.id, meet_id: recording.meet_id, task_id: task.id }],
          [contact2.id, acme.userId, { meet_transcription_id: recording.id, meet_id: recording.meet_id, task_id: task2.id }],
        ],
      )

      const s = await stopped(acme)
      assert.equal((await request(acme, 'PUT', `/${s.id}/to_task`, { task_id: task.id })).json().status, 'stopped')
    })

    test('to_task counts a transcription once in with_task, however often and concurrently it is linked', async () => {
      const owner = await addUser(t.db, acme.companyId)
      const contact = await addContact(t.db, acme.companyId, acme.userId)
      const task = await addTask(t.db, acme.companyId, { contactId: contact.id, assignedToId: owner.id })
      const count = async (flag: string) =>
        (await request(acme, 'GET', `/count?user_id=${owner.id}&company_id=${acme.companyId}${flag}`)).json<{ count: number }>().count
      const a = await create(acme, owner.id)
      await create(acme, owner.id)
      const results = await Promise.all([1, 2, 3].map(() => request(acme, 'PUT', `/${a.id}/to_task`, { task_id: task.id })))
      assert.deepEqual(results.map((r) => r.statusCode), [200, 200, 200])
      await request(acme, 'PUT', `/${a.id}/to_task`, { task_id: task.id })
      assert.deepEqual([await count(''), await count('&with_task=true'), await count('&without_task=true')], [2, 1, 1])
    })

    test('to_task: a task of another company or none is 422, nothing changes; another company transcription 404', async () => {
      const theirContact = await addContact(t.db, other.companyId, other.userId)
      const theirTask = await addTask(t.db, other.companyId, { contactId: theirContact.id, assignedToId: other.userId })
      const a = await create(acme)
      const eventsBefore = await eventCount()
      for (const payload of [{ task_id: theirTask.id }, { task_id: 999_999 }, {}, { task_id: 'abc' }]) {
        await expectRefused(await request(acme, 'PUT', `/${a.id}/to_task`, payload), 'task_id', a.id, await rowOf(a.id))
      }
      assert.equal((await request(other, 'PUT', `/${a.id}/to_task`, { task_id: theirTask.id })).statusCode, 404)
      assert.equal(await eventCount(), eventsBefore)
    })

    test('every write answers exactly what a later GET shows', async () => {
      const contact = await addContact(t.db, acme.companyId, acme.userId)
      const task = await addTask(t.db, acme.companyId, { contactId: contact.id, assignedToId: acme.userId })
      const created = await request(acme, 'POST', '', { user_id: acme.userId, company_id: acme.companyId, meet_id: 'same-as-get' })
      const id = created.json<{ id: number }>().id
      const writes: [string, () => Promise<Reply>][] = [
        ['create', () => Promise.resolve(created)],
        ['to_task', () => request(acme, 'PUT', `/${id}/to_task`, { task_id: task.id })],
        // Midnight in São Paulo of year 1, by its local mean time: still year 1 in UTC.
        ['stop', () => request(acme, 'PUT', `/${id}/stop`, { stopped_at: '0001-01-01' })],
        ['transcript', () => request(acme, 'PUT', `/${id}/transcript`, { transcript: 'Once upon a time' })],
      ]
      for (const [what, write] of writes) {
        const res = await write()
        assert.ok(res.statusCode === 200 || res.statusCode === 201, `${what}: ${res.body}`)
        assert.deepEqual(Object.keys(res.json()).sort(), RECORD_KEYS, what)
        assert.equal(res.body, (await request(acme, 'GET', `/${id}`)).body, what)
      }
      const final = await request(acme, 'GET', `?id=${id}`)
      assert.equal(final.json().stopped_at, '0001-01-01T03:06:28.000Z')
    })

    test('stop with a day whose midnight in the company zone is before year 1: 422, nothing changes', async () => {
      const tokyo = await tenant(t.db, { timezone: 'Asia/Tokyo' })
      const a = await create(tokyo)
      const before = await rowOf(a.id)
      const res = await request(tokyo, 'PUT', `/${a.id}/stop`, { stopped_at: '0001-01-01' })
      assert.equal(res.statusCode, 422)
      assert.deepEqual(Object.keys(res.json().error.details), ['stopped_at'])
      assert.deepEqual(await rowOf(a.id), before)
      // Out of range answers before the subject: as the check order has it for parameters.
      assert.equal((await request(tokyo, 'PUT', '/999999/stop', { stopped_at: '0001-01-01' })).statusCode, 422)
    })

    describe('lists and counts', () => {
      let owner: { id: number }
      const linked: number[] = []
      const unlinked: number[] = []
      before(async () => {
        owner = await addUser(t.db, acme.companyId)
        const contact = await addContact(t.db, acme.companyId, acme.userId)
        const task = await addTask(t.db, acme.companyId, { contactId: contact.id, assignedToId: owner.id })
        for (let i = 0; i < 5; i++) {
          const created = await create(acme, owner.id)
          if (i % 2 === 1) {
            await request(acme, 'PUT', `/${created.id}/to_task`, { task_id: task.id })
            linked.push(created.id)
          } else unlinked.push(created.id)
        }
      })
      const q = (extra: string) => `?user_id=${owner.id}&company_id=${acme.companyId}${extra}`
      const ids = (res: Reply) => res.json<{ data: { id: number }[] }>().data.map((i) => i.id)

      test('the transcriptions of user_id, id ascending, paged, without their text', async () => {
        const res = await request(acme, 'GET', q('&page=1&per_page=3'))
        assert.equal(res.statusCode, 200)
        assert.deepEqual(ids(res), [...linked, ...unlinked].sort((a, b) => a - b).slice(0, 3))
        assert.deepEqual(res.json().meta, { page: 1, per_page: 3, total_count: 5, total_pages: 2 })
        assert.deepEqual(Object.keys(res.json().data[0]).sort(), ITEM_KEYS)
        assert.equal(res.json().data[0].transcript_length, null)
        assert.match(String(res.headers.link), /rel="next"/)
      })

      test('with_task and without_task, in the list and the count', async () => {
        assert.deepEqual(ids(await request(acme, 'GET', q('&page=1&with_task=true'))), linked)
        assert.deepEqual(ids(await request(acme, 'GET', q('&page=1&without_task=true'))), unlinked)
        assert.deepEqual((await request(acme, 'GET', `/count${q('')}`)).json(), { count: 5 })
        assert.deepEqual((await request(acme, 'GET', `/count${q('&with_task=true')}`)).json(), { count: 2 })
        assert.deepEqual((await request(acme, 'GET', `/count${q('&without_task=true')}`)).json(), { count: 3 })
      })

      test('every page of every filter, first half and second half alike; past the end: the total and no rows', async () => {
        const all = [...linked, ...unlinked].sort((a, b) => a - b)
        for (const [flag, expected] of [['', all], ['&with_task=true', linked], ['&without_task=true', unlinked]] as const) {
          for (const perPage of [1, 2, 3, 100]) {
            const pages = Math.ceil(expected.length / perPage)
            for (let page = 1; page <= pages + 1; page++) {
              const res = await request(acme, 'GET', q(`&page=${page}&per_page=${perPage}${flag}`))
              const label = `${flag} page ${page} per_page ${perPage}`
              assert.equal(res.statusCode, 200, label)
              assert.deepEqual(ids(res), expected.slice((page - 1) * perPage, page * perPage), label)
              assert.deepEqual(res.json().meta, { page, per_page: perPage, total_count: expected.length, total_pages: pages }, label)
            }
          }
        }
        const far = await request(acme, 'GET', q('&page=1000000&per_page=100'))
        assert.deepEqual([far.statusCode, far.json().data, far.json().meta.total_count], [200, [], 5])
      })

      test('a list item is the record without its transcript, with transcript_length', async () => {
        const s = await stopped(acme)
        const written = await request(acme, 'PUT', `/${s.id}/transcript`, { transcript: 'Olá 👋' })
        const listed = await request(acme, 'GET', `?page=1&per_page=100&user_id=${acme.userId}&company_id=${acme.companyId}`)
        const item = listed.json<{ data: { id: number }[] }>().data.find((i) => i.id === s.id)
        const { transcript, ...rest } = written.json<{ transcript: string }>()
        assert.equal(transcript, 'Olá 👋')
        assert.deepEqual(item, { ...rest, transcript_length: 5 })
      })

      test('required parameters, flag pairs and bad flags: 422', async () => {
        const cases: [string, string[]][] = [
          ['', ['company_id', 'page', 'user_id']],
          [`?page=1&user_id=${owner.id}`, ['company_id']],
          [q(''), ['page']],
          [q('&page=1&with_task=true&without_task=true'), ['with_task', 'without_task']],
          [q('&page=1&with_task=yes'), ['with_task']],
          [`/count?user_id=${owner.id}`, ['company_id']],
          [`/count?company_id=${acme.companyId}`, ['user_id']],
          [`/count${q('&with_task=true&without_task=true')}`, ['with_task', 'without_task']],
        ]
        for (const [url, fields] of cases) {
          const res = await request(acme, 'GET', url)
          assert.equal(res.statusCode, 422, url)
          assert.deepEqual(Object.keys(res.json().error.details).sort(), fields, url)
        }
      })

      test('company_id other than yours: 404; a user of another company: empty', async () => {
        for (const url of [`?page=1&user_id=${owner.id}&company_id=${other.companyId}`, `/count?user_id=${owner.id}&company_id=${other.companyId}`]) {
          assert.equal((await request(acme, 'GET', url)).statusCode, 404, url)
        }
        const theirs = await request(other, 'GET', `?page=1&user_id=${owner.id}&company_id=${other.companyId}`)
        assert.equal(theirs.statusCode, 200)
        assert.deepEqual(theirs.json().data, [])
        assert.deepEqual((await request(other, 'GET', `/count?user_id=${owner.id}&company_id=${other.companyId}`)).json(), { count: 0 })
      })
    })
  })
}
