// flow create, task create and task complete, run in this process on the test's database,
// checked by their output and by the rows they leave (test/cli/admin.test.ts runs the
// command line as a process).
import assert from 'node:assert/strict'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import { buildApp } from '../../src/app.js'
import type { Db } from '../../src/db/db.js'
import { dayIn } from '../../src/modules/tasks/task-dates.js'
import { backends, testConfig } from '../helpers/app.js'
import { adminDatabase, expectFailure, expectJson, type AdminDatabase } from '../helpers/cli.js'
import { addUser, tenant, type Tenant } from '../helpers/factories.js'
import { addContact } from '../helpers/flows-factories.js'
import { rawRows, sql } from '../helpers/sql.js'

for (const backend of backends()) {
  describe(`flow and task admin commands (${backend.name})`, () => {
    let admin: AdminDatabase
    let dir: string
    let acme: Tenant
    let other: Tenant
    let memberId: number
    let contact: { id: number; user_id: number }

    /** Looks at the database the commands work on. */
    const look = <T>(fn: (db: Db) => Promise<T>) => fn(admin.db)
    const runAdmin = (args: string[]) => admin.run(args)

    const stepsFile = (name: string, content: string) => {
      const file = join(dir, name)
      writeFileSync(file, content)
      return file
    }

    before(async () => {
      dir = mkdtempSync(join(tmpdir(), 'engage-flows-cli-'))
      admin = await adminDatabase(backend)
      await look(async (db) => {
        acme = await tenant(db, { timezone: 'Asia/Tokyo' })
        other = await tenant(db)
        memberId = (await addUser(db, acme.companyId)).id
        contact = await addContact(db, acme.companyId, { userId: memberId, firstName: 'Ana', lastName: 'Souza' })
      })
    })
    after(async () => {
      await admin.drop()
      rmSync(dir, { recursive: true, force: true })
    })

    test('help lists the commands and their options', async () => {
      const general = await runAdmin(['--help'])
      for (const name of ['flow create', 'task create', 'task complete']) assert.ok(general.stdout.includes(name), name)
      const help = await runAdmin(['task', 'create', '--help'])
      assert.equal(help.code, 0)
      assert.match(help.stdout, /--assigned-to ID/)
      assert.match(help.stdout, /--due yyyy-mm-dd/)
    })

    test('flow create: the flow as the API shows it, with its steps', async () => {
      const file = stepsFile('steps.json', JSON.stringify([
        { day: 0, kind: 'email', title: 'Welcome' },
        { day: '3', kind: 'phonecall', title: 'Call' },
      ]))
      const flow = expectJson(await runAdmin([
        'flow', 'create', '--company', String(acme.companyId), '--user', String(memberId), '--name', 'Onboarding',
        '--steps', file, '--json',
      ]))
      assert.deepEqual({ ...flow, id: undefined, created_at: undefined, updated_at: undefined }, {
        id: undefined,
        name: 'Onboarding',
        user_id: memberId,
        status: 'active',
        steps: [
          { position: 1, day: 0, kind: 'email', title: 'Welcome' },
          { position: 2, day: 3, kind: 'phonecall', title: 'Call' },
        ],
        contacts_count: 0,
        created_at: undefined,
        updated_at: undefined,
      })
      assert.match(String(flow.created_at), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/)
      const paused = expectJson(await runAdmin([
        'flow', 'create', '--company', String(acme.companyId), '--user', String(acme.userId), '--name', 'Later',
        '--steps', file, '--status', 'paused', '--json',
      ]))
      assert.equal(paused.status, 'paused')
      // --steps also takes the array itself.
      const inline = expectJson(await runAdmin([
        'flow', 'create', '--company', String(acme.companyId), '--user', String(memberId), '--name', 'Inline',
        '--steps', ' [{"day": 2, "kind": "linkedin", "title": "Connect"}]', '--json',
      ]))
      assert.deepEqual(inline.steps, [{ position: 1, day: 2, kind: 'linkedin', title: 'Connect' }])

      await look(async (db) => {
        const [row] = await rawRows<{ company_id: number }>(db, sql`select company_id from flows where id = ${Number(flow.id)}`)
        assert.equal(row?.company_id, acme.companyId)
        const steps = await rawRows<{ position: number; day: number; kind: string; title: string }>(db, sql`
          select position, day, kind, title from flow_steps where flow_id = ${Number(flow.id)}`)
        assert.deepEqual(steps.map((s) => [s.position, s.day, s.kind, s.title]).sort(), [[1, 0, 'email', 'Welcome'], [2, 3, 'phonecall', 'Call']])
      })
    })

    // The rules behind these messages are tested in-process in test/flows/commands.test.ts.
    test('flow create: bad input, one line on stderr, nothing written', async () => {
      const count = () => look(async (db) => (await rawRows<{ id: number }>(db, sql`select id from flows`)).length)
      const before = await count()
      const good = stepsFile('good.json', '[{"day": 1, "kind": "email", "title": "Hi"}]')
      const run = (steps: string, extra: string[] = []) =>
        runAdmin(['flow', 'create', '--company', String(acme.companyId), '--user', String(acme.userId), '--name', 'X', '--steps', steps, ...extra])
      expectFailure(await run(join(dir, 'missing.json')), /steps cannot be read \(ENOENT/)
      expectFailure(await run(stepsFile('day.json', '[{"day": 0, "kind": "email", "title": "a"}, {"day": -1, "kind": "email", "title": "b"}]')), /steps\[1\]\.day must be greater than or equal to 0/)
      expectFailure(
        await runAdmin(['flow', 'create', '--company', String(acme.companyId), '--user', String(other.userId), '--name', 'X', '--steps', good]),
        /^admin: --user is not a user of the company\n$/,
      )
      expectFailure(await run(good, ['--status', 'stopped']), /^admin: --status must be active or paused\n$/)
      expectFailure(await run('[{"day": 1, "kind": "fax", "title": "Hi"}]'), /^admin: steps\[0\]\.kind is not included in the list\n$/)
      expectFailure(await run('[{"day": 1,'), /^admin: --steps is not valid JSON\n$/)
      assert.equal(await count(), before)
    })

    test('task create and task complete', async () => {
      const created = expectJson(await runAdmin(['task', 'create', '--contact', String(contact.id), '--kind', 'phonecall', '--due', '2020-01-31', '--json']))
      assert.deepEqual({ ...created, id: undefined, created_at: undefined, updated_at: undefined }, {
        id: undefined,
        kind: 'phonecall',
        title: 'Call Ana Souza',
        due_date: '2020-01-31',
        done: false,
        done_at: null,
        status: 'overdue',
        assigned_to_id: memberId,
        flow_id: null,
        contact_id: contact.id,
        created_at: undefined,
        updated_at: undefined,
      })
      const titled = expectJson(await runAdmin([
        'task', 'create', '--contact', String(contact.id), '--kind', 'meeting', '--due', '2099-12-31', '--title', 'Quarterly review',
        '--assigned-to', String(acme.userId), '--json',
      ]))
      assert.deepEqual([titled.title, titled.assigned_to_id, titled.status], ['Quarterly review', acme.userId, 'future'])

      const started = Date.now()
      const done = expectJson(await runAdmin(['task', 'complete', '--id', String(created.id), '--json']))
      assert.equal(done.done, true)
      assert.equal(done.status, 'done')
      const doneAt = Date.parse(String(done.done_at))
      assert.ok(doneAt >= started - 1000 && doneAt <= Date.now(), String(done.done_at))
      expectFailure(await runAdmin(['task', 'complete', '--id', String(created.id)]), new RegExp(`task ${String(created.id)} is already done`))
      expectFailure(await runAdmin(['task', 'complete', '--id', '999999999']), /task 999999999 not found/)

      const readable = await runAdmin(['task', 'complete', '--id', String(titled.id)])
      assert.equal(readable.code, 0, readable.stderr)
      assert.match(readable.stdout, /^status: done$/m)

      const database = admin.handle
      const [row] = await rawRows<{ done: boolean; done_at: Date | null; done_on: string | null; company_id: number }>(database.db, sql`
        select done, done_at, done_on::text, company_id from tasks where id = ${Number(created.id)}`)
      assert.ok(row)
      assert.equal(row.done, true)
      assert.equal(row.done_at?.toISOString(), done.done_at)
      assert.equal(row.done_on, dayIn(new Date(doneAt), 'Asia/Tokyo'))
      assert.equal(row.company_id, acme.companyId)
      const events = await rawRows<{ data: Record<string, unknown>; user_id: number | null }>(database.db, sql`
        select data, user_id from contact_events where contact_id = ${contact.id} and kind = 'task_completed'`)
      assert.equal(events.length, 2)
      assert.deepEqual(events.find((e) => e.data.task_id === created.id)?.data, {
        task_id: created.id, title: 'Call Ana Souza', kind: 'phonecall', flow_id: null,
      })
      assert.equal(events[0]?.user_id, null)
      // The list (counted from counters) sees what the commands did.
      const app = await buildApp(testConfig(), { database })
      const res = await app.inject({ url: '/api/v1/tasks?page=1&done=true', headers: acme.auth })
      assert.deepEqual(res.json().data.map((task: { id: number }) => task.id).sort(), [created.id, titled.id].sort())
      assert.equal(res.json().meta.total_count, 2)
      const open = await app.inject({ url: '/api/v1/tasks?page=1&undone=true', headers: acme.auth })
      assert.equal(open.json().meta.total_count, 0)
      await app.close()
    })

    test('task create: bad input, one line on stderr, nothing written', async () => {
      const count = () => look(async (db) => (await rawRows<{ id: number }>(db, sql`select id from tasks`)).length)
      const before = await count()
      const run = (args: string[]) => runAdmin(['task', 'create', ...args])
      const c = String(contact.id)
      expectFailure(await run(['--contact', '999999999', '--kind', 'email', '--due', '2026-01-01']), /contact does not exist/)
      expectFailure(await run(['--contact', c, '--kind', 'fax', '--due', '2026-01-01']), /^admin: --kind must be phonecall, email, linkedin, social or meeting\n$/)
      expectFailure(await run(['--contact', c, '--kind', 'email', '--due', '2026-01-01', '--assigned-to', String(other.userId)]), /^admin: --assigned-to is not a user of the contact company\n$/)
      assert.equal(await count(), before)
    })
  })
}
