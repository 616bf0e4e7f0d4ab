// One way for every test file to get a fresh database and the production app on it: a
// database cloned from a migrated template, on the PostgreSQL named by TEST_DATABASE_URL or,
// without it, on an embedded cluster shared by the test run (and Redis for the rate limit
// when REDIS_URL is set). Nothing is shared between files but the template.
import { createHash, randomBytes } from 'node:crypto'
import { readdirSync, readFileSync } from 'node:fs'
import { tmpdir, userInfo } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import pg from 'pg'
import { buildApp, type App, type AppDeps } from '../../src/app.js'
import { loadConfig, type Config } from '../../src/config.js'
import { openDatabase, type DatabaseHandle } from '../../src/db/client.js'
import type { Db } from '../../src/db/db.js'
import { startEmbeddedCluster, type EmbeddedCluster } from '../../src/db/embedded.js'
import { useStatements } from '../../src/db/query.js'
import { rememberSecret, rememberSecretsIn, secretsInAuditLog } from './secrets.js'

export interface Backend {
  /** `postgres`: the server of TEST_DATABASE_URL; `embedded`: the test run's own cluster. */
  name: 'postgres' | 'embedded'
  /** A new, migrated, empty database; `drop` closes and deletes it. */
  open: () => Promise<{ database: DatabaseHandle; url: string; drop: () => Promise<void> }>
  /** A new database with nothing in it, not even the schema (a restore's target); `drop` deletes it. */
  openEmpty: () => Promise<{ url: string; drop: () => Promise<void> }>
}

const migrations = fileURLToPath(new URL('../../migrations', import.meta.url))
/** The template's name changes with the migrations, so a changed schema gets a new one. */
function templateName(): string {
  const hash = createHash('sha256')
  for (const file of readdirSync(migrations, { recursive: true, withFileTypes: true })) {
    if (file.isFile()) hash.update(file.name).update(readFileSync(join(file.parentPath, file.name)))
  }
  return `engage_template_${hash.digest('hex').slice(0, 12)}`
}

const TEMPLATE_LOCK = 7_401_230

/**
 * TEST_DATABASE_POOLER_URL: a transaction-mode pooler (PgBouncer) in front of
 * TEST_DATABASE_URL's server (deploy/pgbouncer-test.sh starts one). The apps' connections go
 * through it with DB_POOLER=transaction; databases are created and dropped on the server.
 */
const poolerUrl = process.env.TEST_DATABASE_POOLER_URL || undefined
// Statements as behind a pooler from the start, also for the test files that open databases
// without an app (buildApp sets it again from the config, to the same value).
if (poolerUrl) useStatements('pooled')

async function withAdmin<T>(adminUrl: string, fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: adminUrl })
  await client.connect()
  try {
    return await fn(client)
  } finally {
    await client.end()
  }
}

function databaseUrl(adminUrl: string, name: string): string {
  const url = new URL(adminUrl)
  url.pathname = `/${name}`
  return url.toString()
}

/** Creates and migrates the template once per schema, one test process at a time. */
async function ensureTemplate(adminUrl: string, template: string): Promise<void> {
  await withAdmin(adminUrl, async (admin) => {
    await admin.query('select pg_advisory_lock($1)', [TEMPLATE_LOCK])
    try {
      const { rows } = await admin.query<{ ready: boolean }>(
        'select datistemplate as ready from pg_database where datname = $1',
        [template],
      )
      if (rows[0]?.ready) return
      if (rows[0]) await admin.query(`DROP DATABASE ${template} WITH (FORCE)`) // a half-made one
      await admin.query(`CREATE DATABASE ${template}`)
      const database = await openDatabase({ databaseUrl: databaseUrl(adminUrl, template) })
      await database.close()
      await admin.query(`ALTER DATABASE ${template} IS_TEMPLATE true ALLOW_CONNECTIONS false`)
    } finally {
      await admin.query('select pg_advisory_unlock($1)', [TEMPLATE_LOCK])
    }
  })
}

function backendOn(name: Backend['name'], adminUrl: () => Promise<string>): Backend {
  let template: Promise<string> | undefined
  return {
    name,
    async openEmpty() {
      const admin = await adminUrl()
      const database = `engage_test_${randomBytes(6).toString('hex')}`
      await withAdmin(admin, (client) => client.query(`CREATE DATABASE ${database}`))
      return {
        url: databaseUrl(admin, database),
        drop: () => withAdmin(admin, (client) => client.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`)).then(() => undefined),
      }
    },
    async open() {
      const admin = await adminUrl()
      template ??= (async () => {
        const chosen = templateName()
        await ensureTemplate(admin, chosen)
        return chosen
      })()
      const source = await template
      const database = `engage_test_${randomBytes(6).toString('hex')}`
      await withAdmin(admin, async (client) => {
        await client.query(`CREATE DATABASE ${database} TEMPLATE ${source}`)
        // A commit does not wait for its WAL to reach the disk (~2 ms each here, thousands a
        // run): only a crash of the server could lose the last commits, and no test crashes
        // this server (the drills run clusters of their own). Not copied from the template.
        if (process.env.TEST_SYNCHRONOUS_COMMIT !== 'on') await client.query(`ALTER DATABASE ${database} SET synchronous_commit = off`)
      })
      const url = databaseUrl(admin, database)
      // Through the pooler: the app's connections; databases are made and dropped directly.
      const handle = poolerUrl
        ? await openDatabase({ databaseUrl: databaseUrl(poolerUrl, database), directUrl: url, pooler: 'transaction', migrate: false })
        : await openDatabase({ databaseUrl: url, migrate: false })
      return {
        database: handle,
        url,
        async drop() {
          // Every audit record of this database, searched for the secrets the test file made (test/helpers/secrets.ts).
          const problems = await secretsInAuditLog(url).catch((err: unknown) => [`could not search the audit log: ${String(err)}`])
          await handle.close()
          await withAdmin(admin, (client) => client.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`))
          if (problems.length > 0) throw new Error(`secrets in the audit log:\n${problems.join('\n')}`)
        },
      }
    },
  }
}

/**
 * The test run's cluster folder: in this checkout (ignored by git, as node_modules is), so
 * two checkouts or two users of a machine never share one. A cluster left by a run that was
 * killed is adopted by the next run (src/db/embedded.ts: dead processes do not count).
 */
export const TEST_CLUSTER_DIR = clusterDir(fileURLToPath(new URL('../../node_modules/.cache/engage-test-postgres', import.meta.url)))

/** A checkout too deep for the cluster's socket path (103 bytes) gets a per-user, per-checkout folder in the temporary folder. */
function clusterDir(inCheckout: string): string {
  if (Buffer.byteLength(join(inCheckout, 'postgres', '.s.PGSQL.5432')) <= 103) return inCheckout
  return join(tmpdir(), `engage-test-${String(userInfo().uid)}-${createHash('sha256').update(inCheckout).digest('hex').slice(0, 12)}`)
}

let embedded: Promise<EmbeddedCluster> | undefined
/** The test run's cluster: started by the first test file that needs it, stopped by the last, also on Ctrl-C. */
function embeddedAdminUrl(): Promise<string> {
  embedded ??= startEmbeddedCluster({ dataDir: TEST_CLUSTER_DIR }).then((cluster) => {
    process.once('beforeExit', () => void cluster.release())
    for (const signal of ['SIGINT', 'SIGTERM'] as const) {
      process.once(signal, () => {
        void cluster.release().finally(() => process.exit(128 + (signal === 'SIGINT' ? 2 : 15)))
      })
    }
    return cluster
  })
  return embedded.then((cluster) => cluster.url('postgres'))
}

/** The backend this run covers: TEST_DATABASE_URL's PostgreSQL (through TEST_DATABASE_POOLER_URL when set), else the embedded cluster. */
export function backends(): Backend[] {
  const url = process.env.TEST_DATABASE_URL
  return url ? [backendOn('postgres', () => Promise.resolve(url))] : [backendOn('embedded', embeddedAdminUrl)]
}

/** The master key of every test app (32 bytes, hex). */
export const TEST_SECRET_KEY = '7e57'.repeat(16)

/** The production config, quiet, with a high rate limit unless a test is about the limit. */
export function testConfig(overrides: Partial<Config> = {}): Config {
  const base = loadConfig({
    LOG_LEVEL: 'silent',
    REDIS_URL: process.env.REDIS_URL,
    WEBHOOK_SECRET_KEY: TEST_SECRET_KEY, // never a key file in the working copy
  })
  return {
    ...base,
    ...(poolerUrl && process.env.TEST_DATABASE_URL ? { pooler: 'transaction' as const, statements: 'pooled' as const } : {}),
    ...overrides,
    rateLimit: {
      max: 100_000,
      windowMs: 10_000,
      keyPrefix: `engage:test:${randomBytes(6).toString('hex')}:`,
      ...overrides.rateLimit,
    },
  }
}

export interface TestApp {
  app: App
  /** The app's pool, for the service's own functions (src/db/db.ts) and the test's own SQL (test/helpers/sql.ts). */
  db: Db
  database: DatabaseHandle
  close(): Promise<void>
}

/** Builds the app on a fresh database of `backend`. */
export async function startApp(
  backend: Backend,
  options: {
    config?: Partial<Config>
    deps?: Omit<AppDeps, 'database'>
    /** Register extra (test-only) routes before the app is ready. */
    extend?: (app: App) => void
  } = {},
): Promise<TestApp> {
  const { database, drop } = await backend.open()
  const app = await buildApp(testConfig(options.config), { ...options.deps, database })
  // What the test sends as a secret and what the app shows as one: searched for in the audit log when the database is dropped.
  app.addHook('preHandler', async (request) => {
    const fields = request.body
    if (fields === null || typeof fields !== 'object') return
    for (const [name, value] of Object.entries(fields as Record<string, unknown>)) {
      if (typeof value === 'string' && /password|secret|token|confirm/i.test(name)) rememberSecret(value)
    }
  })
  app.addHook('onSend', async (_request, _reply, payload) => {
    if (typeof payload === 'string') rememberSecretsIn(payload)
    return payload
  })
  options.extend?.(app)
  await app.ready()
  return {
    app,
    db: database.db,
    database,
    async close() {
      await app.close()
      await drop()
    },
  }
}
