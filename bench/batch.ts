// The batch scenario of npm run bench: contacts written per second by POST /contacts/batch
// (100 new contacts per request) against single POST /contacts, at the same concurrency,
// over the same ten companies (one token each, round-robin). Issue 13 asks the batch for
// at least ten times the contacts per second of single requests.
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

export interface BatchFigures {
  singles: { contactsPerSecond: number; p50: number; p99: number; errors: number }
  batch: { contactsPerSecond: number; p50: number; p99: number; errors: number }
  ratio: number
}

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

/** Single POSTs, then batches of 100, each for `seconds` after a 2 s warm-up. */
export async function measureBatch(api: string, tokens: string[], connections: number, seconds: number): Promise<BatchFigures> {
  const singles = await contactsPerSecond(`${api}/contacts`, tokens, connections, seconds, 1)
  const batch = await contactsPerSecond(`${api}/contacts/batch`, tokens, connections, seconds, BATCH_SIZE)
  return { singles, batch, ratio: Math.round((batch.contactsPerSecond / Math.max(singles.contactsPerSecond, 1)) * 10) / 10 }
}

export function printBatch(figures: BatchFigures, connections: number) {
  console.log(`\nbatch upsert vs single POST /contacts, ${String(connections)} connections, ten companies:`)
  console.table([
    { scenario: 'POST /api/v1/contacts (one contact per request)', 'contacts/s': figures.singles.contactsPerSecond,
      'p50 ms': figures.singles.p50, 'p99 ms': figures.singles.p99, errors: figures.singles.errors },
    { scenario: `POST /api/v1/contacts/batch (${String(BATCH_SIZE)} per request)`, 'contacts/s': figures.batch.contactsPerSecond,
      'p50 ms': figures.batch.p50, 'p99 ms': figures.batch.p99, errors: figures.batch.errors },
  ])
  const met = figures.ratio >= BATCH_GOAL ? 'met' : 'NOT met'
  console.log(`batch / single: ${String(figures.ratio)}x (goal ≥ ${String(BATCH_GOAL)}x: ${met})`)
}
