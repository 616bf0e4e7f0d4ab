// The one way to the database: a Db is the pool or a transaction's client, statements run
// on it with run() (src/db/query.ts), and transaction() opens a transaction on it. The
// service reads one private field of node-postgres, in pooler-statements.ts only: the names
// a connection has parsed (docs/architecture.md, "The database").
import pg from 'pg'
import { isDatabaseUnavailable, retryingDeadlocks } from './pg-errors.js'

/** The database (the pool) or a transaction's client: repositories and run() take either. */
export type Db = pg.Pool | pg.PoolClient

/** Savepoints open on a transaction's client (nested transaction() calls). */
const depths = new WeakMap<pg.PoolClient, number>()

/** How long a transaction's client waits for each statement's answer, where allowLongerWaits raised it. */
const waits = new WeakMap<pg.PoolClient, number>()

/**
 * Until the transaction ends, its client waits `ms` for each statement's answer instead of the
 * pool's bound (DB_STATEMENT_TIMEOUT_MS + 0.5 s, whose passing closes the connection): for a
 * transaction that raised its statements' server-side limit too (a contact import's batch).
 */
export function allowLongerWaits(tx: Db, ms: number): void {
  if (tx instanceof pg.Pool) throw new Error('only a transaction waits longer')
  waits.set(tx, ms)
}

/** The wait allowLongerWaits set for this transaction, if any. */
export const longerWaitOf = (db: Db): number | undefined => (db instanceof pg.Pool ? undefined : waits.get(db))

export interface TransactionOptions {
  /**
   * Generic plans for every statement from here to the end of the transaction (SET LOCAL
   * plan_cache_mode, sent with the BEGIN or SAVEPOINT in one round trip): for the contact
   * writes, whose statements find rows by keys whatever the values and whose planning on
   * each run cost more than running them (docs/performance.md, "Issue 40's contact writes
   * beside `aba1610`").
   */
  genericPlans?: boolean
  /**
   * Custom settings (`engage.*`) for the rest of the transaction, sent with its BEGIN as SET
   * LOCAL: what a module's own triggers and functions read (the contact writes:
   * contactWriteTransaction). A function gets the transaction's connection (its counter slot:
   * src/db/counters.ts, counterSlotSetting).
   */
  settings?: Settings | ((client: pg.PoolClient) => Settings)
}

/** Custom settings by name: names lower-case words, values lower-case words and digits. */
export type Settings = Readonly<Record<`engage.${string}`, string>>

/** The SET LOCAL statements of `options` on `client`, each after a `; `, for the BEGIN or SAVEPOINT they go with. */
function settingsOf(options: TransactionOptions, client: pg.PoolClient): string {
  const given = typeof options.settings === 'function' ? options.settings(client) : options.settings
  const settings = Object.entries(given ?? {})
  // Names and values are the callers' constants, checked here because they are sent as text.
  for (const [name, value] of settings) {
    if (!/^engage\.[a-z_]+$/.test(name) || !/^[a-z0-9_]+$/.test(value)) throw new Error(`not a setting a transaction sets: ${name} = ${value}`)
  }
  return (options.genericPlans ? '; set local plan_cache_mode = force_generic_plan' : '') +
    settings.map(([name, value]) => `; set local ${name} = '${value}'`).join('')
}

/**
 * Runs `fn` in a transaction: BEGIN … COMMIT on a client of the pool, or a savepoint when
 * `db` is already a transaction's client. A deadlock or serialization failure runs it again
 * from the start (src/db/pg-errors.ts, retryingDeadlocks), so `fn` must not do anything outside
 * the database that cannot be repeated.
 */
export async function transaction<T>(db: Db, fn: (tx: Db) => Promise<T>, options: TransactionOptions = {}): Promise<T> {
  return retryingDeadlocks(() => (db instanceof pg.Pool ? outermost(db, fn, options) : savepoint(db, fn, options)))
}

/** A transaction left open across the steps of one request; `db` is its client. */
export interface HeldTransaction {
  readonly db: Db
  /** COMMIT; fails when the transaction did not commit (a failed statement rolled it back). */
  commit(): Promise<void>
  rollback(): Promise<void>
}

/**
 * BEGIN on a client of the pool, held until commit() or rollback() gives the client back: a
 * request with an Idempotency-Key writes its changes and its stored answer in one
 * transaction. transaction() on its `db` opens savepoints of it.
 */
export async function holdTransaction(pool: Db): Promise<HeldTransaction> {
  if (!(pool instanceof pg.Pool)) throw new Error('a held transaction starts on the pool')
  const client = await pool.connect()
  try {
    await client.query('begin')
  } catch (err) {
    client.release(err instanceof Error ? err : true)
    throw err
  }
  let ended = false
  const end = async (statement: 'commit' | 'rollback') => {
    if (ended) return
    ended = true
    let result: pg.QueryResult
    try {
      result = await client.query(statement)
    } catch (err) {
      // A connection whose COMMIT or ROLLBACK failed is destroyed, not handed out again.
      client.release(err instanceof Error ? err : true)
      throw err
    }
    client.release()
    // PostgreSQL answers COMMIT of a failed transaction with ROLLBACK, not an error.
    if (statement === 'commit' && result.command !== 'COMMIT') throw new Error('the transaction was rolled back')
  }
  return { db: client, commit: () => end('commit'), rollback: () => end('rollback') }
}

async function outermost<T>(pool: pg.Pool, fn: (tx: Db) => Promise<T>, options: TransactionOptions): Promise<T> {
  const client = await pool.connect()
  // A client whose connection failed is destroyed on release, not handed out again.
  let broken: Error | undefined
  try {
    await client.query(`begin${settingsOf(options, client)}`)
    try {
      const result = await fn(client)
      await client.query('commit')
      return result
    } catch (err) {
      await client.query('rollback').catch((rollbackError: unknown) => {
        broken = rollbackError instanceof Error ? rollbackError : new Error('rollback failed')
      })
      throw err
    }
  } catch (err) {
    if (isDatabaseUnavailable(err)) broken ??= err instanceof Error ? err : new Error('database unavailable')
    throw err
  } finally {
    waits.delete(client)
    client.release(broken)
  }
}

async function savepoint<T>(client: pg.PoolClient, fn: (tx: Db) => Promise<T>, options: TransactionOptions): Promise<T> {
  const depth = (depths.get(client) ?? 0) + 1
  const name = `sp${String(depth)}`
  await client.query(`savepoint ${name}${settingsOf(options, client)}`)
  depths.set(client, depth)
  try {
    const result = await fn(client)
    await client.query(`release savepoint ${name}`)
    return result
  } catch (err) {
    await client.query(`rollback to savepoint ${name}`)
    throw err
  } finally {
    depths.set(client, depth - 1)
  }
}

/**
 * Yields what `rows` yields from one read-only REPEATABLE READ transaction: every statement
 * sees the same snapshot, however long the walk (an export). Its client is held until the
 * walk ends or its consumer stops early (a closed download), then given back.
 */
export async function* inSnapshot<T>(db: Db, rows: (tx: Db) => AsyncIterable<T>): AsyncGenerator<T> {
  if (!(db instanceof pg.Pool)) {
    yield* rows(db)
    return
  }
  const client = await db.connect()
  let broken: Error | undefined
  let open = false
  try {
    await client.query('begin isolation level repeatable read, read only')
    open = true
    yield* rows(client)
    await client.query('commit')
    open = false
  } catch (err) {
    if (isDatabaseUnavailable(err)) broken = err instanceof Error ? err : new Error('database unavailable')
    throw err
  } finally {
    // Also reached when the consumer stopped early: the transaction only read, so rolling it back loses nothing.
    if (open && broken === undefined) await client.query('rollback').catch((err: unknown) => {
      broken = err instanceof Error ? err : new Error('rollback failed')
    })
    client.release(broken)
  }
}
