// The audit module's public face: the audit log.
export { AUDIT_ACTIONS } from './audit.actions.js'
export type { FailureReason } from './audit.actions.js'
export { default as auditRoutes } from './audit.routes.js'
export { AuditEvent, AuditEventLine, AuditEventsPage, AuditEventsQuery, AuditExportQuery, AuditMeta } from './audit.schemas.js'
export { auditEventsPage, changesOf, checkRange, exportAuditEvents, exportFor, pruneAudit, recordAudit } from './audit.service.js'
export type { AuditPage, AuditRecord, Changes } from './audit.service.js'
