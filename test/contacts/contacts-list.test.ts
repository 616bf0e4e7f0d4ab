import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { rawRows, sql } from '../helpers/sql.js'
import { counterValue } from '../helpers/counters.js'
import { backends, startApp, type TestApp } from '../helpers/app.js'
import { addContact, addCustomField, addTag } from '../helpers/contacts-factories.js'
import { addUser, tenant, type Tenant } from '../helpers/factories.js'

for (const backend of backends()) {
  describe(`contacts list and search (${backend.name})`, () => {
    let t: TestApp
    let acme: Tenant
    let other: Tenant
    let memberId: number
    const mine: number[] = []
    const theirs: number[] = []
    let deletedId: number
    let tagged: { id: number }
    const tagIds: number[] = []

    before(async () => {
      t = await startApp(backend)
      acme = await tenant(t.db, { name: 'Acme' })
      other = await tenant(t.db, { name: 'Other' })
      memberId = (await addUser(t.db, acme.companyId)).id
      const member = { companyId: acme.companyId, userId: memberId }
      tagIds.push((await addTag(t.db, acme, { name: 'B tag', color: '#222' })).id, (await addTag(t.db, acme, { name: 'A tag', color: '#111' })).id)
      await addCustomField(t.db, acme, { field: 'Size', kind: 'input' })
      await addCustomField(t.db, acme, { field: 'Colour', kind: 'input' })
      const people: [string, string | undefined, string, string | undefined][] = [
        ['Ana', 'Souza', 'ana.souza@globex.example', 'Globex'],
        ['Bruno', 'Lima', 'bruno@initech.example', 'Initech'],
        ['Carla', 'Mendes', 'carla@umbrella.example', 'Umbrella Corp'],
        ['Diego', undefined, 'diego@example.com', undefined],
        ['Elisa', 'Anaya', 'elisa@hooli.example', 'Hooli'],
        ['Fábio', 'Rocha', 'fabio@globex.example', 'Globex'],
        ['Gil', 'Percent', 'gil@example.com', '100% Natural'],
        ['Hugo', 'Under_score', 'hugo_x@example.com', 'Back\\slash Ltd'],
      ]
      for (const [i, [first, last, email, business]] of people.entries()) {
        const contact = await addContact(t.db, i % 2 === 0 ? acme : member, {
          first_name: first,
          ...(last ? { last_name: last } : {}),
          email,
          ...(business ? { business } : {}),
          city: 'Globexville',
        })
        mine.push(contact.id)
      }
      tagged = await addContact(t.db, acme, {
        first_name: 'Tagged',
        email: 'tagged@example.com',
        tags: tagIds,
        custom_fields: [{ field: 'Colour', value: 'Red' }, { field: 'Size', value: 'M' }],
      })
      mine.push(tagged.id)
      const doomed = await addContact(t.db, acme, { first_name: 'Anabel', email: 'gone@globex.example', business: 'Globex' })
      deletedId = doomed.id
      await t.app.inject({ method: 'DELETE', url: `/api/v1/contacts/${doomed.id}`, headers: acme.auth })
      for (let i = 0; i < 3; i++) theirs.push((await addContact(t.db, other, { first_name: 'Ana', email: `ana${i}@globex.example`, business: 'Globex' })).id)
    })
    after(() => t.close())

    const list = (query: string, who = acme) => t.app.inject({ url: `/api/v1/contacts?${query}`, headers: who.auth })
    const ids = (res: { json: () => { data: { id: number }[] } }) => res.json().data.map((c) => c.id)

    test('pages of live contacts of the company, id ascending, totals from the counters', async () => {
      const res = await list('page=1&per_page=4')
      assert.equal(res.statusCode, 200)
      assert.deepEqual(ids(res), mine.slice(0, 4))
      assert.deepEqual(res.json().meta, { page: 1, per_page: 4, total_count: 9, total_pages: 3 })
      assert.equal(
        res.headers.link,
        '</api/v1/contacts?page=1&per_page=4>; rel="first", </api/v1/contacts?page=2&per_page=4>; rel="next", </api/v1/contacts?page=3&per_page=4>; rel="last"',
      )
      const last = await list('page=3&per_page=4')
      assert.deepEqual(ids(last), mine.slice(8))
      const all = await list('page=1')
      assert.deepEqual(ids(all), mine)
      assert.ok(!ids(all).includes(deletedId))
      // Every page of every size joins up to the list: pages of the second half are read
      // backwards from the total, those of the first half forwards.
      for (let perPage = 1; perPage <= 10; perPage++) {
        const joined: number[] = []
        for (let page = 1; page <= Math.ceil(mine.length / perPage); page++) joined.push(...ids(await list(`page=${page}&per_page=${perPage}`)))
        assert.deepEqual(joined, mine, `pages of ${perPage}`)
      }
      const past = await list('page=5&per_page=4')
      assert.equal(past.statusCode, 200)
      assert.deepEqual(past.json().data, [])
      assert.equal(past.json().meta.total_count, 9)

      const live = await rawRows<{ id: number }>(t.db, sql`select id from contacts where company_id = ${acme.companyId} and deleted_at is null`)
      assert.equal(await counterValue(t.db, acme.companyId, 'contacts'), live.length)

      const theirList = await list('page=1', other)
      assert.deepEqual(ids(theirList), theirs)
      assert.equal(theirList.json().meta.total_count, 3)
    })

    test('list items carry their tags (id ascending) and custom fields (definition order)', async () => {
      const res = await list('page=1')
      const item = res.json().data.find((c: { id: number }) => c.id === tagged.id)
      assert.deepEqual(item.tags.map((x: { id: number }) => x.id), [...tagIds].sort((a, b) => a - b))
      assert.deepEqual(item.custom_fields, [{ field: 'Size', value: 'M' }, { field: 'Colour', value: 'Red' }])
      const plain = res.json().data.find((c: { id: number }) => c.id === mine[0])
      assert.deepEqual([plain.tags, plain.custom_fields], [[], []])
    })

    test('user_id: the contacts of one owner; a foreign or unknown user gives an empty list', async () => {
      const res = await list(`page=1&user_id=${memberId}`)
      assert.deepEqual(ids(res), [mine[1], mine[3], mine[5], mine[7]])
      assert.equal(res.json().meta.total_count, 4)
      const owner = await list(`page=1&per_page=2&user_id=${acme.userId}`)
      assert.deepEqual(owner.json().meta, { page: 1, per_page: 2, total_count: 5, total_pages: 3 })
      for (const userId of [other.userId, 99999999]) {
        const none = await list(`page=1&user_id=${userId}`)
        assert.equal(none.statusCode, 200)
        assert.deepEqual(none.json().data, [])
        assert.equal(none.json().meta.total_count, 0)
      }
      const blank = await list('page=1&user_id=')
      assert.equal(blank.json().meta.total_count, 9, 'an empty user_id counts as not given')
      const bad = await list('page=1&user_id=abc')
      assert.equal(bad.statusCode, 422)
      assert.deepEqual(bad.json().error.details, { user_id: ['must be an integer'] })
    })

    test('search_term: case-insensitive substring of first, last or full name, business or email only', async () => {
      const search = async (term: string, extra = '') => {
        const res = await list(`page=1&search_term=${encodeURIComponent(term)}${extra}`)
        assert.equal(res.statusCode, 200)
        assert.equal(res.json().meta.total_count, res.json().data.length)
        return ids(res)
      }
      assert.deepEqual(await search('ana'), [mine[0], mine[4]], 'first name Ana, last name Anaya')
      assert.deepEqual(await search('SOUZA'), [mine[0]])
      assert.deepEqual(await search('ana souza'), [mine[0]], 'full name')
      assert.deepEqual(await search('a sou'), [mine[0]])
      assert.deepEqual(await search('globex'), [mine[0], mine[5]], 'business and email, not city; deleted excluded')
      assert.deepEqual(await search('umbrella corp'), [mine[2]])
      assert.deepEqual(await search('initech.example'), [mine[1]])
      assert.deepEqual(await search('fáb'), [mine[5]])
      assert.deepEqual(await search('Globexville'), [], 'city is not searched')
      assert.deepEqual(await search('%'), [mine[6]], '% is literal')
      assert.deepEqual(await search('0%'), [mine[6]])
      assert.deepEqual(await search('_'), [mine[7]], '_ is literal')
      assert.deepEqual(await search('\\'), [mine[7]], 'backslash is literal')
      assert.deepEqual(await search('nobody here'), [])
      assert.deepEqual(await search('globex', `&user_id=${memberId}`), [mine[5]])
      const paged = await list('page=2&per_page=1&search_term=globex')
      assert.deepEqual(ids(paged), [mine[5]])
      assert.deepEqual(paged.json().meta, { page: 2, per_page: 1, total_count: 2, total_pages: 2 })
      assert.match(String(paged.headers.link), /search_term=globex/)
      const full = await list('page=1&per_page=2&search_term=globex')
      assert.deepEqual(full.json().meta, { page: 1, per_page: 2, total_count: 2, total_pages: 1 })
      const beyond = await list('page=5&per_page=1&search_term=globex')
      assert.deepEqual(beyond.json().data, [])
      assert.deepEqual(beyond.json().meta, { page: 5, per_page: 1, total_count: 2, total_pages: 2 })
      const none = await list('page=1&search_term=zzzzzz')
      assert.deepEqual(none.json().meta, { page: 1, per_page: 25, total_count: 0, total_pages: 0 })
      const empty = await list('page=1&search_term=')
      assert.equal(empty.json().meta.total_count, 9, 'an empty search_term is no filter')
      const other3 = await list('page=1&search_term=ana', other)
      assert.deepEqual(ids(other3), theirs)
      const long = await list(`page=1&search_term=${'x'.repeat(256)}`)
      assert.equal(long.statusCode, 422)
      assert.ok(long.json().error.details.search_term)
    })

    test('page is required; per_page 1..100', async () => {
      for (const [query, field] of [['', 'page'], ['page=0', 'page'], ['page=x', 'page'], ['page=1&per_page=101', 'per_page']]) {
        const res = await list(query ?? '')
        assert.equal(res.statusCode, 422, query)
        assert.ok(res.json().error.details[field ?? ''], query)
      }
    })
  })
}
