// The audit log's retention (AUDIT_RETENTION_DAYS, default 400): once an hour (the first
// time at a random moment of the first minute, so instances started together spread out),
// records older than the retention are deleted, 1,000 per statement, each its own short
// transaction (inserts never wait for it: new rows are never the rows it deletes). Started
// when the app is ready, stopped on close; on in the server, off by default (tests prune
// through `app.auditRetention` themselves).
import fp from 'fastify-plugin'
import { pruneAudit } from '../modules/audit/index.js'

declare module 'fastify' {
  interface FastifyInstance {
    /** Removes the records past the retention now; null when this app runs no retention job. */
    auditRetention: { prune(): Promise<number> } | null
  }
}

export interface AuditRetentionOptions {
  enabled: boolean
  retentionDays: number
  intervalMs?: number
}

export default fp<AuditRetentionOptions>(
  (app, { enabled, retentionDays, intervalMs = 60 * 60 * 1000 }, done) => {
    const prune = () => pruneAudit(app.db, app.clock(), retentionDays)
    if (!enabled) {
      app.decorate('auditRetention', { prune })
      done()
      return
    }
    let timer: NodeJS.Timeout | undefined
    let running: Promise<unknown> = Promise.resolve()
    const schedule = (delay: number) => {
      timer = setTimeout(() => {
        running = prune()
          .then((deleted) => {
            if (deleted > 0) app.log.info({ deleted }, 'audit log: removed records older than the retention')
          })
          .catch((err: unknown) => {
            app.log.warn({ err }, 'audit log: the retention job failed; it runs again in an hour')
          })
          .finally(() => {
            schedule(intervalMs)
          })
      }, delay)
      timer.unref()
    }
    app.decorate('auditRetention', { prune })
    app.addHook('onReady', () => {
      schedule(Math.min(intervalMs, 60_000) * Math.random())
      return Promise.resolve()
    })
    app.addHook('onClose', async () => {
      clearTimeout(timer)
      await running
    })
    done()
  },
  { name: 'audit-retention', dependencies: ['db'] },
)
