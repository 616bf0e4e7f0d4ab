// The counters that code deep in the service moves (a statement's error, a webhook delivery,
// a backup): one process-wide registry, merged into each scrape by the
// metrics plugin (src/plugins/metrics.plugin.ts). Counting costs a map update whether or not
// metrics are served, so nothing here depends on METRICS_PORT.
import { Counter, Gauge, Registry } from 'prom-client'

export const sharedRegistry = new Registry()

export const statementErrors = new Counter({
  name: 'engage_db_statement_errors_total',
  help: 'Database statements that failed, by SQLSTATE (docs/operating.md)',
  labelNames: ['sqlstate'],
  registers: [sharedRegistry],
})

export const webhookDeliveries = new Counter({
  name: 'engage_webhook_deliveries_total',
  help: 'Webhook delivery attempts by result: delivered, retrying (failed, tried again later) or failed (given up)',
  labelNames: ['result'],
  registers: [sharedRegistry],
})

export const backupsTaken = new Counter({
  name: 'engage_backups_total',
  help: 'Scheduled backups by result: ok or failed',
  labelNames: ['result'],
  registers: [sharedRegistry],
})

export const lastBackupTime = new Gauge({
  name: 'engage_backup_last_success_timestamp_seconds',
  help: 'When the last scheduled backup that succeeded was taken (Unix time)',
  registers: [sharedRegistry],
})

export const lastBackupSize = new Gauge({
  name: 'engage_backup_last_size_bytes',
  help: 'The size of the last scheduled backup that succeeded',
  registers: [sharedRegistry],
})

/** A SQLSTATE is five characters of 0-9A-Z; anything else (a network error) counts as `none`. */
export function countStatementError(err: unknown): void {
  const code = (err as { code?: unknown }).code
  statementErrors.inc({ sqlstate: typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) ? code : 'none' })
}
