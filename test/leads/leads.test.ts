import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { systemActing } from '../../src/acting.js'
import { createToken } from '../../src/modules/auth/tokens.service.js'
import { addUser, tenant, type Tenant } from '../helpers/factories.js'
import { addContact } from '../helpers/leads-factories.js'
import { backends, startApp, type TestApp } from '../helpers/app.js'
import { rawRows, sql } from '../helpers/sql.js'

type BusinessRow = { company_id: number; name: string; linkedin_url: string | null; sector: string | null; colaborators_count: number | null; telephone: string | null }
const businessOf = (db: TestApp['db'], id: number) =>
  rawRows<BusinessRow>(db, sql`select company_id, name, linkedin_url, sector, colaborators_count, telephone from businesses where id = ${id}`)

const LEAD_KEYS = [
  'business_colaborators_count', 'business_linkedin_url', 'business_name', 'business_sector', 'business_telephone',
  'city', 'contact_id', 'country', 'created_at', 'degree_of_connection', 'email', 'first_name', 'id', 'last_name',
  'linkedin_url', 'position', 'provider', 'state_province', 'telephone', 'updated_at', 'user_id',
]

for (const backend of backends()) {
  describe(`leads (${backend.name})`, () => {
    let t: TestApp
    let acme: Tenant
    let other: Tenant
    let seq = 0

    before(async () => {
      t = await startApp(backend)
      acme = await tenant(t.db, { name: 'Acme' })
      other = await tenant(t.db, { name: 'Other' })
    })
    after(() => t.close())

    const post = (who: Tenant, payload: object | string, contentType = 'application/json') =>
      t.app.inject({ method: 'POST', url: '/api/v1/leads', headers: { ...who.auth, 'content-type': contentType }, payload })
    const get = (who: Tenant, url: string) => t.app.inject({ url, headers: who.auth })
    const uniqueEmail = () => `lead${++seq}@example.com`
    const leadRows = (who: Tenant) => rawRows<{ id: number }>(t.db, sql`select id from leads where company_id = ${who.companyId}`)

    async function createLead(who: Tenant, fields: Record<string, unknown> = {}) {
      const res = await post(who, { first_name: 'Lea', email: uniqueEmail(), provider: 'linkedin', ...fields })
      assert.equal(res.statusCode, 201, res.body)
      return res.json<{ id: number; contact_id: number | null } & Record<string, unknown>>()
    }

    test('POST creates a lead: 201, Location, every field, the creator, the row', async () => {
      const payload = {
        first_name: 'Marta', last_name: 'Reis', email: 'Marta.Reis@Globex.example', provider: 'linkedin',
        position: 'Head of Sales', linkedin_url: 'https://linkedin.example/in/marta', telephone: '+55 11 5555-0000',
        city: 'São Paulo', state_province: 'SP', country: 'Brazil', degree_of_connection: 2,
        business_name: 'Globex', business_linkedin_url: 'https://linkedin.example/company/globex',
        business_sector: 'Logistics', business_colaborators_count: 250, business_telephone: '+55 11 4444-0000',
      }
      const res = await post(acme, payload)
      assert.equal(res.statusCode, 201)
      const body = res.json()
      assert.equal(res.headers.location, `/api/v1/leads/${body.id}`)
      assert.deepEqual(Object.keys(body).sort(), LEAD_KEYS)
      assert.deepEqual({ ...body, id: 0, created_at: '', updated_at: '' }, {
        ...payload, id: 0, user_id: acme.userId, contact_id: null, created_at: '', updated_at: '',
      })
      assert.match(body.created_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/)

      const [row] = await rawRows<{ company_id: number; email: string; business_id: number | null }>(t.db, sql`
        select company_id, email, business_id from leads where id = ${body.id}`)
      assert.equal(row?.company_id, acme.companyId)
      assert.equal(row.email, 'Marta.Reis@Globex.example') // stored as sent
      const [business] = await businessOf(t.db, row.business_id ?? 0)
      assert.deepEqual(
        { name: business?.name, linkedinUrl: business?.linkedin_url, sector: business?.sector, count: business?.colaborators_count, telephone: business?.telephone, companyId: business?.company_id },
        { name: 'Globex', linkedinUrl: payload.business_linkedin_url, sector: 'Logistics', count: 250, telephone: payload.business_telephone, companyId: acme.companyId },
      )
    })

    test('the fields may come wrapped in "lead", and as a Rails-style form with digit strings', async () => {
      const wrapped = await post(acme, { lead: { first_name: 'Wrapped', email: uniqueEmail(), provider: 'apollo', degree_of_connection: '3' } })
      assert.equal(wrapped.statusCode, 201)
      assert.equal(wrapped.json().first_name, 'Wrapped')
      assert.equal(wrapped.json().degree_of_connection, 3)

      const email = uniqueEmail()
      const form = await post(
        acme,
        `lead[first_name]=Form&lead[email]=${encodeURIComponent(email)}&lead[provider]=csv&lead[business_colaborators_count]=12&lead[city]=`,
        'application/x-www-form-urlencoded',
      )
      assert.equal(form.statusCode, 201)
      assert.equal(form.json().business_colaborators_count, 12)
      assert.equal(form.json().city, '') // text is stored exactly as sent
      assert.equal(form.json().degree_of_connection, null)
    })

    test('a lead business fills in the shared business record, found case-insensitively', async () => {
      const first = await createLead(acme, { business_name: 'Initech', business_sector: 'Software' })
      const second = await createLead(acme, { business_name: 'INITECH', business_colaborators_count: 40 })
      const rows = await rawRows<{ business_id: number | null }>(t.db, sql`select business_id from leads where id in (${first.id}, ${second.id})`)
      assert.equal(rows[0]?.business_id, rows[1]?.business_id)
      const [business] = await businessOf(t.db, rows[0]?.business_id ?? 0)
      assert.deepEqual([business?.name, business?.sector, business?.colaborators_count], ['Initech', 'Software', 40])

      const noName = await createLead(acme, { business_sector: 'Retail' })
      const [row] = await rawRows<{ business_id: number | null }>(t.db, sql`select business_id from leads where id = ${noName.id}`)
      assert.equal(row?.business_id, null) // without a name there is no business to fill
      assert.equal(noName.business_sector, 'Retail')
    })

    test('bad input is 422 with details, and nothing is stored', async () => {
      const before = (await leadRows(acme)).length
      const cases: [Record<string, unknown>, string, string][] = [
        [{ email: uniqueEmail(), provider: 'x' }, 'first_name', "can't be blank"],
        [{ first_name: '   ', email: uniqueEmail(), provider: 'x' }, 'first_name', "can't be blank"],
        [{ first_name: 'A', provider: 'x' }, 'email', "can't be blank"],
        [{ first_name: 'A', email: 'not-an-email', provider: 'x' }, 'email', 'is invalid'],
        [{ first_name: 'A', email: uniqueEmail() }, 'provider', "can't be blank"],
        [{ first_name: 'A', email: uniqueEmail(), provider: '' }, 'provider', "can't be blank"],
        [{ first_name: 'A', email: uniqueEmail(), provider: 'x', degree_of_connection: 'abc' }, 'degree_of_connection', 'must be an integer'],
        [{ first_name: 'A', email: uniqueEmail(), provider: 'x', degree_of_connection: 1.5 }, 'degree_of_connection', 'must be an integer'],
        [{ first_name: 'A', email: uniqueEmail(), provider: 'x', business_colaborators_count: -1 }, 'business_colaborators_count', 'must be greater than or equal to 0'],
        [{ first_name: 'A', email: uniqueEmail(), provider: 'x', business_colaborators_count: 2_147_483_648 }, 'business_colaborators_count', 'must be less than or equal to 2147483647'],
        [{ first_name: 'A', email: uniqueEmail(), provider: 'x', city: 'c'.repeat(256) }, 'city', 'is too long (maximum is 255 characters)'],
        [{ first_name: 'A', email: uniqueEmail(), provider: 'x', position: 5 }, 'position', 'must be a string'],
      ]
      for (const [payload, field, message] of cases) {
        const res = await post(acme, payload)
        assert.equal(res.statusCode, 422, JSON.stringify(payload))
        const error = res.json().error
        assert.equal(error.message, 'Could not save the entity')
        assert.deepEqual(error.details[field], [message], JSON.stringify(error.details))
      }
      assert.equal((await leadRows(acme)).length, before)
    })

    test('an email once per provider per company, case-insensitively', async () => {
      const email = uniqueEmail()
      await createLead(acme, { email, provider: 'linkedin' })
      const count = (await leadRows(acme)).length
      const dup = await post(acme, { first_name: 'Dup', email: email.toUpperCase(), provider: 'linkedin' })
      assert.equal(dup.statusCode, 422)
      assert.deepEqual(dup.json().error.details, { email: ['has already been taken'] })
      assert.equal((await leadRows(acme)).length, count)

      await createLead(acme, { email, provider: 'apollo' }) // another provider
      await createLead(other, { email, provider: 'linkedin' }) // another company
    })

    test('concurrent duplicates: exactly one wins', async () => {
      const email = uniqueEmail()
      const results = await Promise.all(
        [1, 2, 3].map((n) => post(acme, { first_name: `Race ${n}`, email, provider: 'race' })),
      )
      assert.deepEqual(results.map((r) => r.statusCode).sort(), [201, 422, 422])
      const rows = await rawRows<{ id: number }>(t.db, sql`select id from leads where company_id = ${acme.companyId} and provider = 'race'`)
      assert.equal(rows.length, 1)
      const count = await get(acme, `/api/v1/leads/count?user_id=${acme.userId}`)
      assert.equal(count.json().count, (await leadRows(acme)).length) // the counter moved once
    })

    test('on create, linked to the live contact with the same email (case-insensitive) of the company only', async () => {
      const contact = await addContact(t.db, acme.companyId, acme.userId, { email: 'Paula@Example.com' })
      const linked = await createLead(acme, { email: 'paula@example.COM' })
      assert.equal(linked.contact_id, contact.id)

      await addContact(t.db, acme.companyId, acme.userId, { email: 'gone@example.com', deleted: true })
      assert.equal((await createLead(acme, { email: 'gone@example.com' })).contact_id, null)

      await addContact(t.db, other.companyId, other.userId, { email: 'theirs@example.com' })
      assert.equal((await createLead(acme, { email: 'theirs@example.com' })).contact_id, null)
    })

    test('details by ?id= and /:id; another company or none: 404; bad ids: 422', async () => {
      const lead = await createLead(acme)
      for (const url of [`/api/v1/leads?id=${lead.id}`, `/api/v1/leads/${lead.id}`]) {
        const res = await get(acme, url)
        assert.equal(res.statusCode, 200, url)
        assert.deepEqual(res.json(), lead)
      }
      for (const url of [`/api/v1/leads?id=${lead.id}`, `/api/v1/leads/${lead.id}`]) {
        const res = await get(other, url)
        assert.equal(res.statusCode, 404)
        assert.equal(res.json().error.message, 'Not found')
      }
      assert.equal((await get(acme, '/api/v1/leads/999999')).statusCode, 404)
      assert.equal((await get(acme, '/api/v1/leads?id=999999&page=1')).statusCode, 404)
      for (const url of ['/api/v1/leads/abc', '/api/v1/leads/0', '/api/v1/leads?id=abc']) {
        const res = await get(acme, url)
        assert.equal(res.statusCode, 422, url)
        assert.ok(res.json().error.details.id, url)
      }
    })

    describe('lists and counts', () => {
      let seller: Tenant
      const linkedIds: number[] = []
      const unlinkedIds: number[] = []

      before(async () => {
        const user = await addUser(t.db, acme.companyId)
        const { token } = await createToken(t.db, systemActing(), user.id)
        seller = { companyId: acme.companyId, userId: user.id, token, auth: { authorization: `Bearer ${token}` } }
        for (let i = 0; i < 5; i++) {
          const email = uniqueEmail()
          if (i % 2 === 0) await addContact(t.db, acme.companyId, acme.userId, { email })
          const lead = await createLead(seller, { first_name: `S${i}`, email })
          ;(i % 2 === 0 ? linkedIds : unlinkedIds).push(lead.id)
        }
      })

      const ids = (res: { json: () => { data: { id: number }[] } }) => res.json().data.map((l) => l.id)

      test('without id, page and user_id are required', async () => {
        for (const [query, fields] of [
          ['', ['page', 'user_id']],
          [`user_id=${seller.userId}`, ['page']],
          ['page=1', ['user_id']],
          [`page=1&user_id=`, ['user_id']],
          [`page=0&user_id=${seller.userId}`, ['page']],
          [`page=1&user_id=abc`, ['user_id']],
        ] as const) {
          const res = await get(acme, `/api/v1/leads?${query}`)
          assert.equal(res.statusCode, 422, query)
          assert.deepEqual(Object.keys(res.json().error.details).sort(), [...fields], query)
        }
      })

      test("lists the leads created by user_id, id ascending, paged, any caller of the company", async () => {
        const all = [...linkedIds, ...unlinkedIds].sort((a, b) => a - b)
        const res = await get(acme, `/api/v1/leads?page=1&per_page=2&user_id=${seller.userId}`)
        assert.equal(res.statusCode, 200)
        assert.deepEqual(ids(res), all.slice(0, 2))
        assert.deepEqual(res.json().meta, { page: 1, per_page: 2, total_count: 5, total_pages: 3 })
        assert.deepEqual(Object.keys(res.json().data[0]).sort(), LEAD_KEYS)
        assert.equal(res.json().data[0].user_id, seller.userId)
        assert.match(String(res.headers.link), new RegExp(`</api/v1/leads\\?page=3&per_page=2&user_id=${seller.userId}>; rel="last"`))

        const last = await get(seller, `/api/v1/leads?page=3&per_page=2&user_id=${seller.userId}`)
        assert.deepEqual(ids(last), all.slice(4))
        const past = await get(seller, `/api/v1/leads?page=4&per_page=2&user_id=${seller.userId}`)
        assert.equal(past.statusCode, 200)
        assert.deepEqual(past.json().data, [])
      })

      test('every page of each filter, one lead a page: the later ones are read backwards, past the end is empty', async () => {
        const all = [...linkedIds, ...unlinkedIds].sort((a, b) => a - b)
        for (const [flag, expected] of [['', all], ['&with_contact=true', linkedIds], ['&without_contact=true', unlinkedIds]] as const) {
          const got: number[] = []
          for (let page = 1; page <= expected.length + 1; page++) {
            const res = await get(acme, `/api/v1/leads?page=${page}&per_page=1&user_id=${seller.userId}${flag}`)
            assert.equal(res.statusCode, 200)
            assert.deepEqual(res.json().meta, { page, per_page: 1, total_count: expected.length, total_pages: expected.length }, flag)
            got.push(...ids(res))
          }
          assert.deepEqual(got, expected, flag)
        }
      })

      test('a listed lead is the lead its POST answered and GET by id shows', async () => {
        const res = await get(acme, `/api/v1/leads?page=1&per_page=100&user_id=${seller.userId}`)
        for (const lead of res.json().data as { id: number }[]) {
          assert.deepEqual((await get(acme, `/api/v1/leads/${lead.id}`)).json(), lead)
        }
        // The caller's own lead (the seller's counts stay as the other tests expect them).
        const created = await createLead(acme, { first_name: 'Listed', last_name: null, degree_of_connection: 1 })
        const listed = await get(seller, `/api/v1/leads?page=1&per_page=100&user_id=${acme.userId}&without_contact=true`)
        assert.deepEqual(listed.json().data.find((l: { id: number }) => l.id === created.id), created)
      })

      test('with_contact and without_contact filter the list and the count', async () => {
        const withContact = await get(acme, `/api/v1/leads?page=1&user_id=${seller.userId}&with_contact=true`)
        assert.deepEqual(ids(withContact), linkedIds)
        assert.equal(withContact.json().meta.total_count, 3)
        assert.ok(withContact.json().data.every((l: { contact_id: number | null }) => l.contact_id !== null))
        const without = await get(acme, `/api/v1/leads?page=1&user_id=${seller.userId}&without_contact=true`)
        assert.deepEqual(ids(without), unlinkedIds)
        assert.equal(without.json().meta.total_count, 2)

        const count = (q: string) => get(acme, `/api/v1/leads/count?user_id=${seller.userId}${q}`).then((r) => r.json<{ count: number }>())
        assert.deepEqual(await count(''), { count: 5 })
        assert.deepEqual(await count('&with_contact=true'), { count: 3 })
        assert.deepEqual(await count('&without_contact=true'), { count: 2 })
        assert.deepEqual(await count('&with_contact='), { count: 5 }) // '' counts as not given
        const body = await t.app.inject({
          url: '/api/v1/leads/count', headers: acme.auth, payload: { user_id: seller.userId, with_contact: true },
        })
        assert.deepEqual(body.json(), { count: 3 })
      })

      test('both flags, or a flag other than true: 422; count needs user_id', async () => {
        for (const url of [
          `/api/v1/leads?page=1&user_id=${seller.userId}&with_contact=true&without_contact=true`,
          `/api/v1/leads/count?user_id=${seller.userId}&with_contact=true&without_contact=true`,
        ]) {
          const res = await get(acme, url)
          assert.equal(res.statusCode, 422)
          assert.deepEqual(res.json().error.details, {
            with_contact: ["can't be combined with without_contact"],
            without_contact: ["can't be combined with with_contact"],
          })
        }
        for (const url of [
          `/api/v1/leads?page=1&user_id=${seller.userId}&with_contact=false`,
          `/api/v1/leads/count?user_id=${seller.userId}&without_contact=1`,
        ]) {
          const res = await get(acme, url)
          assert.equal(res.statusCode, 422)
          assert.equal(Object.keys(res.json().error.details).length, 1)
        }
        const missing = await get(acme, '/api/v1/leads/count')
        assert.equal(missing.statusCode, 422)
        assert.deepEqual(missing.json().error.details, { user_id: ["can't be blank"] })
      })

      test('a user of another company, or none: empty list and zero count', async () => {
        for (const userId of [seller.userId, 999_999]) {
          const list = await get(other, `/api/v1/leads?page=1&user_id=${userId}`)
          assert.equal(list.statusCode, 200)
          assert.deepEqual(list.json().data, [])
          assert.equal(list.json().meta.total_count, 0)
          const count = await get(other, `/api/v1/leads/count?user_id=${userId}&with_contact=true`)
          assert.deepEqual(count.json(), { count: 0 })
        }
      })
    })
  })
}
