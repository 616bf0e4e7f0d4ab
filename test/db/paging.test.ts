// The page helpers of src/db/paging.ts alone (every list runs through them; the lists'
// answers are checked over the API in test/fuzz/paging.test.ts).
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { limitOffset, pageIds, pageIdsWithin, pageParams, unwrapPage } from '../../src/db/paging.js'
import { pageWindow } from '../../src/http/pagination.js'

describe('page helpers', () => {
  test('unwrapPage: the records with the total; the sentinel row past the end; no row at all', () => {
    const rows = [{ total: 7, id: 1, name: 'a' }, { total: 7, id: 2, name: 'b' }]
    assert.deepEqual(unwrapPage<{ id: number; name: string }>(rows), { total: 7, rows })
    assert.deepEqual(unwrapPage<{ id: number }>([{ total: 7, id: null }]), { total: 7, rows: [] })
    assert.deepEqual(unwrapPage<{ id: number }>([]), { total: 0, rows: [] })
    assert.deepEqual(unwrapPage<{ contact_id: number }, unknown, 'contact_id'>([{ total: 2, contact_id: null }], 'contact_id'), { total: 2, rows: [] })
  })

  test('unwrapPage drops the page columns it is told to, keeping the order of the others', () => {
    const page = unwrapPage<{ id: number; kind: string }, { found: boolean }>([{ found: true, total: 1, id: 5, kind: 'x' }], 'id', ['found', 'total'])
    assert.deepEqual(page, { total: 1, rows: [{ id: 5, kind: 'x' }] })
    assert.deepEqual(Object.keys(page.rows[0] ?? {}), ['id', 'kind'])
  })

  test('the offset is a bigint placeholder everywhere it is written', () => {
    const page = pageParams(3, 4)
    assert.equal(limitOffset(page), 'limit $3 offset $4::bigint')
    const ids = (order: string, limit: string, offset: string) => `ids(${order}, ${limit}, ${offset})`
    for (const text of [pageIds(page, 'n', ['asc', 'desc'], ids), pageIdsWithin('x.id', page, 'n', ['asc', 'desc'], ids)]) {
      assert.doesNotMatch(text, /\$4(?!::bigint)/, text)
      assert.match(text, /ids\(asc, \$3, \$4::bigint\)/)
      assert.match(text, /ids\(desc, greatest\(least\(\$3, n - \$4::bigint\), 0\), greatest\(n - \$4::bigint - \$3, 0\)\)/)
    }
    assert.match(pageIds(page, 'n', ['asc', 'desc'], ids, { empty: 'gone' }), /^case when gone or \$4::bigint >= n then '\{\}'::bigint\[\]/)
  })

  test('pageWindow: the offset of the last valid page is an exact integer, past every list', () => {
    assert.deepEqual(pageWindow({ page: 3, per_page: 10 }), { page: 3, perPage: 10, limit: 10, offset: 20 })
    assert.deepEqual(pageWindow({ page: 1 }), { page: 1, perPage: 25, limit: 25, offset: 0 })
    const last = pageWindow({ page: Number.MAX_SAFE_INTEGER, per_page: 100 })
    assert.equal(last.offset, Number.MAX_SAFE_INTEGER)
    assert.equal(last.page, Number.MAX_SAFE_INTEGER)
  })
})
