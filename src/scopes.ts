// The one catalogue of scopes (docs/access-control.md). Every /api route names the scope it
// needs in its config (`config: { scope: 'contacts:write' }`); src/plugins/access.plugin.ts
// refuses a route without one at start, enforces it per request and copies it into the
// OpenAPI document. `RESOURCE:write` implies `RESOURCE:read`.

/** Resources with a read and a write scope. */
export const READ_WRITE_RESOURCES = [
  'contacts',
  'custom_fields',
  'tags',
  'flows',
  'tasks',
  'leads',
  'meet_transcriptions',
  'whatsapp',
  'webhooks',
] as const
/** Resources that can only be read through the API. */
export const READ_ONLY_RESOURCES = ['users', 'audit'] as const

export const SCOPES = [
  ...READ_WRITE_RESOURCES.flatMap((r) => [`${r}:read`, `${r}:write`] as const),
  ...READ_ONLY_RESOURCES.map((r) => `${r}:read` as const),
] as const

export type Scope = (typeof SCOPES)[number]

/** What a route that every token may call declares (`authorize_api`): no scope is needed. */
export const NO_SCOPE = 'none'
export type RouteScope = Scope | typeof NO_SCOPE

/** What each scope lets a token do, in plain words (the token form, the docs). */
export const SCOPE_DESCRIPTIONS: Record<Scope, string> = {
  'contacts:read': 'Read contacts, their events, business, custom values and tags',
  'contacts:write': 'Create, change, delete and batch-upsert contacts',
  'custom_fields:read': 'Read custom field definitions',
  'custom_fields:write': 'Create, change and delete custom field definitions',
  'tags:read': 'Read tags',
  'tags:write': 'Create, change and delete tags',
  'flows:read': 'Read flows',
  'flows:write': 'Create and change flows, add contacts to them',
  'tasks:read': 'Read tasks',
  'tasks:write': 'Create tasks and mark them done',
  'leads:read': 'Read leads',
  'leads:write': 'Create leads and link them to contacts',
  'meet_transcriptions:read': 'Read meeting transcriptions',
  'meet_transcriptions:write': 'Create, stop, transcribe and link meeting transcriptions',
  'whatsapp:read': 'Read WhatsApp messages and chats',
  'whatsapp:write': 'Write WhatsApp messages (no operation of the API writes them yet; grants whatsapp:read)',
  'webhooks:read': 'Read webhook subscriptions, their deliveries and the event log',
  'webhooks:write': 'Manage webhook subscriptions and replay deliveries (admins only)',
  'users:read': 'Read the users of the company',
  'audit:read': 'Read the audit log (admins only)',
}

const KNOWN = new Set<string>(SCOPES)

export const isScope = (value: string): value is Scope => KNOWN.has(value)

/** The scopes a route accepts: its own, and the write scope that implies a read one. */
export function acceptedScopes(scope: RouteScope): Scope[] {
  if (scope === NO_SCOPE) return []
  const write = scope.replace(/:read$/, ':write')
  return write !== scope && isScope(write) ? [scope, write] : [scope]
}

/** The scopes a token's chosen set grants: each one, and read for each write. */
export function grantsOf(scopes: readonly Scope[]): ReadonlySet<Scope> {
  const granted = new Set<Scope>(scopes)
  for (const scope of scopes) {
    const read = scope.replace(/:write$/, ':read')
    if (isScope(read)) granted.add(read)
  }
  return granted
}

/** A chosen set as stored: each scope once, in the catalogue's order. */
export function normalizeScopes(scopes: readonly Scope[]): Scope[] {
  const chosen = new Set(scopes)
  return SCOPES.filter((scope) => chosen.has(scope))
}

