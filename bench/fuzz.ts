// The fuzz run of issue 10: FUZZ_RUNS (default 10,000) generated requests spread over every
// operation (the generator of test/fuzz), sent without stopping at the first failure; it
// prints, per operation, how many requests, how many answered >= 500 and how many broke
// the contract otherwise, then the failures grouped by cause with one example each.
// Exit code 1 when anything failed. FUZZ_SEED fixes the sequence (default 20261122);
// FUZZ_CONCURRENCY=n sends n requests at a time (races: a tag deleted while a contact is
// written with it); FUZZ_REPORT=file.json also writes the figures as JSON.
//
//   TEST_DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres REDIS_URL=redis://127.0.0.1:6379 \
//     node --import tsx bench/fuzz.ts
import { writeFileSync } from 'node:fs'
import fc from 'fast-check'
import { startFuzzedApp } from '../test/fuzz/fixture.js'
import { describeRequest, requestArbitrary, type FuzzRequest } from '../test/fuzz/requests.js'
import { excerpt, send } from '../test/fuzz/send.js'

const runs = Number(process.env.FUZZ_RUNS ?? 10_000)
const seed = Number(process.env.FUZZ_SEED ?? 20261122)
const concurrency = Math.max(1, Number(process.env.FUZZ_CONCURRENCY ?? 1))

interface PerOperation {
  requests: number
  over500: number
  contract: number
  statuses: Record<string, number>
}

interface Group {
  operation: string
  cause: string
  count: number
  example: string
  response: string
  logged?: string
}

const fuzz = await startFuzzedApp()
const perOperation = new Map<string, PerOperation>(
  fuzz.operations.map((op) => [op.name, { requests: 0, over500: 0, contract: 0, statuses: {} }]),
)
const groups = new Map<string, Group>()
let clientRefused = 0
const started = Date.now()

const anyRequest = fc.oneof(...fuzz.operations.map((op) => requestArbitrary(op, fuzz.pools, fuzz.token)))
async function sendOne(req: FuzzRequest) {
  const { response, problems } = await send(fuzz.t.app, req, fuzz.pools)
  if (response.statusCode === 0) {
    clientRefused++
    return
  }
  const stats = perOperation.get(req.operation)
  if (!stats) return
  stats.requests++
  stats.statuses[response.statusCode] = (stats.statuses[response.statusCode] ?? 0) + 1
  if (response.statusCode >= 500) stats.over500++
  else if (problems.length > 0) stats.contract++
  const id = response.headers['x-request-id']
  const logged = typeof id === 'string' ? fuzz.errors.get(id) : undefined
  for (const problem of problems) {
    // The cause: the violation, and for a 5xx the error the app logged (values cut off).
    const cause = response.statusCode >= 500 && logged ? `${problem} — ${logged.replace(/\s+/g, ' ').slice(0, 160)}` : problem.replace(/: .*$/, '')
    const key = `${req.operation}\u0000${cause}`
    const group = groups.get(key)
    if (group) group.count++
    else {
      groups.set(key, {
        operation: req.operation,
        cause,
        count: 1,
        example: describeRequest(req),
        response: `${response.statusCode} ${excerpt(response.body, 300)}`,
        ...(logged ? { logged: excerpt(logged, 600) } : {}),
      })
    }
  }
}

await fc.assert(
  fc.asyncProperty(fc.array(anyRequest, { minLength: concurrency, maxLength: concurrency }), async (batch) => {
    await Promise.all(batch.map(sendOne))
  }),
  { numRuns: Math.ceil(runs / concurrency), seed, endOnFailure: true },
)
await fuzz.close()

const seconds = (Date.now() - started) / 1000
let requests = 0
let over500 = 0
let contract = 0
console.log(`fuzz: seed ${seed}, ${runs} generated requests, ${concurrency} at a time, in ${seconds.toFixed(1)} s`)
console.log(['operation'.padEnd(48), 'requests', '>=500', 'contract', 'statuses'].join('  '))
for (const [name, s] of perOperation) {
  requests += s.requests
  over500 += s.over500
  contract += s.contract
  const statuses = Object.entries(s.statuses).map(([status, n]) => `${status}:${n}`).join(' ')
  console.log([name.padEnd(48), String(s.requests).padStart(8), String(s.over500).padStart(5), String(s.contract).padStart(8), statuses].join('  '))
}
console.log(`total: ${requests} requests, ${over500} answered >= 500, ${contract} other contract violations` +
  (clientRefused ? ` (${clientRefused} refused by the in-process client, not sent)` : ''))
if (groups.size > 0) {
  console.log('\nfailures by cause:')
  for (const g of [...groups.values()].sort((a, b) => a.operation.localeCompare(b.operation) || b.count - a.count)) {
    console.log(`\n- ${g.operation} × ${g.count}: ${g.cause}\n    e.g. ${g.example}\n    → ${g.response}${g.logged ? `\n    logged: ${g.logged}` : ''}`)
  }
}
if (process.env.FUZZ_REPORT) {
  writeFileSync(
    process.env.FUZZ_REPORT,
    JSON.stringify({ seed, runs, seconds, requests, over500, contract, perOperation: Object.fromEntries(perOperation), groups: [...groups.values()] }, null, 2),
  )
}
process.exitCode = over500 + contract > 0 ? 1 : 0
