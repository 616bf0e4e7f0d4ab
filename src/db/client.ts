// Opens the database: PostgreSQL through node-postgres when a URL is given, else the
// embedded PGlite (on disk, or in memory for tests). Both get the same schema, the same
// migrations and the same Drizzle API, so the rest of the service has one code path.
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { PGlite } from '@electric-sql/pglite'
import { btree_gin } from '@electric-sql/pglite/contrib/btree_gin'
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm'
import { sql, type SQL } from 'drizzle-orm'
import { drizzle as drizzlePg } from 'drizzle-orm/node-postgres'
import { migrate as migratePg } from 'drizzle-orm/node-postgres/migrator'
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core'
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite'
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator'
import pg from 'pg'
import * as schema from './schema.js'

export type Schema = typeof schema
/** The database or a transaction: repositories take either. */
export type Database = PgDatabase<PgQueryResultHKT, Schema>

/**
 * Rows of a raw SQL statement (both drivers answer `{ rows }`). Raw rows are as the driver
 * gives them: snake_case names, and bigint columns as strings unless cast in the SQL.
 */
export async function rawRows<T>(db: Database, query: SQL): Promise<T[]> {
  const result = (await db.execute(query)) as { rows: T[] }
  return result.rows
}

export interface DatabaseHandle {
  readonly db: Database
  readonly kind: 'postgres' | 'pglite'
  /** Resolves when the database answers a trivial query. */
  ping(): Promise<void>
  /**
   * LISTEN on a channel. On PostgreSQL a dedicated connection, re-established after a
   * failure; `onReconnect` then runs because notifications may have been missed meanwhile.
   */
  listen(channel: string, onMessage: (payload: string) => void, onReconnect?: () => void): Promise<void>
  close(): Promise<void>
}

export interface DatabaseOptions {
  databaseUrl?: string | undefined
  /** PGlite data directory; 'memory://' for an in-memory database. */
  dataDir?: string | undefined
  /** Apply the committed migrations (default true). */
  migrate?: boolean
  onError?: (err: Error) => void
}

const migrationsFolder = fileURLToPath(new URL('../../drizzle', import.meta.url))
const MIGRATION_LOCK = 7_401_229 // pg_advisory_lock key: one migrator at a time across instances

export async function openDatabase(options: DatabaseOptions): Promise<DatabaseHandle> {
  const handle = options.databaseUrl
    ? openPostgres(options.databaseUrl, options.onError)
    : await openPglite(options.dataDir ?? 'memory://')
  if (options.migrate !== false) {
    try {
      await handle.migrate()
    } catch (err) {
      await handle.close()
      throw err
    }
  }
  return handle
}

interface OpenedHandle extends DatabaseHandle {
  migrate(): Promise<void>
}

function openPostgres(url: string, onError: (err: Error) => void = () => {}): OpenedHandle {
  const pool = new pg.Pool({
    connectionString: url,
    max: 10,
    // A down database must answer 503 quickly, not hang a request.
    connectionTimeoutMillis: 3000,
    idleTimeoutMillis: 30_000,
  })
  pool.on('error', onError) // an idle client lost its server: the pool replaces it
  const db = drizzlePg({ client: pool, schema }) as unknown as Database
  const listeners: pg.Client[] = []
  let closed = false

  return {
    db,
    kind: 'postgres',
    async ping() {
      await pool.query('select 1')
    },
    async migrate() {
      const client = await pool.connect()
      try {
        await client.query('select pg_advisory_lock($1)', [MIGRATION_LOCK])
        await migratePg(drizzlePg({ client, schema }), { migrationsFolder })
      } finally {
        await client.query('select pg_advisory_unlock($1)', [MIGRATION_LOCK]).catch(() => undefined)
        client.release()
      }
    },
    async listen(channel, onMessage, onReconnect) {
      const connect = async (): Promise<void> => {
        const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3000 })
        const retry = () => {
          const index = listeners.indexOf(client)
          if (index >= 0) listeners.splice(index, 1)
          if (closed) return
          setTimeout(() => {
            connect().then(onReconnect, retry)
          }, 1000).unref()
        }
        client.on('error', onError)
        client.on('notification', (msg) => {
          if (msg.channel === channel) onMessage(msg.payload ?? '')
        })
        listeners.push(client)
        try {
          await client.connect()
          await client.query(`LISTEN ${pg.escapeIdentifier(channel)}`)
        } catch (err) {
          await client.end().catch(() => undefined)
          throw err
        }
        client.once('end', retry)
      }
      await connect()
    },
    async close() {
      if (closed) return
      closed = true
      await Promise.all(listeners.map((client) => client.end().catch(() => undefined)))
      await pool.end()
    },
  }
}

async function openPglite(dataDir: string): Promise<OpenedHandle> {
  const inMemory = dataDir.startsWith('memory://')
  const releaseLock = inMemory ? () => {} : lockDataDir(dataDir)
  let client: PGlite
  try {
    client = await PGlite.create(inMemory ? undefined : dataDir, { extensions: { pg_trgm, btree_gin } })
  } catch (err) {
    releaseLock()
    throw err
  }
  const db = drizzlePglite({ client, schema }) as unknown as Database
  return {
    db,
    kind: 'pglite',
    async ping() {
      await db.execute(sql`select 1`)
    },
    async migrate() {
      await migratePglite(drizzlePglite({ client, schema }), { migrationsFolder })
    },
    async listen(channel, onMessage) {
      await client.listen(channel, onMessage)
    },
    async close() {
      if (client.closed) return
      await client.close()
      releaseLock()
    },
  }
}

/**
 * PGlite is a single-process database: two processes on one data directory would corrupt
 * it. A pid file keeps a second server or admin command out with a clear message.
 */
function lockDataDir(dataDir: string): () => void {
  mkdirSync(dataDir, { recursive: true })
  const lockFile = join(dataDir, 'engage.pid')
  let holder: number | undefined
  try {
    holder = Number(readFileSync(lockFile, 'utf8'))
  } catch {
    holder = undefined
  }
  if (holder && holder !== process.pid && isAlive(holder)) {
    throw new Error(
      `the embedded database in ${dataDir} is in use by process ${holder}; stop it first, or run both against PostgreSQL with DATABASE_URL`,
    )
  }
  writeFileSync(lockFile, String(process.pid))
  return () => {
    rmSync(lockFile, { force: true })
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM'
  }
}
