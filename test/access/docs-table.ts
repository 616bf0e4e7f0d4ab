// The scopes table of docs/access-control.md, as the route table makes it: the docs test
// holds the page to it, so a new operation (or a changed scope) shows in the docs.
import type { AccessRule } from '../../src/plugins/access.plugin.js'

export function scopesTable(rules: readonly AccessRule[]): string {
  const rows = rules.map((rule) => {
    const scope = rule.scope === 'none' ? 'none (any token)' : `\`${rule.scope}\``
    return `| \`${rule.method} ${rule.url}\` | \`${rule.operationId}\` | ${scope} | ${rule.role === 'admin' ? 'admin' : 'any'} |`
  })
  return ['| operation | operationId | scope | role |', '|---|---|---|---|', ...rows].join('\n')
}
