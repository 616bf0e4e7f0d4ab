// Opens the database: PostgreSQL through node-postgres, either the server named by
// DATABASE_URL or the embedded cluster under DATA_DIR (src/db/embedded.ts). One driver, one
// dialect; the migrations are SQL files applied at start (src/db/migrate.ts).
import pg from 'pg'
import { giveCounterSlots } from './counters.js'
import type { Db } from './db.js'
import { startEmbeddedCluster, type EmbeddedCluster } from './embedded.js'
import { isDatabaseUnavailable } from './pg-errors.js'
import { applyMigrations } from './migrate.js'
import { attachPipeline, Pipeline } from './pipeline.js'
import { defineQuery, run } from './query.js'
import { attachReplica, Replica, type ReplicaState } from './replica.js'
import { SharedWrites } from './shared-writes.js'

// bigint columns (ids, counts) arrive as JavaScript numbers: ids are at most 2^53-1 by
// contract, so no value loses precision, and rows can go out as they are.
pg.types.setTypeParser(pg.types.builtins.INT8, Number)

export interface DatabaseHandle {
  /** The pool: statements run on it with run(), transactions open on it with transaction(). */
  readonly db: Db
  readonly kind: 'postgres' | 'embedded'
  /** Resolves when the database answers a trivial query. */
  ping(): Promise<void>
  /** The read replica's state (src/db/replica.ts), or undefined without one. */
  replica?(): { state: ReplicaState; lagMs: number | null } | undefined
  /** A token's write request is answered: its next reads must see the write (src/db/replica.ts). */
  noteWrite?(tokenId: number): Promise<void>
  /** Before a request's reads: the token's writes through other instances (REDIS_URL; src/db/shared-writes.ts). */
  learnWrites?(tokenId: number): Promise<void>
  /**
   * LISTEN on a channel, on a dedicated connection re-established after a failure;
   * `onReconnect` then runs because notifications may have been missed meanwhile. The
   * answer stops it, so that an app closed before its database frees its connection.
   */
  listen(channel: string, onMessage: (payload: string) => void, onReconnect?: () => void): Promise<() => Promise<void>>
  close(): Promise<void>
}

export interface DatabaseOptions {
  databaseUrl?: string | undefined
  /** Without databaseUrl: the embedded cluster lives under this folder (DATA_DIR). */
  dataDir?: string | undefined
  /** Apply the committed migrations (default true). */
  migrate?: boolean
  /** Longest a statement may run on the server; the client gives up a little later. */
  statementTimeoutMs?: number
  /** Pipelined connections the short reads share (src/db/pipeline.ts); 0: every read takes a pooled one. */
  pipelineConnections?: number
  /**
   * `transaction`: databaseUrl is a transaction-mode pooler, so nothing may rely on a session:
   * no startup settings (the role's defaults in the database carry them), and migrations and
   * LISTEN go to directUrl.
   */
  pooler?: 'none' | 'transaction'
  /** PostgreSQL itself (or a session-mode pool): migrations and LISTEN. Default: databaseUrl. */
  directUrl?: string | undefined
  /** A streaming replica for the reads marked `replica` (src/db/replica.ts). */
  replicaUrl?: string | undefined
  /** Past this lag the replica is skipped. */
  replicaMaxLagMs?: number
  /** With a replica: Redis shares each token's last write with the other instances (read-your-writes). */
  redisUrl?: string | undefined
  /** Their keys' prefix (tests isolate with it); default engage:rw:. */
  redisKeyPrefix?: string
  /** After Redis failed or came back, how long reads stay on the primary; default max lag + 10 s. */
  sharedWritesUnsureMs?: number
  onError?: (err: Error) => void
  /** What a person watching a first start is told ("preparing the database…"). */
  onProgress?: (message: string) => void
}

// /readyz: does the database answer?
const pingStatement = defineQuery<{ one: number }>('db.ping', 'select 1 as one')

/** The database the service keeps its data in on the embedded cluster. */
const EMBEDDED_DATABASE = 'engage'
export const DEFAULT_STATEMENT_TIMEOUT_MS = 3000
export const DEFAULT_PIPELINE_CONNECTIONS = 2
export const DEFAULT_REPLICA_MAX_LAG_MS = 1000

const MIGRATION_LOCK = 7_401_229 // pg_advisory_lock key: one migrator at a time across instances

export async function openDatabase(options: DatabaseOptions): Promise<DatabaseHandle> {
  const handle = options.databaseUrl
    ? openPostgres(options.databaseUrl, options)
    : await openEmbedded(options.dataDir ?? './data', options)
  try {
    await handle.prepare(options.migrate !== false)
  } catch (err) {
    await handle.close()
    throw err
  }
  return handle
}

interface OpenedHandle extends DatabaseHandle {
  /** Readies the database for the pool (the role's defaults behind a pooler), then migrates if asked. */
  prepare(migrate: boolean): Promise<void>
}

async function openEmbedded(dataDir: string, options: DatabaseOptions): Promise<OpenedHandle> {
  const cluster = await startEmbeddedCluster({ dataDir, onProgress: options.onProgress })
  try {
    await ensureDatabase(cluster)
  } catch (err) {
    await cluster.release()
    throw err
  }
  const handle = openPostgres(cluster.url(EMBEDDED_DATABASE), options)
  return {
    ...handle,
    kind: 'embedded',
    async close() {
      await handle.close()
      await cluster.release()
    },
  }
}

async function ensureDatabase(cluster: EmbeddedCluster): Promise<void> {
  const client = new pg.Client({ connectionString: cluster.url('postgres') })
  await client.connect()
  try {
    const { rowCount } = await client.query('select 1 from pg_database where datname = $1', [EMBEDDED_DATABASE])
    if (rowCount === 0) {
      await client.query(`CREATE DATABASE ${pg.escapeIdentifier(EMBEDDED_DATABASE)}`).catch((err: unknown) => {
        if ((err as { code?: string }).code !== '42P04') throw err // created by a process that started at the same moment
      })
    }
  } finally {
    await client.end()
  }
}

/**
 * Clients checked out of the pool (transactions) are destroyed as soon as one of their
 * statements fails for a connection-level reason (the connection was cut, the database did
 * not answer in time), and releasing them twice is harmless: a client whose statement timed
 * out must not go back to the pool still busy, whoever checked it out and however it ends.
 * (pool.query, used outside transactions, already destroys such clients.)
 */
export function hardenCheckouts(pool: pg.Pool): void {
  // The query is wrapped once per client, when the pool opens it, because a wrapper added at
  // every checkout stacked up on a pooled client and slowed the service down with uptime
  // (docs/performance.md, "Measured at the statements").
  pool.on('connect', (client) => {
    const query = client.query.bind(client) as (...args: unknown[]) => unknown
    client.query = ((...args: unknown[]) => {
      const result = query(...args)
      if (result instanceof Promise) {
        return result.catch((err: unknown) => {
          // The release of the checkout in progress (pool.query's own path passes a
          // callback, so never comes here).
          if (isDatabaseUnavailable(err)) client.release(err as Error)
          throw err
        })
      }
      return result
    }) as typeof client.query
  })
  // The release, at every checkout: the pool hands each checkout a fresh one.
  const connect = pool.connect.bind(pool) as (callback?: unknown) => Promise<pg.PoolClient> | undefined
  pool.connect = ((callback?: unknown) => {
    if (callback) return connect(callback) // pool.query's own path
    return (connect() as Promise<pg.PoolClient>).then(releaseOnce)
  }) as typeof pool.connect
}

function releaseOnce(client: pg.PoolClient): pg.PoolClient {
  const release = client.release.bind(client)
  let released = false
  client.release = (err?: Error | boolean) => {
    if (released) return
    released = true
    release(err)
  }
  return client
}

/**
 * The settings of every pool connection (bench/scale.ts explains plans with them too).
 * Timestamps are parsed as UTC offsets whatever the server's or cluster's default zone. JIT
 * is off because compiling the short statements whose estimated cost passes jit_above_cost
 * saved nothing (docs/performance.md, "Figures from the statements"). random_page_cost is
 * 1.1, the usual value for SSDs and data in memory, so that a write's foreign-key checks probe
 * a small referenced table's primary key instead of reading the table (docs/performance.md,
 * "Writes: where a contact's database time goes").
 */
export const SESSION_SETTINGS = { timezone: 'UTC', jit: 'off', random_page_cost: '1.1' } as const
export const SESSION_OPTIONS = Object.entries(SESSION_SETTINGS)
  .map(([name, value]) => `-c ${name}=${value}`)
  .join(' ')

/** The server-side time limits of every session, from the statement timeout. */
function sessionLimits(statementTimeoutMs: number) {
  return {
    statement_timeout: statementTimeoutMs,
    lock_timeout: statementTimeoutMs,
    idle_in_transaction_session_timeout: 4 * statementTimeoutMs,
  }
}

/**
 * Behind a transaction pooler a session setting lasts one transaction on one server
 * connection, and PgBouncer refuses unknown startup parameters (`options`,
 * `statement_timeout`): the settings become the role's defaults in this database, which every
 * server connection the pooler opens reads at its start. Only this role in this database
 * changes; a pooler keeps its open server connections' old values (PgBouncer: RECONNECT).
 */
async function setRoleDefaults(direct: pg.ClientConfig, statementTimeoutMs: number): Promise<void> {
  const client = new pg.Client(direct)
  await client.connect()
  try {
    const { rows } = await client.query<{ name: string }>('select current_database() as name')
    const database = pg.escapeIdentifier(rows[0]?.name ?? '')
    const settings = { ...SESSION_SETTINGS, ...sessionLimits(statementTimeoutMs) }
    await client.query(
      Object.entries(settings)
        .map(([name, value]) => `ALTER ROLE CURRENT_USER IN DATABASE ${database} SET ${name} = ${pg.escapeLiteral(String(value))}`)
        .join(';\n'),
    )
  } finally {
    await client.end().catch(() => undefined)
  }
}

/**
 * Applies the migrations on a connection of its own, straight to PostgreSQL (its session
 * advisory lock cannot live behind a transaction pooler), without the pool's time limits,
 * because a migration that rewrites a big table or builds its indexes runs longer than the
 * pool's client-side query_timeout, which would cut its connection mid-statement.
 */
async function migrateOn(direct: pg.ClientConfig, onError: (err: Error) => void): Promise<void> {
  const client = new pg.Client({ ...direct, query_timeout: undefined })
  client.on('error', onError)
  await client.connect()
  try {
    await client.query('set statement_timeout = 0; set lock_timeout = 0; set idle_in_transaction_session_timeout = 0')
    await client.query('select pg_advisory_lock($1)', [MIGRATION_LOCK])
    await applyMigrations(client)
  } finally {
    await client.end().catch(() => undefined) // ending the session releases the lock
  }
}

function openPostgres(url: string, options: DatabaseOptions): OpenedHandle {
  const onError = options.onError ?? (() => {})
  const statementTimeout = options.statementTimeoutMs ?? DEFAULT_STATEMENT_TIMEOUT_MS
  const transactionPooler = options.pooler === 'transaction'
  const base: pg.ClientConfig = {
    connectionString: url,
    // A down database must answer 503 quickly, not hang a request.
    connectionTimeoutMillis: 3000,
    // Every statement is bounded on the server, and on the client a little later for a
    // database that does not answer at all (stopped, frozen, cut off).
    query_timeout: statementTimeout + 500,
  }
  const session = { ...sessionLimits(statementTimeout), options: SESSION_OPTIONS }
  // Behind a transaction pooler the same settings are the role's defaults (setRoleDefaults).
  const connection: pg.ClientConfig = transactionPooler ? base : { ...base, ...session }
  const direct: pg.ClientConfig = { ...base, ...session, connectionString: options.directUrl ?? url }
  const pool = new pg.Pool({ ...connection, max: 10, idleTimeoutMillis: 30_000 })
  giveCounterSlots(pool)
  const pipelineConnections = options.pipelineConnections ?? DEFAULT_PIPELINE_CONNECTIONS
  const pipeline = pipelineConnections > 0 ? new Pipeline({ connections: pipelineConnections, client: connection, onError }) : undefined
  if (pipeline) attachPipeline(pool, pipeline)
  // An idle client that lost its server: the pool replaces it.
  pool.on('error', onError)
  // A client checked out (inside a transaction, between two statements) has no listener of
  // the pool's: without this, a connection killed there is an uncaught error that ends the
  // process. The statement in progress fails on its own and the pool drops the client.
  pool.on('connect', (client) => {
    client.on('error', onError)
  })
  hardenCheckouts(pool)
  const maxLagMs = options.replicaMaxLagMs ?? DEFAULT_REPLICA_MAX_LAG_MS
  // The bound covers a replica within its lag and the polls that tell so (src/db/replica.ts).
  const unsureMs = options.sharedWritesUnsureMs ?? maxLagMs + 10_000
  const replica = options.replicaUrl
    ? new Replica({
        client: { ...connection, connectionString: options.replicaUrl },
        primary: pool,
        maxLagMs,
        shared: options.redisUrl
          ? new SharedWrites({ url: options.redisUrl, keyPrefix: options.redisKeyPrefix ?? 'engage:rw:', unsureMs, ttlMs: Math.max(60_000, 10 * unsureMs), onError })
          : undefined,
        onError,
      })
    : undefined
  if (replica) attachReplica(pool, replica)
  const listeners: pg.Client[] = []
  let closed = false

  return {
    db: pool,
    kind: 'postgres',
    async ping() {
      await run(pool, pingStatement, [])
    },
    replica: () => replica?.status(),
    async noteWrite(tokenId) {
      await replica?.noteWrite(tokenId)
    },
    async learnWrites(tokenId) {
      await replica?.learnWrites(tokenId)
    },
    async prepare(migrate) {
      if (transactionPooler) await setRoleDefaults(direct, statementTimeout)
      if (migrate) await migrateOn(direct, onError)
      await replica?.start()
    },
    async listen(channel, onMessage, onReconnect) {
      let stopped = false
      let current: pg.Client | undefined
      const connect = async (): Promise<void> => {
        // A session of its own: LISTEN cannot live behind a transaction pooler.
        const client = new pg.Client({ connectionString: options.directUrl ?? url, connectionTimeoutMillis: 3000, keepAlive: true })
        const retry = () => {
          const index = listeners.indexOf(client)
          if (index >= 0) listeners.splice(index, 1)
          if (closed || stopped) return
          setTimeout(() => {
            if (!closed && !stopped) connect().then(onReconnect, retry)
          }, 1000).unref()
        }
        client.on('error', onError)
        client.on('notification', (msg) => {
          if (msg.channel === channel) onMessage(msg.payload ?? '')
        })
        listeners.push(client)
        current = client
        try {
          await client.connect()
          await client.query(`LISTEN ${pg.escapeIdentifier(channel)}`)
        } catch (err) {
          await client.end().catch(() => undefined)
          throw err
        }
        client.once('end', retry)
        // Stopped while this connection was being made: it goes at once.
        if (stopped) await client.end().catch(() => undefined)
      }
      await connect()
      return async () => {
        stopped = true
        await current?.end().catch(() => undefined)
      }
    },
    async close() {
      if (closed) return
      closed = true
      await replica?.close()
      await Promise.all(listeners.map((client) => client.end().catch(() => undefined)))
      await pipeline?.close()
      await pool.end()
    },
  }
}
