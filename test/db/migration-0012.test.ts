// Migration 0012 makes the contacts table again with its columns in a new physical order.
// Everything else must come out as it went in: the rows, what the API answers for them, the
// identity sequence, and every index, key (to and from contacts) and statistics object.
// Run here again on today's schema, with contacts and their children in two companies.
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { after, before, describe, test } from 'node:test'
import { execute, rawRows, sql } from '../helpers/sql.js'
import { backends, startApp, type TestApp } from '../helpers/app.js'
import { addCustomField, addTag } from '../helpers/contacts-factories.js'
import { tenant, type Tenant } from '../helpers/factories.js'
import { transaction } from '../../src/db/db.js'

const statementsOf = (file: string) => readFileSync(new URL(`../../migrations/${file}`, import.meta.url), 'utf8')
  .split('--> statement-breakpoint')
// 0018 later rebuilt one of the contacts' indexes (partial since), 0020 added two columns
// and filled them (its triggers and functions live on other tables), 0024 made some columns
// text with checks, 0025 added an index and 0026 rebuilt and added the indexes of the list's
// filters: replayed after 0012, so the table comes out as today's schema has it.
const migration = [
  ...statementsOf('0012_contact_column_order.sql'),
  ...statementsOf('0018_plans.sql'),
  ...statementsOf('0020_contact_children_json.sql').filter((statement) => /^(ALTER TABLE "contacts"|SELECT contacts_keep_children)/m.test(statement)),
  ...statementsOf('0024_text_columns.sql').filter((statement) => /^ALTER TABLE "contacts"/m.test(statement)),
  ...statementsOf('0025_contact_email_lookup_index.sql'),
  ...statementsOf('0026_contact_list_filters.sql').filter((statement) => /^(CREATE|DROP) INDEX "contacts_/m.test(statement)),
]

/** What must not change: the rows (as jsonb, which does not keep column order), sequence, keys, indexes, statistics. */
async function described(t: TestApp) {
  const [state] = await rawRows<Record<string, unknown>>(t.db, sql`
    select (select jsonb_agg(to_jsonb(c) order by c.id) from contacts c) as rows,
           (select jsonb_build_object('last_value', last_value, 'is_called', is_called) from contacts_id_seq) as sequence,
           (select jsonb_agg(jsonb_build_array(conrelid::regclass::text, conname, pg_get_constraintdef(oid)) order by conrelid::regclass::text, conname)
              from pg_constraint where conrelid = 'contacts'::regclass or confrelid = 'contacts'::regclass) as constraints,
           (select jsonb_agg(jsonb_build_array(indexname, indexdef) order by indexname) from pg_indexes where tablename = 'contacts') as indexes,
           (select jsonb_agg(stxname order by stxname) from pg_statistic_ext where stxrelid = 'contacts'::regclass) as statistics`)
  return state
}

for (const backend of backends()) {
  describe(`migration 0012 (${backend.name})`, () => {
    let t: TestApp
    let acme: Tenant
    let other: Tenant
    const ids: number[] = []

    const post = async (who: Tenant, payload: Record<string, unknown>) => {
      const res = await t.app.inject({ method: 'POST', url: '/api/v1/contacts', headers: who.auth, payload })
      assert.equal(res.statusCode, 201, res.body)
      return res.json<{ id: number }>().id
    }
    const read = (id: number, who = acme) => t.app.inject({ url: `/api/v1/contacts/${String(id)}`, headers: who.auth })

    before(async () => {
      t = await startApp(backend)
      acme = await tenant(t.db, { name: 'Acme' })
      other = await tenant(t.db, { name: 'Other' })
      const hot = await addTag(t.db, acme, { name: 'Hot', color: '#f00' })
      await addCustomField(t.db, acme, { field: 'Notes', kind: 'textarea' })
      ids.push(await post(acme, { first_name: 'Ana', last_name: 'Silva', email: 'ana@example.com', business: 'Initech',
        city: 'Recife', stage: 'mql', tags: [hot.id], custom_fields: [{ field: 'Notes', value: 'met twice' }] }))
      ids.push(await post(acme, { first_name: 'Bo', email: 'bo@example.com' }))
      ids.push(await post(other, { first_name: 'Cy', email: 'cy@example.com', business: 'Globex' }))
      // A lead linked to Bo (a key from leads), and Bo deleted (deleted_at set).
      const lead = await t.app.inject({ method: 'POST', url: '/api/v1/leads', headers: acme.auth,
        payload: { first_name: 'Bo', email: 'bo@example.com', provider: 'linkedin' } })
      assert.equal(lead.statusCode, 201, lead.body)
      assert.equal((await t.app.inject({ method: 'DELETE', url: `/api/v1/contacts/${String(ids[1])}`, headers: acme.auth })).statusCode, 204)
    })
    after(() => t.close())

    test('rows, answers, sequence, keys, indexes and statistics come out as they went in; the columns in the new order', async () => {
      const was = await described(t)
      const answer = (await read(ids[0] ?? 0)).json<unknown>()
      assert.equal((was?.rows as unknown[]).length, 3)

      await transaction(t.db, async (tx) => {
        for (const statement of migration) await execute(tx, sql.raw(statement))
      })

      assert.deepEqual(await described(t), was)
      const columns = await rawRows<{ attname: string }>(t.db, sql`
        select attname from pg_attribute where attrelid = 'contacts'::regclass and attnum > 0 and not attisdropped order by attnum limit 5`)
      assert.deepEqual(columns.map((c) => c.attname), ['company_id', 'id', 'user_id', 'deleted_at', 'search_text'])
      const again = await read(ids[0] ?? 0)
      assert.equal(again.statusCode, 200)
      assert.deepEqual(again.json<unknown>(), answer)
      assert.equal((await read(ids[1] ?? 0)).statusCode, 404, 'the deleted contact stays deleted')
      const found = await t.app.inject({ url: '/api/v1/contacts?page=1&search_term=an', headers: acme.auth })
      assert.equal(found.statusCode, 200, found.body)
      assert.deepEqual(found.json<{ data: { id: number }[] }>().data.map((c) => c.id), [ids[0]])

      // The next contact continues the old sequence; the keys hold.
      const next = await post(acme, { first_name: 'Di', email: 'di@example.com' })
      assert.ok(next > Math.max(...ids), `${String(next)} after ${ids.join(', ')}`)
      await assert.rejects(
        execute(t.db, sql`insert into contact_tags (company_id, contact_id, tag_id) select company_id, ${ids[2] ?? 0}, id from tags where company_id = ${acme.companyId}`),
        (err: Error & { cause?: { code?: string } }) => (err.cause?.code ?? (err as { code?: string }).code) === '23503',
        'a tag of Acme on a contact of Other: no such contact in Acme',
      )
    })
  })
}
