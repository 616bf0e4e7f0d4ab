import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { Type } from 'typebox'
import { checkDateTime, checkDay, instantOf, MAX_INSTANT, MIN_INSTANT } from '../../src/http/dates.js'
import { ApiError } from '../../src/errors.js'
import { isStorableText, validate } from '../../src/http/validation.js'

describe('dates the API accepts', () => {
  test('days: real calendar days of the years 0001 to 9999', () => {
    for (const day of ['0001-01-01', '2024-02-29', '2000-02-29', '9999-12-31']) assert.equal(checkDay(day), 'ok', day)
    for (const day of ['0000-01-01', '0000-02-29']) assert.equal(checkDay(day), 'out_of_range', day)
    for (const day of ['2023-02-29', '1900-02-29', '2026-13-01', '2026-04-31', '10000-01-01', '2026-1-01', ' 2026-01-01', '2026-01-01\n']) {
      assert.equal(checkDay(day), 'invalid', JSON.stringify(day))
    }
  })

  test('date-times: RFC 3339 with an offset up to ±15:59, inside 0001-01-01T00:00:00Z..9999-12-31T23:59:59.999Z', () => {
    const ok: [string, string][] = [
      ['0001-01-01T00:00:00Z', '0001-01-01T00:00:00.000Z'],
      ['0001-01-01T00:59:00+00:59', '0001-01-01T00:00:00.000Z'],
      ['9999-12-31T23:59:59.999Z', '9999-12-31T23:59:59.999Z'],
      ['9999-12-31T08:00:00-15:59', '9999-12-31T23:59:00.000Z'],
      ['2026-11-22 10:30:00.250+0200', '2026-11-22T08:30:00.250Z'],
      ['2026-11-22t10:30:00.12349z', '2026-11-22T10:30:00.123Z'],
      ['2026-11-22T10:30:00.1235Z', '2026-11-22T10:30:00.124Z'],
      ['2026-11-22T10:30:00.999999999Z', '2026-11-22T10:30:01.000Z'],
      ['2026-12-31T20:59:60-03:00', '2027-01-01T00:00:00.000Z'],
    ]
    for (const [text, iso] of ok) {
      assert.equal(checkDateTime(text), 'ok', text)
      assert.equal(instantOf(text).toISOString(), iso, text)
    }
    for (const text of ['0000-12-31T23:59:59Z', '0001-01-01T00:00:00+00:01', '9999-12-31T23:59:59.9995Z', '9999-12-31T20:00:00-04:00', '2026-01-01T00:00:00+16:00', '2026-01-01T00:00:00-23:59']) {
      assert.equal(checkDateTime(text), 'out_of_range', text)
    }
    for (const text of [
      '2026-01-01T00:00:00', '2026-01-01', '2026-01-01T24:00:00Z', '2026-01-01T00:60:00Z', '2026-01-01T00:00:00+24:00',
      '2026-01-01T00:00:00+05:60', '2026-06-30T12:59:60Z', '2026-01-01T00:00:00.1234567890Z', '2026-01-01\t00:00:00Z',
      '2026-01-01\u00a000:00:00Z', '2026-02-30T00:00:00Z', '+02026-01-01T00:00:00Z',
    ]) {
      assert.equal(checkDateTime(text), 'invalid', JSON.stringify(text))
    }
    assert.equal(new Date(MIN_INSTANT).toISOString(), '0001-01-01T00:00:00.000Z')
    assert.equal(new Date(MAX_INSTANT).toISOString(), '9999-12-31T23:59:59.999Z')
  })
})

describe('text the API stores', () => {
  test('no NUL, no lone surrogate; astral characters and other control characters are fine', () => {
    for (const text of ['', 'plain', 'tab\tand\nnewline\u0001\u007f', '😀 𝒜', '\ud83d\ude00']) assert.ok(isStorableText(text), JSON.stringify(text))
    for (const text of ['\u0000', 'a\u0000', '\ud800', '\udfff', 'a\ud83d', '\ude00a', '\ud83d\ud83d']) assert.ok(!isStorableText(text), JSON.stringify(text))
  })

  test('validate (also the command line) names each parameter with unstorable text, nested ones by their top name', () => {
    const schema = Type.Object({
      name: Type.String(),
      items: Type.Array(Type.Object({ label: Type.String() })),
      kind: Type.Optional(Type.Union([Type.Literal('a'), Type.Literal('b')])),
    })
    assert.deepEqual(validate(schema, { name: 'ok', items: [{ label: '😀' }], unknown: '\u0000' }), { name: 'ok', items: [{ label: '😀' }], unknown: '\u0000' })
    try {
      validate(schema, { name: 'a\u0000', items: [{ label: 'ok' }, { label: '\ud800' }] })
      assert.fail('accepted')
    } catch (err) {
      assert.ok(err instanceof ApiError)
      assert.deepEqual(err.details, {
        name: ['contains a character that cannot be stored (NUL or a lone surrogate)'],
        items: ['contains a character that cannot be stored (NUL or a lone surrogate)'],
      })
    }
  })

  test('every date-time parameter reaches the service as its canonical instant (leap seconds, offsets), dates and unions alike', () => {
    const schema = Type.Object({
      at: Type.String({ format: 'date-time' }),
      when: Type.Union([Type.String({ format: 'date' }), Type.String({ format: 'date-time' })]),
      day: Type.String({ format: 'date' }),
      list: Type.Array(Type.String({ format: 'date-time' })),
    })
    assert.deepEqual(validate(schema, { at: '2026-06-30T23:59:60Z', when: '2026-11-22T20:59:60-03:00', day: '2026-11-22', list: ['2026-11-22 10:00:00.0005+01:00'] }), {
      at: '2026-07-01T00:00:00.000Z',
      when: '2026-11-23T00:00:00.000Z',
      day: '2026-11-22',
      list: ['2026-11-22T09:00:00.001Z'],
    })
    assert.deepEqual(validate(schema, { at: '2026-01-01T00:00:00Z', when: '2026-11-22', day: '2026-11-22', list: [] }).when, '2026-11-22')
  })
})
