// `contacts import` and `contacts export` on the test's database, in this process: the
// import runs here with its progress on standard error, the export writes the CSV.
import assert from 'node:assert/strict'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, test } from 'node:test'
import { backends, startApp, type TestApp } from '../helpers/app.js'
import { runAdmin } from '../helpers/cli.js'
import { tenant } from '../helpers/factories.js'
import { rawRows, sql } from '../helpers/sql.js'

const [backend] = backends()
if (!backend) throw new Error('no backend')
let t: TestApp
let dir: string
before(async () => {
  t = await startApp(backend)
  dir = await mkdtemp(join(tmpdir(), 'engage-cli-import-'))
})
after(async () => {
  await t.close()
  await rm(dir, { recursive: true, force: true })
})

test('contacts import: the file imported here, a progress line on stderr, the record on stdout; contacts export writes it back', async () => {
  const who = await tenant(t.db)
  const file = join(dir, 'people.csv')
  await writeFile(file, 'Vorname;E-Mail;Stadt\nJonas;jonas@example.de;Köln\nMia;mia@example.de;=SUM(A1)\nBad;bad;x\n')
  const mapping = JSON.stringify({ Vorname: 'first_name', 'E-Mail': 'email', Stadt: 'city' })
  const run = await runAdmin(['contacts', 'import', '--company', String(who.companyId), '--user', String(who.userId), '--file', file, '--mapping', mapping, '--json'], { database: t.db })
  assert.equal(run.code, 0, run.stderr)
  const record = JSON.parse(run.stdout) as { state: string; separator: string; counts: Record<string, number> }
  assert.equal(record.state, 'done')
  assert.equal(record.separator, 'semicolon')
  assert.deepEqual(record.counts, { created: 2, updated: 0, skipped: 0, rejected: 1 })
  assert.match(run.stderr, /\r\[#+\] 100%? *\d*%? *3 rows: 2 created, 0 updated, 0 skipped, 1 rejected|\r\[[#-]+\] +\d+% +3 rows: 2 created/)
  const cities = await rawRows<{ city: string }>(t.db, sql`select city from contacts where company_id = ${who.companyId} order by email`)
  assert.deepEqual(cities.map((c) => c.city), ['Köln', '=SUM(A1)'])

  const exported = await runAdmin(['contacts', 'export', '--company', String(who.companyId), '--search', 'mia'], { database: t.db })
  assert.equal(exported.code, 0, exported.stderr)
  const lines = exported.stdout.slice(1).split('\r\n').filter((line) => line !== '')
  assert.equal(lines.length, 2)
  assert.match(lines[1] ?? '', /,Mia,,mia@example\.de,.*,'=SUM\(A1\),/)

  const missing = await runAdmin(['contacts', 'import', '--company', String(who.companyId), '--user', String(who.userId), '--file', join(dir, 'nope.csv')], { database: t.db })
  assert.equal(missing.code, 1)
  assert.match(missing.stderr, /cannot read .*nope\.csv: ENOENT/)
  assert.equal(missing.stdout, '')
})
