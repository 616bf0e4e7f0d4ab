// One way for every test file to get a fresh database and the production app on it:
// PGlite in memory always, plus a fresh PostgreSQL database when TEST_DATABASE_URL is set
// (and Redis for the rate limit when REDIS_URL is set). Nothing is shared between files.
import { randomBytes } from 'node:crypto'
import pg from 'pg'
import { buildApp, type App, type AppDeps } from '../../src/app.js'
import { loadConfig, type Config } from '../../src/config.js'
import { openDatabase, type Database, type DatabaseHandle } from '../../src/db/client.js'

export interface Backend {
  name: 'pglite' | 'postgres'
  /** A new, migrated, empty database; `drop` closes and deletes it. */
  open: () => Promise<{ database: DatabaseHandle; url?: string; drop: () => Promise<void> }>
}

const pgliteBackend: Backend = {
  name: 'pglite',
  async open() {
    const database = await openDatabase({ dataDir: 'memory://' })
    return { database, drop: () => database.close() }
  },
}

function postgresBackend(adminUrl: string): Backend {
  return {
    name: 'postgres',
    async open() {
      const name = `engage_test_${randomBytes(6).toString('hex')}`
      const admin = new pg.Client({ connectionString: adminUrl })
      await admin.connect()
      await admin.query(`CREATE DATABASE ${name}`)
      await admin.end()
      const url = new URL(adminUrl)
      url.pathname = `/${name}`
      const database = await openDatabase({ databaseUrl: url.toString() })
      return {
        database,
        url: url.toString(),
        async drop() {
          await database.close()
          const client = new pg.Client({ connectionString: adminUrl })
          await client.connect()
          await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
          await client.end()
        },
      }
    },
  }
}

/** The backends this run covers: PGlite always, PostgreSQL when TEST_DATABASE_URL is set. */
export function backends(): Backend[] {
  const url = process.env.TEST_DATABASE_URL
  return url ? [pgliteBackend, postgresBackend(url)] : [pgliteBackend]
}

/** The production config, quiet, with a high rate limit unless a test is about the limit. */
export function testConfig(overrides: Partial<Config> = {}): Config {
  const base = loadConfig({ LOG_LEVEL: 'silent', REDIS_URL: process.env.REDIS_URL })
  return {
    ...base,
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
  db: Database
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
