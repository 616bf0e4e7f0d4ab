// The only reader of process.env: every setting is read and checked here, once.
import type { StatementMode } from './db/query.js'

export interface Config {
  port: number
  host: string
  /** PostgreSQL server; when unset the embedded PostgreSQL cluster under dataDir is used. */
  databaseUrl: string | undefined
  /**
   * DB_POOLER: `transaction` when DATABASE_URL is a transaction-mode pooler (PgBouncer
   * `pool_mode = transaction`): no session state is relied on between transactions
   * (docs/scaling.md, "Through a transaction pooler").
   */
  pooler: 'none' | 'transaction'
  /**
   * DATABASE_DIRECT_URL: PostgreSQL itself (or a session-mode pool) for what needs a session:
   * migrations (under a session advisory lock) and LISTEN. Required with DB_POOLER=transaction.
   */
  databaseDirectUrl: string | undefined
  /**
   * DATABASE_REPLICA_URL: a streaming replica for lists, counts, searches and sync walks
   * (src/db/replica.ts); skipped while down or lagging past replicaMaxLagMs.
   */
  databaseReplicaUrl: string | undefined
  /** DB_REPLICA_MAX_LAG_MS: a replica further behind the primary than this is not read. */
  replicaMaxLagMs: number
  /** Where the embedded PostgreSQL cluster keeps its files (without databaseUrl). */
  dataDir: string
  /** Longest a database statement may run before the request answers 503. */
  statementTimeoutMs: number
  /**
   * How statements are sent (src/db/query.ts): named prepared statements (DB_PREPARED_STATEMENTS,
   * default on), `pooled` with DB_POOLER=transaction, or `unnamed` when turned off.
   */
  statements: StatementMode
  /** Pipelined connections the short reads share (src/db/pipeline.ts); 0 turns pipelining off. */
  pipelineConnections: number
  redisUrl: string | undefined
  /**
   * SHUTDOWN_DRAIN_MS: after SIGTERM/SIGINT, how long /readyz answers 503 while requests are
   * still served, before the server closes: the time a load balancer needs to notice.
   */
  shutdownDrainMs: number
  /** keyPrefix namespaces the Redis keys (fixed in production; tests isolate with it). */
  rateLimit: { max: number; windowMs: number; keyPrefix: string }
  seedDemo: boolean
  logLevel: string
  /**
   * Where people reach the service (links the admin command line prints, the curl line of
   * the web application); an https one makes the web application's cookies Secure.
   */
  publicUrl: string | undefined
  /** Web application sign-in attempts allowed per email and per client address in a window. */
  signInLimit: { max: number; windowMs: number }
  /**
   * WEBHOOK_SECRET_KEY: the service's master key (32 bytes, hex or base64). Encrypts the
   * webhook signing secrets at rest and signs sync cursors (src/secret-key.ts). Unset: a key
   * generated once into DATA_DIR/secret.key. Several instances must share one key.
   */
  secretKey: Buffer | undefined
  /** WEBHOOK_ALLOW_PRIVATE: webhook URLs may be http and reach private addresses (development, tests). */
  webhookAllowPrivate: boolean
  /** AUDIT_RETENTION_DAYS: how long audit records are kept. */
  auditRetentionDays: number
  /**
   * ENGAGE_TEST_FAULT_AFTER_COMMIT, tests only: the process exits at once after the first
   * committed write that carries an Idempotency-Key, before answering (docs/reliability.md).
   */
  testFaultAfterCommit: boolean
  /**
   * METRICS_PORT: Prometheus metrics at GET /metrics on this port of their own (off when
   * unset); METRICS_TOKEN: the bearer token a scrape must then send (docs/operating.md).
   */
  metrics: { port: number; token: string | undefined } | undefined
  /**
   * BACKUP_DIR and BACKUP_EVERY: the running server writes a backup there at that interval,
   * keeping the newest BACKUP_KEEP, with the master key when BACKUP_WITH_SECRET_KEY=true
   * (docs/operating.md, "Scheduled backups").
   */
  backups: { dir: string; everyMs: number; keep: number; withSecretKey: boolean } | undefined
  /**
   * OTEL_EXPORTER_OTLP_ENDPOINT: send OpenTelemetry traces to this OTLP/HTTP collector
   * (OTEL_SERVICE_NAME names the service, default engage); unset, tracing is not loaded.
   */
  tracing: { endpoint: string; serviceName: string } | undefined
  /** CONTACT_IMPORT_MAX_BYTES: the largest CSV file a contact import takes (413 above it). */
  contactImportMaxBytes: number
}

export class ConfigError extends Error {}

type Env = Record<string, string | undefined>

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']

function integer(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name]
  if (raw === undefined || raw === '') return fallback
  if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max) {
    throw new ConfigError(`${name} must be a whole number from ${min} to ${max}, got "${raw}"`)
  }
  return Number(raw)
}

function url(env: Env, name: string, protocols: string[]): string | undefined {
  const raw = env[name]
  if (raw === undefined || raw === '') return undefined
  let parsed: URL
  try {
    parsed = new URL(raw)
  } catch {
    throw new ConfigError(`${name} must be a URL (${protocols.join(' or ')}), got "${raw}"`)
  }
  if (!protocols.includes(parsed.protocol)) {
    throw new ConfigError(`${name} must start with ${protocols.map((p) => `${p}//`).join(' or ')}`)
  }
  return raw
}

function flag(env: Env, name: string, fallback: boolean): boolean {
  const raw = env[name]
  if (raw === undefined || raw === '') return fallback
  if (raw === 'true' || raw === '1') return true
  if (raw === 'false' || raw === '0') return false
  throw new ConfigError(`${name} must be true or false, got "${raw}"`)
}

function key32(env: Env, name: string): Buffer | undefined {
  const raw = env[name]
  if (raw === undefined || raw === '') return undefined
  const bytes = /^[0-9a-fA-F]{64}$/.test(raw) ? Buffer.from(raw, 'hex') : Buffer.from(raw, 'base64')
  if (bytes.length !== 32 || (!/^[0-9a-fA-F]{64}$/.test(raw) && bytes.toString('base64').replace(/=+$/, '') !== raw.replace(/=+$/, ''))) {
    throw new ConfigError(`${name} must be 32 bytes in hex (64 characters) or base64; generate one with: openssl rand -hex 32`)
  }
  return bytes
}

const UNITS_MS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 }

/** A duration such as 30m, 24h or 7d. */
function duration(env: Env, name: string): number | undefined {
  const raw = env[name]
  if (raw === undefined || raw === '') return undefined
  const match = /^(\d{1,6})(s|m|h|d)$/.exec(raw)
  const ms = match?.[1] && match[2] ? Number(match[1]) * (UNITS_MS[match[2]] ?? 0) : 0
  if (ms < 1000) throw new ConfigError(`${name} must be a duration such as 30m, 24h or 7d (s, m, h or d after a whole number), got "${raw}"`)
  return ms
}

function metricsSettings(env: Env): Config['metrics'] {
  const token = env.METRICS_TOKEN === '' ? undefined : env.METRICS_TOKEN
  if (env.METRICS_PORT === undefined || env.METRICS_PORT === '') {
    if (token !== undefined) throw new ConfigError('METRICS_TOKEN is set but METRICS_PORT is not: set the port the metrics are served on')
    return undefined
  }
  if (token !== undefined && (token.length < 16 || !/^[\x21-\x7e]+$/.test(token))) {
    throw new ConfigError('METRICS_TOKEN must be at least 16 printable characters without spaces; generate one with: openssl rand -hex 16')
  }
  return { port: integer(env, 'METRICS_PORT', 0, 0, 65535), token }
}

function backupSettings(env: Env): Config['backups'] {
  const dir = env.BACKUP_DIR === '' ? undefined : env.BACKUP_DIR
  const everyMs = duration(env, 'BACKUP_EVERY')
  if (dir === undefined && everyMs === undefined) return undefined
  if (dir === undefined || everyMs === undefined) {
    throw new ConfigError('BACKUP_DIR and BACKUP_EVERY go together: set both (for example BACKUP_DIR=./backups BACKUP_EVERY=24h) or neither')
  }
  return { dir, everyMs, keep: integer(env, 'BACKUP_KEEP', 7, 1, 10_000), withSecretKey: flag(env, 'BACKUP_WITH_SECRET_KEY', false) }
}

function tracingSettings(env: Env): Config['tracing'] {
  const endpoint = url(env, 'OTEL_EXPORTER_OTLP_ENDPOINT', ['http:', 'https:'])
  return endpoint === undefined ? undefined : { endpoint, serviceName: env.OTEL_SERVICE_NAME || 'engage' }
}

export function loadConfig(env: Env = process.env): Config {
  const logLevel = env.LOG_LEVEL || 'info'
  if (!LOG_LEVELS.includes(logLevel)) {
    throw new ConfigError(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}, got "${logLevel}"`)
  }
  const databaseUrl = url(env, 'DATABASE_URL', ['postgres:', 'postgresql:'])
  const databaseDirectUrl = url(env, 'DATABASE_DIRECT_URL', ['postgres:', 'postgresql:'])
  const poolerRaw = env.DB_POOLER || 'none'
  if (poolerRaw !== 'none' && poolerRaw !== 'transaction') {
    throw new ConfigError(`DB_POOLER must be none or transaction, got "${poolerRaw}"`)
  }
  const pooler: Config['pooler'] = poolerRaw
  if (pooler === 'transaction' && (!databaseUrl || !databaseDirectUrl)) {
    throw new ConfigError(
      'DB_POOLER=transaction needs DATABASE_URL (the pooler) and DATABASE_DIRECT_URL (PostgreSQL itself or a session-mode pool, for migrations and LISTEN)',
    )
  }
  return {
    port: integer(env, 'PORT', 3000, 0, 65535),
    host: env.HOST || '0.0.0.0',
    databaseUrl,
    pooler,
    databaseDirectUrl,
    databaseReplicaUrl: url(env, 'DATABASE_REPLICA_URL', ['postgres:', 'postgresql:']),
    replicaMaxLagMs: integer(env, 'DB_REPLICA_MAX_LAG_MS', 1000, 0, 600_000),
    dataDir: env.DATA_DIR || './data',
    statementTimeoutMs: integer(env, 'DB_STATEMENT_TIMEOUT_MS', 3000, 100, 600_000),
    statements: !flag(env, 'DB_PREPARED_STATEMENTS', true) ? 'unnamed' : pooler === 'transaction' ? 'pooled' : 'named',
    pipelineConnections: integer(env, 'DB_PIPELINE_CONNECTIONS', 2, 0, 16),
    redisUrl: url(env, 'REDIS_URL', ['redis:', 'rediss:']),
    shutdownDrainMs: integer(env, 'SHUTDOWN_DRAIN_MS', 0, 0, 300_000),
    rateLimit: {
      max: integer(env, 'RATE_LIMIT_MAX', 60, 1, 1_000_000),
      windowMs: integer(env, 'RATE_LIMIT_WINDOW_MS', 10_000, 1, 86_400_000),
      keyPrefix: 'engage:rl:',
    },
    seedDemo: flag(env, 'SEED_DEMO', true),
    logLevel,
    publicUrl: url(env, 'PUBLIC_URL', ['http:', 'https:'])?.replace(/\/+$/, ''),
    signInLimit: {
      max: integer(env, 'SIGN_IN_LIMIT_MAX', 10, 1, 1_000_000),
      windowMs: integer(env, 'SIGN_IN_LIMIT_WINDOW_MS', 15 * 60_000, 1000, 86_400_000),
    },
    secretKey: key32(env, 'WEBHOOK_SECRET_KEY'),
    webhookAllowPrivate: flag(env, 'WEBHOOK_ALLOW_PRIVATE', false),
    auditRetentionDays: integer(env, 'AUDIT_RETENTION_DAYS', 400, 1, 36_500),
    testFaultAfterCommit: flag(env, 'ENGAGE_TEST_FAULT_AFTER_COMMIT', false),
    metrics: metricsSettings(env),
    backups: backupSettings(env),
    tracing: tracingSettings(env),
    contactImportMaxBytes: integer(env, 'CONTACT_IMPORT_MAX_BYTES', 256 * 1024 * 1024, 1024, 4 * 1024 * 1024 * 1024),
  }
}

/** The service's address as people reach it: PUBLIC_URL, else this machine's port. */
export function publicBaseUrl(config: Pick<Config, 'publicUrl' | 'port'>): string {
  return config.publicUrl ?? `http://localhost:${String(config.port)}`
}
