// The counters that code deep in the service moves (a statement's error, a webhook delivery,
// a backup): one process-wide registry, merged into each scrape by the
// metrics plugin (src/plugins/metrics.plugin.ts). Counting costs a map update whether or not
// metrics are served, so nothing here depends on METRICS_PORT.
import { Counter, Gauge, Registry } from 'prom-client'

export const sharedRegistry = new Registry()

/** A counter of the shared registry, by one label. */
function sharedCounter<Label extends string>(name: string, help: string, label: Label): Counter<Label> {
  return new Counter({ name, help, labelNames: [label], registers: [sharedRegistry] })
}

/** A gauge of the shared registry, without labels. */
function sharedGauge(name: string, help: string): Gauge {
  return new Gauge({ name, help, registers: [sharedRegistry] })
}

export const statementErrors = sharedCounter('engage_db_statement_errors_total', 'Database statements that failed, by SQLSTATE (docs/operating.md)', 'sqlstate')

export const webhookDeliveries = sharedCounter('engage_webhook_deliveries_total', 'Webhook delivery attempts by result: delivered, retrying (failed, tried again later) or failed (given up)', 'result')

export const backupsTaken = sharedCounter('engage_backups_total', 'Scheduled backups by result: ok or failed', 'result')

export const lastBackupTime = sharedGauge('engage_backup_last_success_timestamp_seconds', 'When the last scheduled backup that succeeded was taken (Unix time)')

export const lastBackupSize = sharedGauge('engage_backup_last_size_bytes', 'The size of the last scheduled backup that succeeded')

/** A SQLSTATE is five characters of 0-9A-Z; anything else (a network error) counts as `none`. */
export function countStatementError(err: unknown): void {
  const code = (err as { code?: unknown }).code
  statementErrors.inc({ sqlstate: typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) ? code : 'none' })
}
