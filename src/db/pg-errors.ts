// A driver error may arrive wrapped (an error with the driver's as `cause`: the migration
// runner's, a caller's own wrapper); these helpers look through the chain for PostgreSQL's
// SQLSTATE and constraint name.
interface PgErrorFields {
  code?: unknown
  constraint?: unknown
  cause?: unknown
}

function* chain(err: unknown): Generator<PgErrorFields> {
  let current: unknown = err
  for (let depth = 0; depth < 5 && typeof current === 'object' && current !== null; depth++) {
    yield current
    current = (current as PgErrorFields).cause
  }
}

/** The name of the unique constraint or index that `err` violated, if it is a unique violation. */
export function uniqueViolation(err: unknown): string | undefined {
  for (const link of chain(err)) {
    if (link.code === '23505') return typeof link.constraint === 'string' ? link.constraint : ''
  }
  return undefined
}

/** The name of the foreign key that `err` violated, if it is a foreign-key violation. */
export function foreignKeyViolation(err: unknown): string | undefined {
  for (const link of chain(err)) {
    if (link.code === '23503') return typeof link.constraint === 'string' ? link.constraint : ''
  }
  return undefined
}

/** Whether a link of `err`'s chain has one of `codes` (SQLSTATEs or Node's error codes). */
function hasCode(err: unknown, codes: ReadonlySet<string>): boolean {
  for (const link of chain(err)) {
    if (typeof link.code === 'string' && codes.has(link.code)) return true
  }
  return false
}

const STATEMENT_CANCELLED = new Set(['57014'])

/** Whether `err` is a statement PostgreSQL cancelled: its statement_timeout passed (or someone cancelled it). */
export function isStatementTimeout(err: unknown): boolean {
  return hasCode(err, STATEMENT_CANCELLED)
}

// Connection-level failures: the database is down or unreachable, not a bad query.
const UNAVAILABLE_CODES = new Set([
  'ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EHOSTUNREACH', 'EAI_AGAIN',
  '57P01', '57P02', '57P03', // admin_shutdown, crash_shutdown, cannot_connect_now
  '08000', '08001', '08003', '08004', '08006', // connection exceptions
  '53300', // too_many_connections
  '57014', '55P03', // statement_timeout and lock_timeout reached: the database is overloaded or stuck
])
const UNAVAILABLE_MESSAGES = [
  'Connection terminated',
  'timeout exceeded when trying to connect',
  'Client has encountered a connection error',
  'Connection ended',
  'Query read timeout', // the client's query_timeout: the server did not answer at all
  'Client was closed and is not queryable', // a statement after its connection was destroyed
]

export function isDatabaseUnavailable(err: unknown): boolean {
  for (const link of chain(err)) {
    if (typeof link.code === 'string' && UNAVAILABLE_CODES.has(link.code)) return true
    const message = (link as { message?: unknown }).message
    if (typeof message === 'string' && UNAVAILABLE_MESSAGES.some((m) => message.includes(m))) return true
  }
  return false
}

// A deadlock or a serialization failure: PostgreSQL rolled the whole transaction back, so
// running it again is safe. Writes whose locks two requests can take in opposite orders
// (a contact created with a tag while the tag is deleted: the create locks the event
// counter before its foreign key locks the tag, the deletion the tag before the counter;
// batches and single PUTs over the same emails) retry instead of answering 500.
const RETRYABLE_CODES = new Set(['40P01', '40001'])
const ATTEMPTS = 5
/** Before attempt n+1: a random wait of up to n × this, so that the two sides do not meet again at once. */
const BACKOFF_MS = 25

export function isRetryableConflict(err: unknown): boolean {
  return hasCode(err, RETRYABLE_CODES)
}

/**
 * Runs `transaction` (a whole transaction, from BEGIN) again after a deadlock, up to 5 times
 * in all, after a short random wait, because immediate retries under load kept meeting the
 * same conflict (docs/performance.md, "Measured at the statements").
 */
export async function retryingDeadlocks<T>(transaction: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await transaction()
    } catch (err) {
      if (attempt >= ATTEMPTS || !isRetryableConflict(err)) throw err
    }
    await new Promise((resolve) => setTimeout(resolve, Math.random() * BACKOFF_MS * attempt))
  }
}
