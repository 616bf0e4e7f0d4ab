// README's SDK example, run as a reader runs it: a file in the project importing
// '@engage/sdk' by name, so the import resolves through node_modules to the workspace's
// built dist/ (which `npm ci` makes, through the root's `prepare`), against a real server.
// The only change to the README's code is the server's address.
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { after, before, describe, test } from 'node:test'
import { sql, rawRows } from '../helpers/sql.js'
import { backends, startApp, type TestApp } from '../helpers/app.js'
import { tenant, type Tenant } from '../helpers/factories.js'
import { addFlow } from '../helpers/flows-factories.js'

const root = fileURLToPath(new URL('../..', import.meta.url))
const [backend] = backends()

/** The ```ts block of README.md that imports '@engage/sdk'. */
function readmeExample(): string {
  const readme = readFileSync(join(root, 'README.md'), 'utf8')
  const block = [...readme.matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1] ?? '').find((code) => code.includes("from '@engage/sdk'"))
  assert.ok(block, 'README.md shows the SDK example')
  return block
}

describe("README's SDK example from the project root", () => {
  let t: TestApp
  let owner: Tenant
  let baseUrl: string
  const folder = mkdtempSync(join(root, '.readme-sdk-'))
  before(async () => {
    if (!backend) throw new Error('no backend')
    t = await startApp(backend)
    owner = await tenant(t.db)
    await t.app.listen({ port: 0, host: '127.0.0.1' })
    baseUrl = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`
  })
  after(async () => {
    rmSync(folder, { recursive: true, force: true })
    await t.close()
  })

  test("'@engage/sdk' resolves through node_modules to the workspace's built dist/", () => {
    const resolved = fileURLToPath(import.meta.resolve('@engage/sdk', `file://${root}/package.json`))
    assert.equal(realpathSync(join(root, 'node_modules', '@engage', 'sdk')), join(root, 'sdk'), 'npm links the workspace')
    assert.equal(realpathSync(resolved), join(root, 'sdk', 'dist', 'index.js'))
    assert.ok(existsSync(join(root, 'sdk', 'dist', 'index.d.ts')), 'types for TypeScript users')
  })

  test('runs as written: creates the contact, adds it to flow 1, lists it, reports the duplicate', async () => {
    const flow = await addFlow(t.db, owner.companyId, { userId: owner.userId })
    assert.equal(flow.id, 1, 'the example adds the contact to flow 1')
    const code = readmeExample().replace("'http://localhost:3000'", `'${baseUrl}'`)
    assert.ok(code.includes(baseUrl), 'the example names the server at one place')
    const file = join(folder, 'example.ts')
    writeFileSync(file, code)

    const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', file], {
      cwd: root,
      env: { ...process.env, ENGAGE_TOKEN: owner.token },
    })

    const [contact] = await rawRows<{ id: number; email: string }>(
      t.db,
      sql`select id, email from contacts where company_id = ${owner.companyId} and deleted_at is null`,
    )
    assert.ok(contact, 'the contact was created')
    // A new address each run (the example can be run again): ana.<time>@globex.example.
    assert.match(contact.email, /^ana\.\d+@globex\.example$/)
    assert.equal(stdout, `${contact.id} ${contact.email}\nalready there\n`)
    const enrolled = await rawRows(t.db, sql`select 1 from flow_enrollments where flow_id = ${flow.id} and contact_id = ${contact.id}`)
    assert.equal(enrolled.length, 1, 'the contact is in the flow')
  })
})
