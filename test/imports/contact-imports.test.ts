// Contact imports through the API, with files shaped as real tools export them (HubSpot,
// Pipedrive, Google Sheets, Excel's UTF-16 "Unicode text" and its semicolon CSV in
// Windows-1252) and a file of broken rows; each row's outcome is checked in the database.
// The app runs no worker: each test runs the queued imports itself (runNextImport), so
// what runs when is the test's to say.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { runNextImport, defaultRunSettings, type RunSettings } from '../../src/modules/contact-imports/contact-imports.service.js'
import { backends, startApp, type TestApp } from '../helpers/app.js'
import { addContact, addCustomField, addTag } from '../helpers/contacts-factories.js'
import { addUser, tenant, type Tenant } from '../helpers/factories.js'
import { execute, rawRows, sql } from '../helpers/sql.js'

const MAX_BYTES = 64 * 1024

interface ContactRow {
  first_name: string
  last_name: string | null
  email: string
  business: string | null
  position: string | null
  telephone: string | null
  cellphone: string | null
  city: string | null
  state: string | null
  country: string | null
  url: string | null
  stage: string | null
  address: string | null
  tags: string
  fields: string
  user_id: number
}

for (const backend of backends()) {
  describe(`contact imports (${backend.name})`, () => {
    let t: TestApp
    let clock = new Date('2026-11-20T10:00:00.000Z')

    before(async () => {
      t = await startApp(backend, { config: { contactImportMaxBytes: MAX_BYTES }, deps: { clock: () => clock } })
    })
    after(() => t.close())

    const settings = (more: Partial<RunSettings> = {}): RunSettings => ({ ...defaultRunSettings(), ...more })

    /** Runs every queued import to its end. */
    async function runAll(more: Partial<RunSettings> = {}) {
      while (await runNextImport(t.db, () => clock, settings(more)));
    }

    function upload(who: Tenant, body: string | Buffer, query = '', type = 'text/csv') {
      return t.app.inject({
        method: 'POST',
        url: `/api/v1/contact_imports${query === '' ? '' : `?${query}`}`,
        headers: { ...who.auth, 'content-type': type },
        payload: body,
      })
    }

    async function imported(who: Tenant, body: string | Buffer, query = '') {
      const res = await upload(who, body, query)
      assert.equal(res.statusCode, 202, res.body)
      await runAll()
      const record = await t.app.inject({ method: 'GET', url: `/api/v1/contact_imports/${String(res.json().id)}`, headers: who.auth })
      assert.equal(record.statusCode, 200)
      return record.json<{
        id: number
        state: string
        counts: { created: number; updated: number; skipped: number; rejected: number }
        columns: { header: string; target: string }[]
        encoding: string
        separator: string
        rows_done: number
        progress: number
        failure: string | null
      }>()
    }

    async function errorsCsv(who: Tenant, id: number) {
      const res = await t.app.inject({ method: 'GET', url: `/api/v1/contact_imports/${String(id)}/errors`, headers: who.auth })
      assert.equal(res.statusCode, 200)
      assert.match(String(res.headers['content-type']), /^text\/csv/)
      assert.ok(res.body.startsWith('\ufeff'))
      return res.body.slice(1)
    }

    async function contacts(who: Tenant): Promise<ContactRow[]> {
      return rawRows<ContactRow>(t.db, sql`
        select c.first_name, c.last_name, c.email, c.business, c.position, c.telephone, c.cellphone, c.city, c.state,
               c.country, c.url, c.stage::text as stage, c.address, c.tags_json::text as tags,
               c.custom_fields_json::text as fields, c.user_id::int as user_id
          from contacts c where c.company_id = ${who.companyId} and c.deleted_at is null order by c.email`)
    }
    async function byEmail(who: Tenant, email: string): Promise<ContactRow> {
      const found = (await contacts(who)).find((c) => c.email === email)
      assert.ok(found, email)
      return found
    }

    test('a HubSpot export: the documented columns matched by themselves, a known email updated, the rest ignored', async () => {
      const who = await tenant(t.db)
      await addContact(t.db, who, { first_name: 'Old', email: 'maria.garcia@acme.example', business: 'Acme', city: 'Lyon' })
      const file = [
        'Record ID,First Name,Last Name,Email,Phone Number,Mobile Phone Number,Company Name,Job Title,Lifecycle Stage,Street Address,City,State/Region,Postal Code,Country/Region,Website URL,Contact owner,Create Date',
        '1501,Maria,Garcia,maria.garcia@acme.example,+1 (555) 010-2000,,Acme Corp,VP Sales,Marketing Qualified Lead,1 Main St,,CA,94105,United States,https://acme.example,Jo Owner,2024-02-01 10:00',
        '1502,Kenji,Sato,kenji@globex.example,,+81 90-1234-5678,Globex,CTO,Customer,,Tokyo,,100-0001,Japan,,Jo Owner,2024-02-02 11:30',
        '1503,Lea,Müller,lea.mueller@initech.example,,,Initech,,Lead,,Berlin,,10115,Germany,,,2024-02-03 09:15',
      ].join('\r\n') + '\r\n'
      const record = await imported(who, file, 'file_name=hubspot-contacts.csv')
      assert.equal(record.state, 'done')
      assert.deepEqual(record.counts, { created: 2, updated: 1, skipped: 0, rejected: 0 })
      assert.deepEqual(record.columns.filter((c) => c.target !== 'ignore').map((c) => `${c.header}>${c.target}`), [
        'First Name>first_name', 'Last Name>last_name', 'Email>email', 'Phone Number>telephone', 'Mobile Phone Number>cellphone',
        'Company Name>business', 'Job Title>position', 'Lifecycle Stage>stage', 'Street Address>address', 'City>city',
        'State/Region>state', 'Country/Region>country', 'Website URL>url',
      ])
      const maria = await byEmail(who, 'maria.garcia@acme.example')
      assert.equal(maria.first_name, 'Maria')
      assert.equal(maria.business, 'Acme Corp')
      assert.equal(maria.stage, 'mql')
      assert.equal(maria.telephone, '+1 (555) 010-2000')
      assert.equal(maria.city, 'Lyon', 'an empty cell leaves the field as it was')
      const kenji = await byEmail(who, 'kenji@globex.example')
      assert.equal(kenji.stage, 'client')
      assert.equal(kenji.cellphone, '+81 90-1234-5678')
      assert.equal(kenji.user_id, who.userId)
      assert.equal((await byEmail(who, 'lea.mueller@initech.example')).last_name, 'Müller')
      // One contact event per row, and an audit record for the import's start and end.
      const events = await rawRows<{ kind: string; n: number }>(t.db, sql`
        select kind::text as kind, count(*)::int as n from contact_events where company_id = ${who.companyId} group by kind order by kind`)
      assert.deepEqual(events.filter((e) => e.kind === 'contact_created' || e.kind === 'contact_updated'), [
        { kind: 'contact_created', n: 3 }, { kind: 'contact_updated', n: 1 },
      ])
      const audit = await rawRows<{ action: string; target_label: string; changes: string }>(t.db, sql`
        select action, target_label, changes::text as changes from audit_events where company_id = ${who.companyId} and target_type = 'contact_import' order by id`)
      assert.deepEqual(audit.map((a) => `${a.action} ${a.target_label}`), ['contact_import.created hubspot-contacts.csv', 'contact_import.finished hubspot-contacts.csv'])
      assert.deepEqual(JSON.parse(audit[1]?.changes ?? '{}'), { state: [null, 'done'], created: [null, 2], updated: [null, 1], skipped: [null, 0], rejected: [null, 0] })
    })

    test('a Pipedrive export: prefixed columns, the full name split, labels as tags created when missing', async () => {
      const who = await tenant(t.db)
      const hot = await addTag(t.db, who, { name: 'Hot lead' })
      const file = [
        'Person - Name,Person - Organization,Person - Email - Work,Person - Phone - Work,Person - Labels,Person - Owner',
        'Ana Paula Souza,Globex,ana@globex.example,+55 11 98765-4321,"hot lead, Partner",Bo',
        'Chen,Initech,chen@initech.example,,Partner,Bo',
      ].join('\n')
      const record = await imported(who, file)
      assert.deepEqual(record.counts, { created: 2, updated: 0, skipped: 0, rejected: 0 })
      const ana = await byEmail(who, 'ana@globex.example')
      assert.equal(ana.first_name, 'Ana')
      assert.equal(ana.last_name, 'Paula Souza')
      assert.equal(ana.business, 'Globex')
      assert.equal(ana.telephone, '+55 11 98765-4321')
      const tags = await rawRows<{ id: number; name: string }>(t.db, sql`select id::int as id, name from tags where company_id = ${who.companyId} order by id`)
      assert.deepEqual(tags.map((tag) => tag.name), ['Hot lead', 'Partner'])
      assert.deepEqual(JSON.parse(ana.tags).map((tag: { id: number }) => tag.id), [hot.id, tags[1]?.id])
      assert.equal((await byEmail(who, 'chen@initech.example')).last_name, null)
    })

    test('a Google Sheets download with a mapping: a new custom field, an existing one, an ignored column', async () => {
      const who = await tenant(t.db)
      await addCustomField(t.db, who, { field: 'T-shirt size', kind: 'dropdown', options: [{ name: 'S' }, { name: 'M' }] })
      const file = 'Name,Email,Company,Size,Notes,Source\r\nJo Lee,jo@example.com,Umbrella,M,"Met at the fair,\r\nwants a demo",fair\r\nMo,mo@example.com,,XL,,\r\n'
      const query = 'mapping[Size]=custom_field:T-shirt size&mapping[notes]=custom_field:Notes&mapping[Source]=ignore'
      const record = await imported(who, file, query)
      assert.deepEqual(record.counts, { created: 1, updated: 0, skipped: 0, rejected: 1 })
      const jo = await byEmail(who, 'jo@example.com')
      assert.deepEqual(JSON.parse(jo.fields), [
        { field: 'T-shirt size', value: 'M' }, { field: 'Notes', value: 'Met at the fair,\nwants a demo' },
      ])
      const kinds = await rawRows<{ field: string; kind: string }>(t.db, sql`select field, kind::text as kind from custom_fields where company_id = ${who.companyId} order by id`)
      assert.deepEqual(kinds, [{ field: 'T-shirt size', kind: 'dropdown' }, { field: 'Notes', kind: 'input' }])
      assert.equal(await errorsCsv(who, record.id), 'line,reason,Name,Email,Company,Size,Notes,Source\r\n4,custom_fields T-shirt size is not included in the list,Mo,mo@example.com,,XL,,\r\n')
    })

    test("Excel's Unicode text: UTF-16 LE with a BOM, tab separated", async () => {
      const who = await tenant(t.db)
      const text = '\ufeffFirst Name\tLast Name\tE-mail\tCity\r\nJosé\tNúñez\tjose@example.es\tMálaga\r\nZoë\tÅberg\tzoe@example.se\tMalmö\r\n'
      const record = await imported(who, Buffer.from(text, 'utf16le'))
      assert.equal(record.encoding, 'utf-16le')
      assert.equal(record.separator, 'tab')
      assert.deepEqual(record.counts, { created: 2, updated: 0, skipped: 0, rejected: 0 })
      assert.equal((await byEmail(who, 'jose@example.es')).city, 'Málaga')
      assert.equal((await byEmail(who, 'zoe@example.se')).last_name, 'Åberg')
    })

    test("Excel's CSV on a European Windows: semicolons, Windows-1252, quoted separators", async () => {
      const who = await tenant(t.db)
      const text = 'First Name;Last Name;Email Address;Job Title\r\nRenée;Dubois;renee@example.fr;"Directrice; ventes € "\r\nFrançois;Lefèvre;francois@example.fr;"Chef ""senior"""\r\n'
      // Windows-1252 by hand: these characters are all in Latin-1 but €, which is 0x80 there.
      const latin = Buffer.from(text.replace('€', '\u0080'), 'latin1')
      const record = await imported(who, latin)
      assert.equal(record.encoding, 'windows-1252')
      assert.equal(record.separator, 'semicolon')
      assert.deepEqual(record.counts, { created: 2, updated: 0, skipped: 0, rejected: 0 })
      assert.equal((await byEmail(who, 'renee@example.fr')).position, 'Directrice; ventes € ')
      assert.equal((await byEmail(who, 'francois@example.fr')).first_name, 'François')
      assert.equal((await byEmail(who, 'francois@example.fr')).position, 'Chef "senior"')
    })

    test('broken rows are listed with their lines and reasons; the good rows are saved', async () => {
      const who = await tenant(t.db)
      const file = [
        'First Name,Email,Lifecycle Stage,City', // 1
        'Good,good@example.com,lead,Paris', // 2
        'TooMany,many@example.com,lead,Rome,extra', // 3
        'BadEmail,not-an-email,lead,Oslo', // 4
        'BadStage,stage@example.com,Evangelist,Lima', // 5
        ',blank@example.com,,', // 6
        '', // 7 (blank: skipped)
        'Again,GOOD@example.com,mql,Nice', // 8
        'Multi,multi@example.com,sql,"Saint-', // 9
        'Denis"', // 10
        'Last,last@example.com,"lead,Quito', // 11: the quote is never closed
        'Lost,lost@example.com,lead,Bern', // 12
      ].join('\n')
      const record = await imported(who, file)
      assert.equal(record.state, 'done')
      assert.deepEqual(record.counts, { created: 2, updated: 0, skipped: 0, rejected: 6 })
      assert.deepEqual((await contacts(who)).map((c) => `${c.email} ${c.city ?? ''}`), ['good@example.com Paris', 'multi@example.com Saint-\nDenis'])
      const rows = (await errorsCsv(who, record.id)).split('\r\n')
      assert.equal(rows[0], 'line,reason,First Name,Email,Lifecycle Stage,City')
      assert.equal(rows[1], '3,has 5 values where the header has 4 columns,TooMany,many@example.com,lead,Rome,extra')
      assert.equal(rows[2], '4,email is invalid,BadEmail,not-an-email,lead,Oslo')
      assert.match(rows[3] ?? '', /^5,stage [^,]*,BadStage,stage@example.com,Evangelist,Lima$/)
      assert.match(rows[4] ?? '', /^6,first_name can't be blank,,blank@example.com,,$/)
      assert.equal(rows[5], '8,email is on line 2 of the file too (the first one is imported),Again,GOOD@example.com,mql,Nice')
      assert.match(rows[6] ?? '', /^11,a quoted value opens here and is never closed/)
      const rejected = await rawRows<{ line: number }>(t.db, sql`select line::int as line from contact_import_rejections where company_id = ${who.companyId} order by line`)
      assert.deepEqual(rejected.map((r) => r.line), [3, 4, 5, 6, 8, 11])
    })

    test('on_duplicate=skip leaves known contacts as they are', async () => {
      const who = await tenant(t.db)
      await addContact(t.db, who, { first_name: 'Kept', email: 'kept@example.com', city: 'Oslo' })
      const record = await imported(who, 'First Name,Email,City\nChanged,KEPT@example.com,Rome\nNew,new@example.com,Nice\n', 'on_duplicate=skip')
      assert.deepEqual(record.counts, { created: 1, updated: 0, skipped: 1, rejected: 0 })
      assert.equal((await byEmail(who, 'kept@example.com')).city, 'Oslo')
    })

    test('a dry run counts what would happen and saves nothing (no contact, tag or custom field)', async () => {
      const who = await tenant(t.db)
      await addContact(t.db, who, { first_name: 'Known', email: 'known@example.com' })
      const record = await imported(who, 'First Name,Email,Tags,Shoe\nKnown,known@example.com,New tag,42\nFresh,fresh@example.com,,41\nBad,bad,,\n', 'dry_run=true&mapping[Shoe]=custom_field:Shoe size')
      assert.equal(record.state, 'done')
      assert.deepEqual(record.counts, { created: 1, updated: 1, skipped: 0, rejected: 1 })
      assert.deepEqual((await contacts(who)).map((c) => c.email), ['known@example.com'])
      assert.deepEqual(await rawRows(t.db, sql`select id from tags where company_id = ${who.companyId}`), [])
      assert.deepEqual(await rawRows(t.db, sql`select id from custom_fields where company_id = ${who.companyId}`), [])
      assert.match(await errorsCsv(who, record.id), /\r\n4,email is invalid,Bad,bad,,\r\n$/)
    })

    test('what is typed is stored as typed; the export defuses formulas with a leading quote', async () => {
      const who = await tenant(t.db)
      await addTag(t.db, who, { name: '=HYPERLINK("x")' })
      const file = 'First Name,Last Name,Email,Job Title,City,Tags\n=1+2,@SUM(A1),f@example.com,-2+3,"\tTab",=HYPERLINK("x")\n'
      const record = await imported(who, file)
      assert.deepEqual(record.counts, { created: 1, updated: 0, skipped: 0, rejected: 0 })
      const row = await byEmail(who, 'f@example.com')
      assert.deepEqual([row.first_name, row.last_name, row.position, row.city], ['=1+2', '@SUM(A1)', '-2+3', '\tTab'])
      const res = await t.app.inject({ method: 'GET', url: '/api/v1/contacts/export', headers: who.auth })
      assert.equal(res.statusCode, 200)
      const [header, line] = res.body.slice(1).split('\r\n')
      assert.ok(header?.startsWith('id,first_name,last_name,email,'))
      assert.match(line ?? '', /,'=1\+2,'@SUM\(A1\),f@example\.com,,'-2\+3,,,,"'\tTab",/)
      assert.ok(line?.endsWith(`,"'=HYPERLINK(""x"")"`))
    })

    test('the export: BOM, every field, tags in one column, one column per custom field, the list filters, an audit record', async () => {
      const who = await tenant(t.db)
      const member = await addUser(t.db, who.companyId)
      const vip = await addTag(t.db, who, { name: 'VIP' })
      const hot = await addTag(t.db, who, { name: 'Hot' })
      await addCustomField(t.db, who, { field: 'Size' })
      await addCustomField(t.db, who, { field: 'Shoe' })
      await addContact(t.db, who, { first_name: 'Ana', last_name: 'Souza', email: 'ana@globex.example', business: 'Globex', tags: [vip.id, hot.id], custom_fields: [{ field: 'Shoe', value: '38' }] })
      await addContact(t.db, { companyId: who.companyId, userId: member.id }, { first_name: 'Bo', email: 'bo@initech.example', telephone: '+1 555 0100' })
      const other = await tenant(t.db)
      await addContact(t.db, other, { first_name: 'Elsewhere', email: 'x@globex.example' })

      const all = await t.app.inject({ method: 'GET', url: '/api/v1/contacts/export', headers: who.auth })
      assert.equal(all.statusCode, 200)
      assert.equal(all.headers['content-type'], 'text/csv; charset=utf-8')
      assert.match(String(all.headers['content-disposition']), /attachment; filename="contacts.csv"/)
      assert.ok(all.body.startsWith('\ufeffid,first_name,last_name,email,business,position,telephone,cellphone,address,city,state,country,url,linkedin,variable1,variable2,variable3,carousel,stage,user_id,created_at,updated_at,tags,Size,Shoe\r\n'))
      const lines = all.body.slice(1).split('\r\n').filter((line) => line !== '')
      assert.equal(lines.length, 3)
      assert.match(lines[1] ?? '', /^\d+,Ana,Souza,ana@globex\.example,Globex,,,,,,,,,,,,,false,,\d+,[^,]+,[^,]+,"VIP, Hot",,38$/)
      assert.match(lines[2] ?? '', /,'\+1 555 0100,/)

      const searched = await t.app.inject({ method: 'GET', url: '/api/v1/contacts/export?search_term=GLOBEX', headers: who.auth })
      assert.deepEqual(searched.body.slice(1).split('\r\n').filter((l) => l !== '').slice(1).map((l) => l.split(',')[3]), ['ana@globex.example'])
      const owned = await t.app.inject({ method: 'GET', url: `/api/v1/contacts/export?user_id=${String(member.id)}`, headers: who.auth })
      assert.deepEqual(owned.body.slice(1).split('\r\n').filter((l) => l !== '').slice(1).map((l) => l.split(',')[3]), ['bo@initech.example'])
      const bad = await t.app.inject({ method: 'GET', url: '/api/v1/contacts/export?user_id=abc', headers: who.auth })
      assert.equal(bad.statusCode, 422)
      const audit = await rawRows<{ action: string; changes: string }>(t.db, sql`
        select action, changes::text as changes from audit_events where company_id = ${who.companyId} and action = 'contacts.exported' order by id`)
      assert.equal(audit.length, 3)
      assert.deepEqual(JSON.parse(audit[1]?.changes ?? '{}'), { user_id: [null, null], search_term: [null, 'GLOBEX'] })
    })

    test('what an export gives, an import takes back to the same values', async () => {
      const who = await tenant(t.db)
      await addCustomField(t.db, who, { field: 'Notes', kind: 'textarea' })
      const tag = await addTag(t.db, who, { name: 'Partner' })
      await addContact(t.db, who, { first_name: 'Ana', last_name: 'Souza', email: 'ana@globex.example', business: 'Globex', city: 'São Paulo', stage: 'sql', tags: [tag.id], custom_fields: [{ field: 'Notes', value: 'line one\nline "two", three' }] })
      const exported = await t.app.inject({ method: 'GET', url: '/api/v1/contacts/export', headers: who.auth })
      const before = await contacts(who)
      await execute(t.db, sql`update contacts set deleted_at = now() where company_id = ${who.companyId}`)
      await execute(t.db, sql`delete from counters where company_id = ${who.companyId}`)
      const record = await imported(who, exported.rawPayload)
      assert.deepEqual(record.counts, { created: 1, updated: 0, skipped: 0, rejected: 0 })
      assert.deepEqual(await contacts(who), before)
    })

    test('one import at a time per company: the second waits queued until the first is done', async () => {
      const who = await tenant(t.db)
      const first = await upload(who, 'First Name,Email\nA,a@example.com\n')
      const second = await upload(who, 'First Name,Email\nB,b@example.com\n')
      await execute(t.db, sql`update contact_imports set state = 'running', lease_until = ${new Date(clock.getTime() + 60_000)} where company_id = ${who.companyId} and id = ${first.json().id}`)
      assert.equal(await runNextImport(t.db, () => clock, settings()), false)
      const state = async (id: number) => (await rawRows<{ state: string }>(t.db, sql`select state from contact_imports where company_id = ${who.companyId} and id = ${id}`))[0]?.state
      assert.equal(await state(second.json().id), 'queued')
      clock = new Date(clock.getTime() + 120_000) // the first's worker is gone: its lease ends
      await runAll()
      assert.equal(await state(first.json().id), 'done')
      assert.equal(await state(second.json().id), 'done')
      assert.deepEqual((await contacts(who)).map((c) => c.email), ['a@example.com', 'b@example.com'])
    })

    test('a worker that stops mid-import: the next claim resumes after the last batch; a crashed one is resumed when its lease ends', async () => {
      const who = await tenant(t.db)
      const lines = ['First Name,Email']
      for (let i = 1; i <= 250; i++) lines.push(`P${String(i)},p${String(i)}@example.com`)
      const res = await upload(who, lines.join('\n'))
      const id = res.json().id as number
      let batches = 0
      await runNextImport(t.db, () => clock, settings({ batchRows: 50, stopping: () => ++batches >= 2 }))
      const mid = (await rawRows<{ state: string; rows_done: number; lease_until: Date }>(t.db, sql`
        select state, rows_done::int as rows_done, lease_until from contact_imports where company_id = ${who.companyId} and id = ${id}`))[0]
      assert.deepEqual([mid?.state, mid?.rows_done], ['running', 100])
      assert.equal((await contacts(who)).length, 100)
      // A worker that died holding it: nobody takes it before the lease ends.
      await execute(t.db, sql`update contact_imports set lease_until = ${new Date(clock.getTime() + 60_000)} where company_id = ${who.companyId} and id = ${id}`)
      assert.equal(await runNextImport(t.db, () => clock, settings({ batchRows: 50 })), false)
      clock = new Date(clock.getTime() + 61_000)
      await runAll({ batchRows: 50 })
      const end = await t.app.inject({ method: 'GET', url: `/api/v1/contact_imports/${String(id)}`, headers: who.auth })
      assert.equal(end.json().state, 'done')
      assert.equal(end.json().rows_done, 250)
      assert.deepEqual(end.json().counts, { created: 250, updated: 0, skipped: 0, rejected: 0 })
      assert.equal((await contacts(who)).length, 250)
      const created = await rawRows<{ n: number }>(t.db, sql`select count(*)::int as n from contact_events where company_id = ${who.companyId} and kind = 'contact_created'`)
      assert.equal(created[0]?.n, 250, 'no row saved twice')
    })

    test('an import interrupted too many times fails visibly, saying which rows are saved', async () => {
      const who = await tenant(t.db)
      const res = await upload(who, 'First Name,Email\nA,a@example.com\n')
      await execute(t.db, sql`update contact_imports set state = 'running', attempts = 5, rows_done = 0, lease_until = ${new Date(clock.getTime() - 1000)} where company_id = ${who.companyId} and id = ${res.json().id}`)
      await runAll()
      const end = await t.app.inject({ method: 'GET', url: `/api/v1/contact_imports/${String(res.json().id)}`, headers: who.auth })
      assert.equal(end.json().state, 'failed')
      assert.equal(end.json().failure, 'the import was interrupted 5 times (the server stopped, or the database failed, while it ran); the rows before line 2 are saved')
      assert.deepEqual(await rawRows(t.db, sql`select seq from contact_import_chunks where company_id = ${who.companyId}`), [], 'the file is dropped')
    })

    test('refusals: over the size limit 413, not CSV 415, no header or no email column 422; nothing is stored', async () => {
      const who = await tenant(t.db)
      const big = `First Name,Email\n${'A,a@example.com\n'.repeat(MAX_BYTES / 16 + 1)}`
      const tooBig = await upload(who, big)
      assert.equal(tooBig.statusCode, 413)
      assert.equal(tooBig.json().error.code, 'payload_too_large')
      assert.deepEqual(tooBig.json().error.details, { file: ['is over 0 MiB, the largest file an import takes'] })
      const json = await upload(who, JSON.stringify({ contacts: [] }), '', 'application/json')
      assert.equal(json.statusCode, 415)
      const plain = await upload(who, 'a,b', '', 'text/plain')
      assert.equal(plain.statusCode, 415)
      const empty = await upload(who, '')
      assert.equal(empty.statusCode, 422)
      assert.deepEqual(empty.json().error.details, { file: ['is empty: its first line names the columns'] })
      const noEmail = await upload(who, 'First Name,Phone\nA,123\n')
      assert.equal(noEmail.statusCode, 422)
      assert.deepEqual(noEmail.json().error.details, { mapping: ['no column goes to email (name one with mapping[<header>]=email)'] })
      const unknown = await upload(who, 'First Name,Email\nA,a@example.com\n', 'mapping[Nope]=email&mapping[Email]=shoe')
      assert.deepEqual(unknown.json().error.details, { mapping: ['names no column of the file: Nope', 'Email: shoe is not a contact field, tags, custom_field:<name> or ignore'] })
      const badOption = await upload(who, 'First Name,Email\nA,a@example.com\n', 'on_duplicate=merge&separator=pipe')
      assert.equal(badOption.statusCode, 422)
      assert.deepEqual(Object.keys(badOption.json().error.details).sort(), ['on_duplicate', 'separator'])
      assert.deepEqual(await rawRows(t.db, sql`select id from contact_imports where company_id = ${who.companyId}`), [])
      assert.deepEqual(await rawRows(t.db, sql`select seq from contact_import_chunks where company_id = ${who.companyId}`), [])
    })

    test("another company's import answers 404, as a missing one does", async () => {
      const who = await tenant(t.db)
      const other = await tenant(t.db)
      const res = await upload(who, 'First Name,Email\nA,a@example.com\n')
      for (const url of [`/api/v1/contact_imports/${String(res.json().id)}`, `/api/v1/contact_imports/${String(res.json().id)}/errors`, '/api/v1/contact_imports/999999']) {
        const answer = await t.app.inject({ method: 'GET', url, headers: other.auth })
        assert.equal(answer.statusCode, 404, url)
      }
      const bad = await t.app.inject({ method: 'GET', url: '/api/v1/contact_imports/abc', headers: who.auth })
      assert.equal(bad.statusCode, 422)
    })
  })
}
