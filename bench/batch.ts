// The batch scenario of npm run bench: contacts written per second by POST /contacts/batch
// (100 new contacts per request) against single POST /contacts, at the same concurrency,
// over the same ten companies (one token each, round-robin), in alternating runs (the
// machine's speed drifts by ±15 % between runs). Issue 13 asks the batch for at least ten
// times the contacts per second of single requests.
import autocannon from 'autocannon'

export const BATCH_SIZE = 100
export const BATCH_GOAL = 10

/** The same contact as the single-write scenario of run.ts, new email each time. */
const contact = (run: number, i: number) => ({
  first_name: 'Writer',
  last_name: `Number ${String(i)}`,
  email: `b${String(run)}.${String(i)}@batch.example`,
  business: `Business ${String(i % 20)}`,
  stage: 'lead',
})

interface Figures {
  contactsPerSecond: number
  p50: number
  p99: number
  errors: number
}

export interface BatchFigures {
  /** Each run, in the order run: single POSTs and batches alternate. */
  runs: (Figures & { scenario: 'single' | 'batch' })[]
  ratio: number
}

/** Alternating runs (BENCH_BATCH_ROUNDS batch runs, each between two runs of single POSTs): the machine drifts. */
const rounds = Number(process.env.BENCH_BATCH_ROUNDS ?? 2)

async function contactsPerSecond(url: string, tokens: string[], connections: number, seconds: number, size: number) {
  const run = Date.now() + size
  let n = 0
  const options: autocannon.Options = {
    url,
    connections,
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    requests: [
      {
        method: 'POST',
        setupRequest: (request) => {
          const i = n++
          const contacts = Array.from({ length: size }, (_, k) => contact(run, i * size + k))
          return {
            ...request,
            headers: { ...request.headers, authorization: `Bearer ${tokens[i % tokens.length] ?? ''}` },
            body: JSON.stringify(size === 1 ? contacts[0] : { contacts }),
          }
        },
      },
    ],
  }
  await autocannon({ ...options, duration: 2 }) // warm-up
  const result = await autocannon({ ...options, duration: seconds })
  return {
    contactsPerSecond: Math.round(result.requests.average * size),
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.errors + result.non2xx,
  }
}

/** Single POSTs and batches of 100 in alternating runs, each for `seconds` after a 2 s warm-up; the ratio of their means. */
export async function measureBatch(api: string, tokens: string[], connections: number, seconds: number): Promise<BatchFigures> {
  const runs: BatchFigures['runs'] = []
  for (let round = 0; round < rounds * 2 + 1; round++) {
    runs.push(round % 2 === 0
      ? { scenario: 'single', ...(await contactsPerSecond(`${api}/contacts`, tokens, connections, seconds, 1)) }
      : { scenario: 'batch', ...(await contactsPerSecond(`${api}/contacts/batch`, tokens, connections, seconds, BATCH_SIZE)) })
  }
  const mean = (scenario: 'single' | 'batch') => {
    const picked = runs.filter((run) => run.scenario === scenario)
    return picked.reduce((sum, run) => sum + run.contactsPerSecond, 0) / picked.length
  }
  return { runs, ratio: Math.round((mean('batch') / Math.max(mean('single'), 1)) * 10) / 10 }
}

export function printBatch(figures: BatchFigures, connections: number) {
  console.log(`\nbatch upsert vs single POST /contacts, ${String(connections)} connections, ten companies, alternating runs:`)
  console.table(figures.runs.map((run) => ({
    scenario: run.scenario === 'single' ? 'POST /api/v1/contacts (one contact per request)' : `POST /api/v1/contacts/batch (${String(BATCH_SIZE)} per request)`,
    'contacts/s': run.contactsPerSecond, 'p50 ms': run.p50, 'p99 ms': run.p99, errors: run.errors,
  })))
  const met = figures.ratio >= BATCH_GOAL ? 'met' : 'NOT met'
  console.log(`batch / single (means): ${String(figures.ratio)}x (goal ≥ ${String(BATCH_GOAL)}x: ${met})`)
}
