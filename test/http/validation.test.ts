import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { Type } from 'typebox'
import { ApiError } from '../../src/errors.js'
import { DateParam, Id, NonBlank, Nullable, PageParams, Str, TrueFlag } from '../../src/http/schemas.js'
import { validate } from '../../src/http/validation.js'

const Schema = Type.Object({
  id: Id,
  count: Type.Optional(Type.Integer()),
  done: Type.Optional(TrueFlag),
  carousel: Type.Optional(Type.Boolean()),
  day: Type.Optional(DateParam),
  name: Type.Optional(Str()),
  title: Type.Optional(NonBlank()),
  note: Type.Optional(Nullable(Str())),
  tags: Type.Optional(Type.Array(Id)),
  ...PageParams,
})

function problems(data: unknown): Record<string, string[]> {
  try {
    validate(Schema, data)
  } catch (err) {
    assert.ok(err instanceof ApiError)
    assert.equal(err.statusCode, 422)
    assert.equal(err.message, 'Could not save the entity')
    return err.details ?? {}
  }
  assert.fail('expected a 422')
}

describe('parameter validation and coercion', () => {
  test('integers: JSON integers and digit strings', () => {
    const value = validate(Schema, { id: '42', page: 2, count: '007', tags: ['3', 4] })
    assert.deepEqual(value, { id: 42, page: 2, count: 7, tags: [3, 4] })
  })

  test('parameters named like Object.prototype members are unknown parameters, kept as given', () => {
    const value = validate(Schema, { id: '1', page: 1, constructor: '', toString: '5', hasOwnProperty: 'true' })
    assert.deepEqual(value, { id: 1, page: 1, constructor: '', toString: '5', hasOwnProperty: 'true' })
  })

  test('the same schema coerces each request afresh (plans are cached, values are not)', () => {
    assert.deepEqual(validate(Schema, { id: '5', page: 1, count: '', name: '' }), { id: 5, page: 1, name: '' })
    assert.deepEqual(validate(Schema, { id: '6', page: 1, count: '3' }), { id: 6, page: 1, count: 3 })
    assert.deepEqual(problems({ id: '7', page: 1, name: 'a\u0000', tags: ['1', 'x'] }), {
      name: ['contains a character that cannot be stored (NUL or a lone surrogate)'],
      tags: ['must be an integer'],
    })
    assert.deepEqual(validate(Schema, { id: '8', page: 1, name: 'fine' }), { id: 8, page: 1, name: 'fine' })
  })

  test('integers: anything else is 422 naming the parameter', () => {
    assert.deepEqual(problems({ id: 'abc', page: 1 }), { id: ['must be an integer'] })
    assert.deepEqual(problems({ id: '1e3', page: 1 }), { id: ['must be an integer'] })
    assert.deepEqual(problems({ id: 1.5, page: 1 }), { id: ['must be an integer'] })
    assert.deepEqual(problems({ id: true, page: 1 }), { id: ['must be an integer'] })
    assert.deepEqual(problems({ id: '-1', page: 1 }), { id: ['must be an integer'] })
    assert.deepEqual(problems({ id: 0, page: 1 }), { id: ['must be greater than or equal to 1'] })
    assert.deepEqual(problems({ id: '9007199254740992', page: 1 }), { id: ['must be an integer'] })
    assert.deepEqual(problems({ id: 9007199254740992, page: 1 }), { id: ['must be less than or equal to 9007199254740991'] })
  })

  test('per_page outside 1..100', () => {
    assert.deepEqual(problems({ id: 1, page: 1, per_page: '101' }), { per_page: ['must be less than or equal to 100'] })
    assert.deepEqual(problems({ id: 1, page: 1, per_page: 0 }), { per_page: ['must be greater than or equal to 1'] })
  })

  test('empty string: optional non-string parameters count as not given; required ones are 422', () => {
    assert.deepEqual(validate(Schema, { id: 1, page: 1, count: '', done: '', day: '', name: '' }), {
      id: 1,
      page: 1,
      name: '',
    })
    assert.deepEqual(problems({ id: '', page: 1 }), { id: ['must be an integer'] })
  })

  test('true-flags: true or "true"; anything else 422', () => {
    assert.equal(validate(Schema, { id: 1, page: 1, done: 'true' }).done, true)
    assert.equal(validate(Schema, { id: 1, page: 1, done: true }).done, true)
    assert.deepEqual(problems({ id: 1, page: 1, done: 'false' }), { done: ['must be true'] })
    assert.deepEqual(problems({ id: 1, page: 1, done: '1' }), { done: ['must be true'] })
    assert.deepEqual(problems({ id: 1, page: 1, done: 'yes' }), { done: ['must be true'] })
  })

  test('booleans accept true/false as strings', () => {
    assert.equal(validate(Schema, { id: 1, page: 1, carousel: 'false' }).carousel, false)
    assert.deepEqual(problems({ id: 1, page: 1, carousel: 'no' }), { carousel: ['must be true or false'] })
  })

  test('dates are real calendar days', () => {
    assert.equal(validate(Schema, { id: 1, page: 1, day: '2024-02-29' }).day, '2024-02-29')
    assert.deepEqual(problems({ id: 1, page: 1, day: '2023-02-29' }), { day: ['must be a date (yyyy-mm-dd)'] })
    assert.deepEqual(problems({ id: 1, page: 1, day: '2023-2-1' }), { day: ['must be a date (yyyy-mm-dd)'] })
  })

  test('strings: at most 255 code points; blank checks', () => {
    assert.equal(validate(Schema, { id: 1, page: 1, name: '😀'.repeat(255) }).name?.length, 510)
    assert.deepEqual(problems({ id: 1, page: 1, name: 'x'.repeat(256) }), {
      name: ['is too long (maximum is 255 characters)'],
    })
    assert.deepEqual(problems({ id: 1, page: 1, title: '   ' }), { title: ["can't be blank"] })
    assert.deepEqual(problems({ id: 1, page: 1, name: 5 }), { name: ['must be a string'] })
  })

  test('null clears a nullable field', () => {
    assert.equal(validate(Schema, { id: 1, page: 1, note: null }).note, null)
    assert.deepEqual(problems({ id: 1, page: 1, note: 3 }), { note: ['must be a string'] })
  })

  test('missing required parameters, all reported at once', () => {
    assert.deepEqual(problems({}), { id: ["can't be blank"], page: ["can't be blank"] })
  })

  test('unknown parameters are ignored', () => {
    assert.deepEqual(validate(Schema, { id: 1, page: 1, whatever: 'x' }), { id: 1, page: 1, whatever: 'x' })
  })
})
