// The demo company as a newcomer meets it: every resource has realistic data, through the API.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { seedDemoIfEmpty } from '../src/demo/index.js'
import { backends, startApp, type TestApp } from './helpers/app.js'

const [backend] = backends()

describe('demo data', () => {
  let t: TestApp
  let auth: { authorization: string }
  const get = async (url: string): Promise<Record<string, any>> => {
    const res = await t.app.inject({ url: `/api/v1/${url}`, headers: auth })
    assert.equal(res.statusCode, 200, `${url}: ${res.body}`)
    return res.json<Record<string, any>>()
  }
  const count = async (url: string): Promise<number> => Number((await get(url)).count)
  const total = async (url: string): Promise<number> => Number((await get(url)).meta.total_count)

  before(async () => {
    if (!backend) throw new Error('no backend')
    t = await startApp(backend)
    const demo = await seedDemoIfEmpty(t.db)
    assert.ok(demo)
    auth = { authorization: `Bearer ${demo.token}` }
  })
  after(() => t.close())

  test('seeds once: a second call on a database with a company does nothing', async () => {
    assert.equal(await seedDemoIfEmpty(t.db), undefined)
  })

  test('users, contacts with stages, tags and custom fields', async () => {
    const me = await get('users/authorize_api')
    assert.equal(me.company.name, 'Acme Sales')
    assert.equal(me.user.role, 'admin')
    assert.ok((await get('users?page=1')).meta.total_count >= 3)

    const contacts = await get('contacts?page=1&per_page=100')
    assert.ok(contacts.meta.total_count >= 150, String(contacts.meta.total_count))
    const stages = new Set(contacts.data.map((c: { stage: string }) => c.stage))
    assert.ok(stages.size >= 6, [...stages].join())
    assert.ok(contacts.data.some((c: { tags: unknown[] }) => c.tags.length > 0))
    assert.ok(contacts.data.some((c: { custom_fields: unknown[] }) => c.custom_fields.length > 0))
    assert.ok((await get('tags')).meta.total_count >= 3)
    assert.ok((await get('custom_fields')).data.some((f: { kind: string }) => f.kind === 'dropdown'))
  })

  test('flows with contacts, and tasks in every status', async () => {
    const flows = await get('flows?page=1')
    assert.ok(flows.data.some((f: { contacts_count: number }) => f.contacts_count > 0))
    assert.ok(flows.data.some((f: { status: string }) => f.status === 'paused'))
    for (const status of ['today', 'overdue', 'future']) {
      assert.ok((await get(`tasks?page=1&status=${status}`)).meta.total_count > 0, status)
    }
    assert.ok((await get('tasks?page=1&done=true')).meta.total_count > 0)
  })

  test('leads linked and not, transcriptions in every state, WhatsApp chats', async () => {
    const me = await get('users/authorize_api')
    const userIds: number[] = (await get('users?page=1')).data.map((u: { id: number }) => u.id)
    let linked = 0
    let unlinked = 0
    const states = new Set<string>()
    for (const userId of userIds) {
      linked += await count(`leads/count?user_id=${userId}&with_contact=true`)
      unlinked += await count(`leads/count?user_id=${userId}&without_contact=true`)
      const list = await get(`meet_transcriptions?page=1&per_page=100&user_id=${userId}&company_id=${me.company.id}`)
      for (const item of list.data) states.add(item.status)
    }
    assert.ok(linked > 0 && unlinked > 0, `${linked} linked, ${unlinked} unlinked`)
    assert.deepEqual([...states].sort(), ['recording', 'stopped', 'transcribed'])

    let chats = 0
    for (let contactId = 1; contactId <= 40 && chats === 0; contactId++) {
      chats += await total(`whatsapp_messages/chats?page=1&contact_id=${contactId}`)
    }
    assert.ok(chats > 0)
  })
})
