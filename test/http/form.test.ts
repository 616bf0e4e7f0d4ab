import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { FormError, parseForm } from '../../src/http/nested-params.js'

describe('Rails-style form parsing', () => {
  test('plain pairs, + as space, percent-decoding', () => {
    assert.deepEqual(parseForm('first_name=Ana+Maria&email=ana%40x.com&empty='), {
      first_name: 'Ana Maria',
      email: 'ana@x.com',
      empty: '',
    })
  })

  test('arrays with []', () => {
    assert.deepEqual(parseForm('tags[]=3&tags[]=4'), { tags: ['3', '4'] })
  })

  test('root key objects', () => {
    assert.deepEqual(parseForm('contact[first_name]=Ana&contact[email]=a@x.com&api_token=t'), {
      contact: { first_name: 'Ana', email: 'a@x.com' },
      api_token: 't',
    })
  })

  test('arrays of objects start a new element when a key repeats', () => {
    assert.deepEqual(
      parseForm(
        'custom_fields[][field]=Size&custom_fields[][value]=XL&custom_fields[][field]=Color&custom_fields[][value]=Red',
      ),
      { custom_fields: [{ field: 'Size', value: 'XL' }, { field: 'Color', value: 'Red' }] },
    )
  })

  test('nested root key with array of objects', () => {
    assert.deepEqual(parseForm('contact[custom_fields][][field]=Size&contact[custom_fields][][value]=XL'), {
      contact: { custom_fields: [{ field: 'Size', value: 'XL' }] },
    })
  })

  test('prototype keys are dropped', () => {
    const parsed = parseForm('__proto__[polluted]=1&constructor[x]=1&a=1')
    assert.deepEqual(parsed, { a: '1' })
    assert.equal(({} as Record<string, unknown>).polluted, undefined)
  })

  test('malformed percent-encoding: an error for bodies, kept as is for query strings', () => {
    assert.throws(() => parseForm('a=%E0%A4%A'), FormError)
    assert.deepEqual(parseForm('a=%E0%A4%A', false), { a: '%E0%A4%A' })
  })

  test('too many parameters', () => {
    assert.throws(() => parseForm(Array.from({ length: 1001 }, (_, i) => `k${i}=1`).join('&')), FormError)
  })
})
