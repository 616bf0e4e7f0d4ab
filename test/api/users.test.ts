import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { addUser, tenant, type Tenant } from '../helpers/factories.js'
import { backends, startApp, type TestApp } from '../helpers/app.js'
import { rawRows, sql } from '../helpers/sql.js'

interface UserRow {
  id: number
  name: string
  email: string
  role: 'admin' | 'member'
  active: boolean
  created_at: Date
  updated_at: Date
}

for (const backend of backends()) {
  describe(`users (${backend.name})`, () => {
    let t: TestApp
    let acme: Tenant
    let other: Tenant
    const memberIds: number[] = []

    before(async () => {
      t = await startApp(backend)
      acme = await tenant(t.db, { name: 'Acme', timezone: 'America/Sao_Paulo' })
      other = await tenant(t.db, { name: 'Other' })
      for (let i = 0; i < 4; i++) memberIds.push((await addUser(t.db, acme.companyId, { name: `Member ${i}` })).id)
    })
    after(() => t.close())

    /** The company's users as the serializer would write them (the User schema's keys, in order). */
    const usersAsSerialized = async (companyId: number) =>
      (await rawRows<UserRow>(t.db, sql`
        select id, name, email, role, active, created_at, updated_at from users where company_id = ${companyId} order by id`)).map((u) => ({
        id: u.id, name: u.name, email: u.email, role: u.role, active: u.active,
        created_at: u.created_at.toISOString(), updated_at: u.updated_at.toISOString(),
      }))

    test('authorize_api answers the user and the company of the token', async () => {
      const res = await t.app.inject({ url: '/api/v1/users/authorize_api', headers: acme.auth })
      assert.equal(res.statusCode, 200)
      const body = res.json()
      assert.deepEqual(Object.keys(body.user).sort(), ['active', 'created_at', 'email', 'id', 'name', 'role', 'updated_at'])
      assert.equal(body.user.id, acme.userId)
      assert.equal(body.user.role, 'admin')
      assert.equal(body.user.active, true)
      assert.match(body.user.created_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/)
      assert.deepEqual(body.company, { id: acme.companyId, name: 'Acme', timezone: 'America/Sao_Paulo' })
      // Written by PostgreSQL: the bytes the serializer would write for the same user.
      assert.equal(res.headers['content-type'], 'application/json; charset=utf-8')
      const [user] = await usersAsSerialized(acme.companyId)
      const token = { scopes: ['*'], kind: 'personal', expires_at: null, app: null }
      assert.deepEqual(body.token, token)
      assert.equal(res.body, JSON.stringify({ user, company: { id: acme.companyId, name: 'Acme', timezone: 'America/Sao_Paulo' }, token }))
    })

    test('lists the users of the caller company only, id ascending, paged', async () => {
      const res = await t.app.inject({ url: '/api/v1/users?page=1&per_page=2', headers: acme.auth })
      assert.equal(res.statusCode, 200)
      const body = res.json()
      assert.deepEqual(body.data.map((u: { id: number }) => u.id), [acme.userId, memberIds[0]])
      assert.deepEqual(body.meta, { page: 1, per_page: 2, total_count: 5, total_pages: 3 })
      // Written by PostgreSQL around the records: the bytes the serializer would write.
      assert.equal(res.headers['content-type'], 'application/json; charset=utf-8')
      assert.equal(res.body, JSON.stringify({ data: (await usersAsSerialized(acme.companyId)).slice(0, 2), meta: body.meta }))

      const all = await t.app.inject({ url: '/api/v1/users?page=1', headers: acme.auth })
      const ids = all.json().data.map((u: { id: number }) => u.id)
      assert.deepEqual(ids, [acme.userId, ...memberIds])
      assert.ok(!ids.includes(other.userId))
      assert.equal(all.json().meta.per_page, 25)
    })

    test('Link header: first/last always, prev/next where they exist, api_token dropped', async () => {
      const res = await t.app.inject({
        url: `/api/v1/users?per_page=2&page=2&api_token=${acme.token}&extra=a%20b`,
      })
      assert.equal(res.statusCode, 200)
      assert.equal(
        res.headers.link,
        [
          '</api/v1/users?page=1&per_page=2&extra=a%20b>; rel="first"',
          '</api/v1/users?page=1&per_page=2&extra=a%20b>; rel="prev"',
          '</api/v1/users?page=3&per_page=2&extra=a%20b>; rel="next"',
          '</api/v1/users?page=3&per_page=2&extra=a%20b>; rel="last"',
        ].join(', '),
      )
    })

    test('names with quotes, backslashes, control and non-ASCII characters: the bytes the serializer would write', async () => {
      const odd = await tenant(t.db, { name: 'Odd' })
      await addUser(t.db, odd.companyId, { name: 'Zoë "Z" \\ Tab\there\u0001 \u2028 😀 </script>' })
      const res = await t.app.inject({ url: '/api/v1/users?page=1', headers: odd.auth })
      assert.equal(res.statusCode, 200)
      assert.equal(res.body, JSON.stringify({ data: await usersAsSerialized(odd.companyId), meta: res.json().meta }))
    })

    test('a page past the end is 200 with empty data', async () => {
      const res = await t.app.inject({ url: '/api/v1/users?page=9', headers: acme.auth })
      assert.equal(res.statusCode, 200)
      assert.deepEqual(res.json().data, [])
      assert.deepEqual(res.json().meta, { page: 9, per_page: 25, total_count: 5, total_pages: 1 })
      assert.equal(res.body, '{"data":[],"meta":{"page":9,"per_page":25,"total_count":5,"total_pages":1}}')
      assert.match(String(res.headers.link), /rel="prev"/)
      assert.doesNotMatch(String(res.headers.link), /rel="next"/)
    })

    test('page is required and must be a positive integer; per_page 1..100', async () => {
      for (const [query, field] of [
        ['', 'page'],
        ['page=0', 'page'],
        ['page=abc', 'page'],
        ['page=1&per_page=101', 'per_page'],
        ['page=1&per_page=0', 'per_page'],
      ] as const) {
        const res = await t.app.inject({ url: `/api/v1/users?${query}`, headers: acme.auth })
        assert.equal(res.statusCode, 422, query)
        const body = res.json()
        assert.equal(body.error.status, 422)
        assert.equal(body.error.message, 'Could not save the entity')
        assert.ok(body.error.details[field], `${query}: ${JSON.stringify(body.error.details)}`)
        assert.equal(body.error.request_id, res.headers['x-request-id'])
      }
    })
  })
}
