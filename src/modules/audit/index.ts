// The audit module's public face: the audit log.
export { AUDIT_ACTIONS } from './audit.actions.js'
export type { FailureReason } from './audit.actions.js'
export { default as auditRoutes } from './audit.routes.js'
export { AuditEvent, AuditEventLine, AuditEventsPage, AuditEventsQuery, AuditExportQuery, AuditMeta } from './audit.schemas.js'
export {
  auditEventsPage,
  changesOf,
  checkAuditReader,
  checkRange,
  exportAuditEvents,
  exportFor,
  pruneAudit,
  readsAudit,
  recordAudit,
} from './audit.service.js'
export type { AuditPage, AuditReader, AuditRecord, Changes } from './audit.service.js'
