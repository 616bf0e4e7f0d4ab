// Issue 10: a property-based test over every operation of the API (read from the app's own
// OpenAPI document). Requests come from each operation's schema plus hostile values
// (control characters, lone surrogates, huge numbers, nested brackets, prototype keys,
// long strings, odd dates, wrong types) in the query string, JSON and form bodies and path
// ids. For every response: no 5xx, the contract's error body on every 4xx (status,
// message, code, request_id equal to X-Request-Id, details with detail_codes), JSON.
//
// npm test runs FUZZ_PER_OPERATION (default 25) cases per operation with a fixed seed.
// More: FUZZ_RUNS=10000 (spread over the operations). Reproduce a failure with the
// FUZZ_SEED, FUZZ_OPERATION and FUZZ_PATH its message prints. The counting run over
// all operations at once is bench/fuzz.ts.
import assert from 'node:assert/strict'
import { after, describe, test } from 'node:test'
import fc from 'fast-check'
import { startFuzzedApp } from './fixture.js'
import { describeRequest, requestArbitrary, type FuzzRequest } from './requests.js'
import { excerpt, send } from './send.js'

const fuzz = await startFuzzedApp()
after(() => fuzz.close())

const SEED = Number(process.env.FUZZ_SEED ?? 20261122)
const total = Number(process.env.FUZZ_RUNS ?? 0)
const perOperation = total > 0 ? Math.ceil(total / fuzz.operations.length) : Number(process.env.FUZZ_PER_OPERATION ?? 25)
const only = process.env.FUZZ_OPERATION

/** A seed per operation, from its name: adding an operation does not reshuffle the others. */
function seedOf(name: string): number {
  let h = SEED | 0
  for (const char of name) h = (Math.imul(h, 31) + char.charCodeAt(0)) | 0
  return h
}

class Violation extends Error {}

/** Responses seen and those >= 500, over every operation (the count the issue asks to be 0). */
const seen = { responses: 0, over500: 0 }

describe('every operation under hostile input: no 5xx, the contract body on every 4xx', () => {
  test('the OpenAPI document lists the operations', () => {
    assert.ok(fuzz.operations.filter((op) => op.path.startsWith('/api/')).length >= 25, fuzz.operations.map((o) => o.name).join('\n'))
  })

  for (const op of fuzz.operations) {
    if (only !== undefined && op.name !== only) continue
    test(op.name, async () => {
      const property = fc.asyncProperty(requestArbitrary(op, fuzz.pools, fuzz.token), async (req: FuzzRequest) => {
        const { response, problems } = await send(fuzz.t.app, req, fuzz.pools)
        seen.responses++
        if (response.statusCode >= 500) seen.over500++
        if (problems.length > 0) {
          const id = response.headers['x-request-id']
          const cause = typeof id === 'string' ? fuzz.errors.get(id) : undefined
          throw new Violation(
            `${problems.join('; ')}\n  request: ${describeRequest(req)}\n  response: ${response.statusCode} ${excerpt(response.body)}` +
              (cause ? `\n  logged: ${excerpt(cause)}` : ''),
          )
        }
      })
      const path = process.env.FUZZ_PATH
      const result = await fc.check(property, { seed: seedOf(op.name), numRuns: perOperation, ...(only && path ? { path } : {}) })
      if (result.failed) {
        const error = result.errorInstance instanceof Error ? result.errorInstance.message : String(result.errorInstance)
        assert.fail(
          `${op.name} failed after ${result.numRuns} run(s) (shrunk ${result.numShrinks} times):\n${error}\n` +
            `reproduce: FUZZ_SEED=${SEED} FUZZ_OPERATION='${op.name}' FUZZ_PATH='${result.counterexamplePath ?? ''}'`,
        )
      }
    })
  }

  test('0 responses >= 500 over every operation', (t) => {
    t.diagnostic(`${String(seen.responses)} responses over ${String(fuzz.operations.length)} operations, ${String(seen.over500)} >= 500`)
    if (only === undefined) assert.ok(seen.responses >= fuzz.operations.length * perOperation, 'every operation was fuzzed')
    assert.equal(seen.over500, 0)
  })
})
