// docs/access-control.md states every operation's scope and role: held to the route table,
// so a new operation, or a changed scope, must be written into the page.
import assert from 'node:assert/strict'
import { readFile } from 'node:fs/promises'
import { after, before, describe, test } from 'node:test'
import { SCOPES } from '../../src/scopes.js'
import { backends, startApp, type TestApp } from '../helpers/app.js'
import { scopesTable } from './docs-table.js'

const [backend] = backends()
if (!backend) throw new Error('no backend')

describe('docs/access-control.md', () => {
  let t: TestApp
  let page: string
  before(async () => {
    t = await startApp(backend)
    page = await readFile(new URL('../../docs/access-control.md', import.meta.url), 'utf8')
  })
  after(() => t.close())

  test('its table of operations is the route table, row for row', () => {
    assert.ok(page.includes(scopesTable(t.app.accessTable)), `docs/access-control.md should hold:\n${scopesTable(t.app.accessTable)}`)
  })

  test('it names every scope of the catalogue, and the README links to it', async () => {
    for (const scope of SCOPES) assert.ok(page.includes(`\`${scope}\``), scope)
    const readme = await readFile(new URL('../../README.md', import.meta.url), 'utf8')
    assert.ok(readme.includes('(docs/access-control.md)'))
  })
})
