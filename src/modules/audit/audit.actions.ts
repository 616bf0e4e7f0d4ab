// Every action the audit log records: a stable dotted name whose first segment is the type
// of its target. docs/audit-log.md lists each with its target and `changes` fields; names
// are never renamed (new ones may be added).
export const AUDIT_ACTIONS = [
  'user.signed_in',
  'user.sign_in_refused',
  'user.signed_out',
  'user.password_set',
  'user.invite_created',
  'user.invite_used',
  'user.created',
  'user.changed',
  'user.deactivated',
  'user.reactivated',
  'api_token.created',
  'api_token.revoked',
  'api_token.use_refused',
  'api_token.used_from_new_address',
  'webhook.created',
  'webhook.changed',
  'webhook.paused',
  'webhook.resumed',
  'webhook.deleted',
  'webhook.secret_rotated',
  'webhook.delivery_replayed',
  'company.created',
  'company.settings_changed',
  'flow.created',
  'flow.changed',
  'task.created',
  'task.completed',
  'lead.linked',
  'whatsapp_messages.imported',
  'contact_import.created',
  'contact_import.finished',
  'contacts.exported',
  'oauth_app.registered',
  'oauth_app.changed',
  'oauth_app.secret_rotated',
  'oauth_app.deleted',
  'oauth_consent.granted',
  'oauth_consent.refused',
  'oauth_consent.revoked',
  'oauth_grant.refresh_token_reused',
] as const

export type AuditAction = (typeof AUDIT_ACTIONS)[number]

/** Target types: the first segments of the actions. */
export const TARGET_TYPES = [...new Set(AUDIT_ACTIONS.map((action) => action.split('.')[0] ?? action))]

/** Why an action failed: stable codes. */
export const FAILURE_REASONS = ['wrong_password', 'rate_limited', 'deactivated', 'expired'] as const
export type FailureReason = (typeof FAILURE_REASONS)[number]
