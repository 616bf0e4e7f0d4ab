// buildApp is the only way to make the service: production (server.ts), the tests and the
// benchmark all run this very app. Plugins load in a fixed order: external, the app's own,
// then the routes.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import Fastify, { type FastifyServerOptions } from 'fastify'
import api, { componentSchemas } from './api.js'
import type { Config } from './config.js'
import { openDatabase, type DatabaseHandle } from './db/client.js'
import { useStatements } from './db/query.js'
import { requestsDrained } from './http/drain.js'
import { parseForm } from './http/nested-params.js'
import lingeringClose, { type LingerBounds } from './http/lingering-close.js'
import { buildSerializer } from './http/serialization.js'
import { validatorCompiler } from './http/validation.js'
import { loggerOptions, RequestLog } from './logging.js'
import dbPlugin from './plugins/db.plugin.js'
import docs from './plugins/docs.plugin.js'
import drain from './plugins/drain.plugin.js'
import errors, { clientErrorHandler, frameworkErrors, requestId, type ErrorPageFor } from './plugins/errors.plugin.js'
import health from './plugins/health.plugin.js'
import replica from './plugins/replica.plugin.js'
import requestParams from './plugins/request-params.plugin.js'
import webhookWorker from './plugins/webhook-worker.plugin.js'
import importWorker from './plugins/import-worker.plugin.js'
import searchFoldWorker from './plugins/search-fold-worker.plugin.js'
import type { SearchFoldOptions } from './modules/contacts/index.js'
import type { ImportWorkerOptions } from './modules/contact-imports/index.js'
import auditRetention from './plugins/audit-retention.plugin.js'
import backups from './plugins/backups.plugin.js'
import metrics from './plugins/metrics.plugin.js'
import tracing from './plugins/tracing.plugin.js'
import { startTracing } from './tracing.js'
import { VERSION } from './version.js'
import { createRateLimiter } from './rate-limit/limiter.js'
import type { WorkerOptions } from './modules/webhooks-api/index.js'
import { loadSecretKeys, type SecretKeys } from './secret-key.js'
import web, { isWebPath, webErrorPage } from './web/index.js'
import { oauthRoutes as oauth } from './modules/oauth-server/index.js'

declare module 'fastify' {
  interface FastifyInstance {
    /** Now. Injectable so tests can pin "today". */
    clock: () => Date
    /** Keys derived from the master key (src/secret-key.ts). */
    keys: SecretKeys
    /** The configuration the app was built with (routes read their settings here). */
    config: Config
  }
}

export interface AppDeps {
  /** An open database (tests); otherwise one is opened from the config and closed with the app. */
  database?: DatabaseHandle
  clock?: () => Date
  logger?: FastifyServerOptions['logger']
  /** Shorter HTTP timeouts (tests); otherwise REQUEST_TIMEOUT_MS. */
  timeouts?: { requestMs: number; checkIntervalMs: number }
  /** Told what a slow first start is doing (creating the embedded database). */
  onProgress?: (message: string) => void
  /**
   * Run the webhook delivery worker in this app (the server does; tests that deliver turn
   * it on, with shorter intervals if they like). Default: off.
   */
  webhookWorker?: boolean | Partial<WorkerOptions>
  /** Bounds of the lingering close after an answer given before the body arrived (tests). */
  linger?: LingerBounds
  /**
   * Run the contact import worker in this app (the server does; tests that import turn it
   * on, with smaller batches if they like). Default: off.
   */
  importWorker?: boolean | Partial<ImportWorkerOptions>
  /**
   * Fold contacts' search changes into the gram counters in this app (the server does; searches
   * are exact without it, adding the changes waiting). Default: off.
   */
  searchFold?: boolean | Partial<SearchFoldOptions>
  /** Run the audit log's retention job in this app (the server does). Default: off. */
  auditRetention?: boolean
  /** Take the scheduled backups BACKUP_DIR and BACKUP_EVERY ask for (the server does). Default: off. */
  backups?: boolean
}

// Errors answered before any route runs: a page's path gets its HTML error page (docs/web.md).
const webErrorPageFor: ErrorPageFor = (url, status) => (isWebPath(url) ? webErrorPage(status) : undefined)

export const BODY_LIMIT = 1024 * 1024

/** Headers, and the whole request (body included), must arrive within this, else 408. */
export const REQUEST_TIMEOUT_MS = 30_000

/** Past Node's 16 KiB header limit, so a long path id always reaches the validator (422). */
const MAX_PARAM_LENGTH = 16 * 1024

function parseQuery(query: string) {
  try {
    return parseForm(query, false)
  } catch {
    return {} // over the parameter or nesting limits: treated as no parameters
  }
}

export async function buildApp(config: Config, deps: AppDeps = {}) {
  const app = Fastify({
    logger: loggerOptions(config.logLevel, deps.logger),
    logController: new RequestLog(),
    genReqId: requestId,
    bodyLimit: BODY_LIMIT,
    // Node checks these timeouts every checkIntervalMs (its default, 30 s, would double them).
    requestTimeout: deps.timeouts?.requestMs ?? REQUEST_TIMEOUT_MS,
    http: {
      headersTimeout: deps.timeouts?.requestMs ?? REQUEST_TIMEOUT_MS,
      connectionsCheckingInterval: deps.timeouts?.checkIntervalMs ?? 1_000,
      // The errors plugin answers a missing Host itself, in the contract's body (Node's own
      // 400 has none).
      requireHostHeader: false,
    },
    clientErrorHandler: clientErrorHandler(webErrorPageFor),
    frameworkErrors: frameworkErrors(webErrorPageFor),
    return503OnClosing: false, // the errors plugin answers the contract's 503 instead
    routerOptions: { querystringParser: parseQuery, maxParamLength: MAX_PARAM_LENGTH },
    schemaController: { compilersFactory: { buildSerializer } },
  }).withTypeProvider<TypeBoxTypeProvider>()

  if (config.tracing) {
    // Before any hook, so that a request's span is open for all of them.
    const stopTracing = await startTracing({ ...config.tracing, version: VERSION })
    app.addHook('onClose', stopTracing)
    await app.register(tracing)
  }
  app.setValidatorCompiler(validatorCompiler)
  app.decorate('clock', deps.clock ?? (() => new Date()))
  app.decorate('keys', loadSecretKeys(config))
  app.decorate('config', config)

  useStatements(config.statements)
  const database =
    deps.database ??
    (await openDatabase({
      databaseUrl: config.databaseUrl,
      pooler: config.pooler,
      directUrl: config.databaseDirectUrl,
      replicaUrl: config.databaseReplicaUrl,
      replicaMaxLagMs: config.replicaMaxLagMs,
      redisUrl: config.redisUrl,
      dataDir: config.dataDir,
      statementTimeoutMs: config.statementTimeoutMs,
      pipelineConnections: config.pipelineConnections,
      onProgress: deps.onProgress,
      onError: (err) => {
        app.log.warn({ err }, 'database connection error')
      },
    }))
  const limiter = await createRateLimiter({ ...config.rateLimit, redisUrl: config.redisUrl, logger: app.log })
  app.addHook('onClose', async () => {
    await requestsDrained(app.server)
    await limiter.close()
  })

  for (const schema of componentSchemas) app.addSchema(schema)

  await app.register(dbPlugin, { database, owned: !deps.database })
  await app.register(replica)
  await app.register(errors)
  await app.register(lingeringClose, deps.linger ? { bounds: deps.linger } : {})
  await app.register(requestParams)
  await app.register(docs)
  await app.register(drain)
  await app.register(health)
  await app.register(importWorker, {
    enabled: deps.importWorker !== undefined && deps.importWorker !== false,
    ...(typeof deps.importWorker === 'object' ? { settings: deps.importWorker } : {}),
  })
  await app.register(searchFoldWorker, {
    enabled: deps.searchFold !== undefined && deps.searchFold !== false,
    ...(typeof deps.searchFold === 'object' ? { settings: deps.searchFold } : {}),
  })
  app.decorate('accessTable', [])
  await app.register(api, { prefix: '/api', limiter, accessTable: app.accessTable })
  await app.register(web, { config })
  await app.register(oauth, { config })
  await app.register(webhookWorker, {
    enabled: deps.webhookWorker !== undefined && deps.webhookWorker !== false,
    allowPrivate: config.webhookAllowPrivate,
    ...(typeof deps.webhookWorker === 'object' ? { settings: deps.webhookWorker } : {}),
  })
  await app.register(auditRetention, { enabled: deps.auditRetention === true, retentionDays: config.auditRetentionDays })
  if (config.metrics) await app.register(metrics, { port: config.metrics.port, host: config.host, token: config.metrics.token })
  if (config.backups && deps.backups === true) await app.register(backups, config.backups)
  return app
}

export type App = Awaited<ReturnType<typeof buildApp>>
