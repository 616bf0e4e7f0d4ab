// Issue 38 §3: not a sample but a sweep. Every parameter of every API operation (path, query,
// body, and each text of a list of objects), read from the app's own OpenAPI document so a
// new operation or field is swept without touching this, gets each of the values that once
// reached PostgreSQL as a 500: NUL, lone UTF-16 surrogates and leap seconds. The others are
// valid (the required ones given, drawn from the schema), the body sent as JSON and as a
// form. Every answer: no 5xx, and the contract's body on every 4xx.
import assert from 'node:assert/strict'
import { after, describe, test } from 'node:test'
import fc from 'fast-check'
import { violations } from './contract.js'
import { startFuzzedApp } from './fixture.js'
import type { Operation, Param, Schema } from './operations.js'
import { encode, formPairs, toJson, type FuzzRequest } from './requests.js'
import { excerpt } from './send.js'
import { resourcePool, SWEPT, validValue, type Value } from './values.js'

const fuzz = await startFuzzedApp()
after(() => fuzz.close())

const isObjectList = (schema: Schema): Schema | undefined => {
  const items = schema.items ?? schema.anyOf?.find((s) => s.items)?.items
  return items?.properties ? items : undefined
}

/** One valid value of the parameter, the same on every run. */
const valid = (op: Operation, param: Param): Value => fc.sample(validValue(param.name, param.schema, op.resource, fuzz.pools), { numRuns: 1, seed: 38 })[0] ?? ''

/** The values a parameter is swept with: the value itself, or inside each text of its list items. */
function sweptValues(op: Operation, param: Param, value: string): { label: string; value: Value }[] {
  const objects = isObjectList(param.schema)
  if (objects?.properties) {
    const item = Object.fromEntries(
      Object.entries(objects.properties)
        .filter(([name]) => objects.required?.includes(name))
        .map(([name, schema]) => [name, valid(op, { name, required: true, schema })]),
    ) as Record<string, Value>
    return Object.keys(objects.properties).map((name) => ({ label: `${param.name}[].${name}`, value: [{ ...item, [name]: value }] }))
  }
  const items = param.schema.items ?? param.schema.anyOf?.find((s) => s.items)?.items
  return [{ label: param.name, value: items ? [value] : value }]
}

/** The operation's requests with `param` set to `value`: in the query, or in a JSON and a form body. */
function requests(op: Operation, param: Param | undefined, value: Value): FuzzRequest[] {
  const hasBody = op.method !== 'GET' && op.method !== 'DELETE'
  const params = hasBody ? op.body : op.query
  const given: Record<string, Value> = {}
  for (const p of params) if (p.required) given[p.name] = valid(op, p)
  if (param && params.includes(param)) given[param.name] = value
  let path = op.path
  for (const p of op.pathParams) {
    const segment = p === param ? encode(typeof value === 'string' ? value : toJson(value)) : String(resourcePool(op.resource, fuzz.pools)[0] ?? 1)
    path = path.replace(`{${p.name}}`, segment)
  }
  const headers = { authorization: `Bearer ${fuzz.token}` }
  const base = { operation: op.name, resource: op.resource, method: op.method }
  const pairs = Object.entries(given).flatMap(([k, v]) => formPairs(k, v))
  if (!hasBody) return [{ ...base, url: pairs.length > 0 ? `${path}?${pairs.join('&')}` : path, headers }]
  return [
    { ...base, url: path, headers: { ...headers, 'content-type': 'application/json' }, payload: toJson(given) },
    { ...base, url: path, headers: { ...headers, 'content-type': 'application/x-www-form-urlencoded' }, payload: pairs.join('&') },
  ]
}

// Deletes last, so the records the other operations name still exist.
const operations = [...fuzz.operations]
  .filter((op) => op.path.startsWith('/api/'))
  .sort((a, b) => Number(a.method === 'DELETE') - Number(b.method === 'DELETE'))

describe('every field of every API operation with NUL, lone surrogates and leap seconds: no 5xx, the contract body on every 4xx', () => {
  let sent = 0
  for (const op of operations) {
    test(op.name, async () => {
      const params = [...op.pathParams, ...(op.method === 'GET' || op.method === 'DELETE' ? op.query : op.body)]
      const problems: string[] = []
      for (const param of params) {
        for (const text of SWEPT) {
          for (const { label, value } of sweptValues(op, param, text)) {
            for (const req of requests(op, param, value)) {
              const res = await fuzz.t.app.inject({ method: req.method as 'GET', url: req.url, headers: req.headers, ...(req.payload === undefined ? {} : { payload: req.payload }) })
              sent++
              const found = res.statusCode < 300 && !/^application\/json\b/.test(String(res.headers['content-type'])) ? [] : violations(req, res)
              if (found.length > 0) {
                const id = res.headers['x-request-id']
                const cause = typeof id === 'string' ? fuzz.errors.get(id) : undefined
                problems.push(`${label}=${JSON.stringify(text)} (${req.headers['content-type'] ?? 'query'}): ${found.join('; ')}: ${res.statusCode} ${excerpt(res.body, 200)}${cause ? ` logged: ${cause}` : ''}`)
              }
            }
          }
        }
      }
      assert.deepEqual(problems, [])
    })
  }

  test('the sweep reached every operation', () => {
    assert.ok(operations.length >= 25, operations.map((o) => o.name).join('\n'))
    assert.ok(sent > operations.length * SWEPT.length, String(sent))
  })
})
