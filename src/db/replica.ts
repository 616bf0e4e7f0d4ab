// Reads that may go to a streaming replica (DATABASE_REPLICA_URL): the statements marked
// `replica` in their defineQuery (lists, counts, searches, the sync walks), run outside a
// transaction, during an API request (src/plugins/replica.plugin.ts gives each one its context).
// A read goes to the replica only when it is exact there:
//
// - the replica answers and lags at most DB_REPLICA_MAX_LAG_MS behind the primary; else
//   every read goes to the primary until it catches up (and /readyz says so);
// - the replica has replayed the caller's last write: after a write request the primary's
//   WAL position is noted for the token, and its reads stay on the primary until the
//   replica has replayed that far (read-your-writes; usually a few hundred milliseconds).
//   With REDIS_URL the position is shared with every instance (shared-writes.ts), so the
//   token's next request reads its write whichever instance the balancer sends it to;
// - the replica has replayed what the request's own primary reads saw: a sync walk's
//   high-water mark is taken on the primary with its WAL position, and the page is read on
//   the replica only once the replica has replayed that far, so the cursor stays exact.
//
// What the replica has replayed is polled every POLL_MS (one statement on each side); the
// value only grows, so a stale one errs toward the primary, never toward a stale read.
// The lag is how long ago the primary's position was where the replica's replay is now.
// A replica read that fails for a connection-level reason marks the replica down and the
// read runs on the primary: a replica going away costs no request.
import { AsyncLocalStorage } from 'node:async_hooks'
import pg from 'pg'
import { isDatabaseUnavailable } from './pg-errors.js'
import { queryNamedOnPool } from './pooler-statements.js'
import type { SharedWrites } from './shared-writes.js'

export const POLL_MS = 200
/** Polls remembered while the replica is behind them all (200 s at POLL_MS: past any bound). */
const MAX_SAMPLES = 1000

/** A WAL position (`16/B374D848`) as a number that compares. */
export function lsnValue(text: string): bigint {
  const [high = '0', low = '0'] = text.split('/')
  return (BigInt(`0x${high}`) << 32n) | BigInt(`0x${low}`)
}

export type ReplicaState = 'ok' | 'lagging' | 'down'

interface ReadContext {
  /** The caller's token: its last write must be replayed before its reads use the replica. */
  tokenId: number | undefined
  /** A WAL position the replica must have replayed (a walk's high-water mark). */
  floor: bigint
}

const contexts = new AsyncLocalStorage<ReadContext>()

/** Runs the rest of a request (`next`) with a read context: only then may reads use the replica. */
export function runWithReadContext(next: () => void): void {
  contexts.run({ tokenId: undefined, floor: 0n }, next)
}

/** The request's caller, once known (after authentication). */
export function setReadCaller(tokenId: number): void {
  const context = contexts.getStore()
  if (context) context.tokenId = tokenId
}

/** The replica must have replayed `lsn` for this request's later reads (a walk's mark, a write elsewhere). */
export function requireReplayed(lsn: string | bigint): void {
  const context = contexts.getStore()
  if (context) {
    const value = typeof lsn === 'bigint' ? lsn : lsnValue(lsn)
    if (value > context.floor) context.floor = value
  }
}

export interface ReplicaOptions {
  /** The replica's connection settings (the primary's timeouts and session settings). */
  client: pg.ClientConfig
  /** The primary's pool: where the positions are read. */
  primary: pg.Pool
  maxLagMs: number
  /** With Redis: the tokens' write positions shared by every instance. */
  shared?: SharedWrites | undefined
  onError: (err: Error) => void
}

export class Replica {
  readonly pool: pg.Pool
  private state: ReplicaState = 'down'
  private lagMs = Number.POSITIVE_INFINITY
  /** A lower bound of what the replica has replayed. */
  private replayed = -1n
  /** The primary's positions of the last polls, oldest first. */
  private samples: { at: number; lsn: bigint }[] = []
  /** Per token, the primary's position after its last write the replica has not replayed yet. */
  private readonly writes = new Map<number, bigint>()
  private timer: NodeJS.Timeout | undefined
  private polling: Promise<void> | undefined

  constructor(private readonly options: ReplicaOptions) {
    this.pool = new pg.Pool({ ...options.client, max: 10, idleTimeoutMillis: 30_000 })
    this.pool.on('error', options.onError)
    this.pool.on('connect', (client) => {
      client.on('error', options.onError)
    })
  }

  /** First poll (so a healthy replica is used at once), then every POLL_MS. */
  async start(): Promise<void> {
    await this.poll()
    this.timer = setInterval(() => {
      this.polling ??= this.poll().finally(() => {
        this.polling = undefined
      })
    }, POLL_MS)
    this.timer.unref()
  }

  status(): { state: ReplicaState; lagMs: number | null } {
    return { state: this.state, lagMs: Number.isFinite(this.lagMs) ? Math.round(this.lagMs) : null }
  }

  async poll(): Promise<void> {
    let primaryAt: bigint
    try {
      primaryAt = lsnValue((await this.options.primary.query<{ lsn: string }>('select pg_current_wal_insert_lsn()::text as lsn')).rows[0]?.lsn ?? '0/0')
    } catch {
      return // the primary's own trouble: requests answer 503 anyway
    }
    const now = performance.now()
    this.samples.push({ at: now, lsn: primaryAt })
    try {
      const { rows } = await this.pool.query<{ lsn: string | null }>('select pg_last_wal_replay_lsn()::text as lsn')
      const lsn = rows[0]?.lsn
      if (!lsn) throw new Error('DATABASE_REPLICA_URL is not a standby (pg_last_wal_replay_lsn() is null)')
      this.replayed = lsnValue(lsn)
    } catch (err) {
      this.markDown(err as Error)
      return
    }
    // How long ago the primary was where the replay is now: the latest poll at or below it
    // (an upper bound, within POLL_MS). Older polls are not needed any more.
    const caughtUp = this.samples.findLastIndex((sample) => sample.lsn <= this.replayed)
    if (caughtUp > 0) this.samples.splice(0, caughtUp)
    if (this.samples.length > MAX_SAMPLES) this.samples.splice(0, this.samples.length - MAX_SAMPLES)
    const first = this.samples[0] ?? { at: now, lsn: primaryAt }
    this.lagMs = now - first.at
    // Behind every poll we remember: at least that far behind, and no telling how much more.
    this.state = caughtUp < 0 || this.lagMs > this.options.maxLagMs ? 'lagging' : 'ok'
    for (const [tokenId, lsn] of this.writes) if (lsn <= this.replayed) this.writes.delete(tokenId)
  }

  /**
   * A token's write request is answered: its reads stay on the primary until the replica
   * has replayed the primary's position now (after the write's commit).
   */
  async noteWrite(tokenId: number): Promise<void> {
    const { rows } = await this.options.primary.query<{ lsn: string }>('select pg_current_wal_insert_lsn()::text as lsn')
    const lsn = lsnValue(rows[0]?.lsn ?? '0/0')
    this.writes.set(tokenId, lsn)
    await this.options.shared?.record(tokenId, lsn)
  }

  /**
   * With shared writes: this request's reads wait for the token's last write made through
   * any instance. Skipped while the replica is not used anyway (its reads go to the primary).
   */
  async learnWrites(tokenId: number): Promise<void> {
    if (!this.options.shared || this.state !== 'ok') return
    requireReplayed(await this.options.shared.lastWrite(tokenId))
  }

  /** Whether a replica read in the current context would be exact now. */
  usable(): boolean {
    const context = contexts.getStore()
    if (!context || context.tokenId === undefined || this.state !== 'ok') return false
    const written = this.writes.get(context.tokenId) ?? 0n
    return this.replayed >= context.floor && this.replayed >= written
  }

  /**
   * Runs a read on the replica; a connection-level failure marks it down and reads the primary.
   * `pooled`: the replica's URL may be a transaction pooler (src/db/pooler-statements.ts).
   */
  async query<Row extends pg.QueryResultRow>(config: pg.QueryConfig, primary: () => Promise<pg.QueryResult<Row>>, pooled: boolean): Promise<pg.QueryResult<Row>> {
    try {
      return await (pooled ? queryNamedOnPool<Row>(this.pool, config) : this.pool.query<Row>(config))
    } catch (err) {
      if (!isDatabaseUnavailable(err)) throw err
      this.markDown(err as Error)
      return primary()
    }
  }

  private markDown(err: Error): void {
    if (this.state !== 'down') this.options.onError(err)
    this.state = 'down'
    this.lagMs = Number.POSITIVE_INFINITY
  }

  async close(): Promise<void> {
    clearInterval(this.timer)
    await this.polling
    await this.options.shared?.close()
    await this.pool.end()
  }
}

// The replica of each primary pool (src/db/client.ts attaches it), found by run().
const replicas = new WeakMap<object, Replica>()

export function attachReplica(pool: pg.Pool, replica: Replica): void {
  replicas.set(pool, replica)
}

/** The replica a read on `client` may use now, or undefined (none, or not exact now). */
export function replicaFor(client: object): Replica | undefined {
  const replica = replicas.get(client)
  return replica?.usable() ? replica : undefined
}
