// The fuzzed app: the production app on a fresh database holding the demo company (the
// caller) and a second, small company (ids the caller must not see), with pools of the ids
// that exist so generated requests sometimes hit real records.
import { seedDemoIfEmpty } from '../../src/demo/index.js'
import { backends, startApp, type TestApp } from '../helpers/app.js'
import { tenant } from '../helpers/factories.js'
import { addFlow, addTask } from '../helpers/flows-factories.js'
import { operationsOf, type Operation } from './operations.js'

/** Ids that exist, by resource, with the names and options the generators draw from. */
export interface Pools {
  users: number[]
  contacts: number[]
  tags: number[]
  custom_fields: number[]
  flows: number[]
  tasks: number[]
  leads: number[]
  meet_transcriptions: number[]
  webhooks: number[]
  events: number[]
  companies: number[]
  /** Records of the other company: must answer like missing ones. */
  foreign: number[]
  /** The custom field definitions, to write values that fit their kind. */
  fields: { field: string; kind: string; options: { name: string }[] }[]
  fieldNames: string[]
}

export interface Fuzzed {
  t: TestApp
  /** The message of each error the app logged, by request id (the cause behind a 5xx). */
  errors: Map<string, string>
  token: string
  operations: Operation[]
  pools: Pools
  close(): Promise<void>
}

export async function startFuzzedApp(): Promise<Fuzzed> {
  // The last backend is PostgreSQL when TEST_DATABASE_URL is set, else the default one.
  const backend = backends().at(-1)
  if (!backend) throw new Error('no backend')
  const errors = new Map<string, string>()
  const stream = {
    write(line: string) {
      try {
        const entry = JSON.parse(line) as { reqId?: string; msg?: string; err?: { type?: string; code?: string; message?: string } }
        if (entry.reqId === undefined) return
        const err = entry.err
        errors.set(entry.reqId, err ? `${err.type ?? 'Error'}${err.code ? ` ${err.code}` : ''}: ${err.message ?? ''}` : (entry.msg ?? ''))
      } catch {
        // not a JSON line: nothing to attribute
      }
    },
  }
  const t = await startApp(backend, { deps: { logger: { level: 'error', stream } } })
  const demo = await seedDemoIfEmpty(t.db)
  if (!demo) throw new Error('the fresh database already had a company')
  const headers = { authorization: `Bearer ${demo.token}` }

  const get = async (url: string): Promise<any> => {
    const res = await t.app.inject({ url: `/api/v1/${url}`, headers })
    if (res.statusCode !== 200) throw new Error(`fixture GET ${url}: ${res.statusCode} ${res.body}`)
    return res.json()
  }
  const ids = (body: { data: { id: number }[] }) => body.data.map((r) => r.id)
  const me = await get('users/authorize_api')

  const users = ids(await get('users?page=1&per_page=100'))
  const contacts = ids(await get('contacts?page=1&per_page=100'))
  const fields = (await get('custom_fields')).data as { id: number; field: string; kind: string; options: { name: string }[] }[]
  const tasks = ids(await get('tasks?page=1&per_page=100'))
  const leads: number[] = []
  const meets: number[] = []
  for (const user of users) {
    leads.push(...ids(await get(`leads?page=1&per_page=100&user_id=${user}`)))
    meets.push(...ids(await get(`meet_transcriptions?page=1&per_page=100&user_id=${user}&company_id=${me.company.id}`)))
  }

  // The other company: a user, a contact, a tag, a flow and a task of its own.
  const other = await tenant(t.db, { name: 'Other Co' })
  const post = async (url: string, payload: object) => {
    const res = await t.app.inject({ method: 'POST', url: `/api/v1/${url}`, headers: other.auth, payload })
    if (res.statusCode !== 201) throw new Error(`fixture POST ${url}: ${res.statusCode} ${res.body}`)
    return res.json<{ id: number }>().id
  }
  const otherContact = await post('contacts', { first_name: 'Olga', email: 'olga@other.example' })
  const otherTag = await post('tags', { name: 'Theirs', color: '#000' })
  const otherFlow = await addFlow(t.db, other.companyId, { userId: other.userId })
  const otherTask = await addTask(t.db, other.companyId, otherContact, { due: '2026-01-01' })
  // Webhook subscriptions on a public address literal (saving one checks the address; no DNS needed).
  const hook = { url: 'https://93.184.215.14/hook', events: ['*'] }
  const otherWebhook = await post('webhooks', hook)
  const webhooks: number[] = []
  for (let i = 0; i < 3; i++) {
    const res = await t.app.inject({ method: 'POST', url: '/api/v1/webhooks', headers, payload: hook })
    if (res.statusCode !== 201) throw new Error(`fixture POST webhooks: ${res.statusCode} ${res.body}`)
    webhooks.push(res.json<{ id: number }>().id)
  }

  const pools: Pools = {
    users,
    contacts,
    tags: ids(await get('tags')),
    custom_fields: fields.map((f) => f.id),
    flows: ids(await get('flows?page=1&per_page=100')),
    tasks,
    leads,
    meet_transcriptions: meets,
    webhooks,
    events: ids(await get('events?page=1&per_page=100')),
    companies: [me.company.id, other.companyId],
    foreign: [other.userId, otherContact, otherTag, otherFlow.id, otherTask.id, otherWebhook],
    fields,
    fieldNames: fields.map((f) => f.field),
  }
  const doc = await t.app.inject({ url: '/docs/v1/openapi.json' })
  return {
    t,
    errors,
    token: demo.token,
    operations: operationsOf(doc.json()),
    pools,
    close: () => t.close(),
  }
}
