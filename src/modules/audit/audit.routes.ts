// The audit log over the API: a newest-first page with filters and a signed cursor, and the
// export of a time range as JSON Lines, streamed. Admins only: `config.role`, enforced by
// src/plugins/access.ts like every route's scope.
import { Readable } from 'node:stream'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import { tagRoutes } from '../../http/routes.js'
import { Ref } from '../../http/schemas.js'
import { AuditEventsPage, AuditEventsQuery, AuditExportQuery } from './audit.schemas.js'
import { auditEventsPage, exportFor } from './audit.service.js'

export const JSON_LINES = 'application/x-ndjson; charset=utf-8'

const auditRoutes: FastifyPluginAsyncTypebox = async (app) => {
  tagRoutes(app, 'audit')
  const cursorKey = () => app.keys.derive('sync cursor')

  app.get('/v1/audit_events', {
    config: { scope: 'audit:read', role: 'admin' },
    schema: {
      operationId: 'listAuditEvents',
      summary: "Your company's audit log, newest first (admins only)",
      description:
        'Who did what, when, from where: sign-ins, tokens, users, webhooks, admin commands (docs/audit-log.md lists every ' +
        '`action`). Filters combine with AND; `action` is an action or a prefix ending with a dot (`api_token.`); `actor_id` ' +
        'needs `actor_type` and `target_id` needs `target_type`. Walk older records with `cursor` = `meta.next_cursor` while ' +
        '`meta.has_more`: no record is sent twice, and every record recorded before the walk began is sent. A page may hold ' +
        'fewer records than `per_page` (even none) with `has_more` when the filters match few records: follow the cursor. ' +
        "A member's token: 403 `forbidden_role`.",
      querystring: AuditEventsQuery,
      response: { 200: Ref(AuditEventsPage) },
    },
  }, async (request) => auditEventsPage(app.db, request.caller, cursorKey(), request.query))

  app.get('/v1/audit_events/export', {
    config: { scope: 'audit:read', role: 'admin' },
    schema: {
      operationId: 'exportAuditEvents',
      summary: "Your company's audit records of a time range as JSON Lines, oldest first (admins only)",
      description:
        'One record a line (the `AuditEvent` of the list), streamed as it is read: any range, in flat memory. `since` is ' +
        'inclusive, `until` exclusive. Records committed a few seconds after a range ended may still appear in it (a ' +
        'record carries the time its request began): export ranges that ended a minute ago or more.',
      querystring: AuditExportQuery,
      response: {
        200: {
          description: 'JSON Lines: one AuditEvent per line',
          content: { 'application/x-ndjson': { schema: Type.Unsafe<Readable>(Type.String({ description: 'one AuditEvent (JSON) per line' })) } },
        },
      },
    },
  }, async (request, reply) => {
    const events = await exportFor(app.db, request.caller, request.query)
    const lines = Readable.from(
      (async function* () {
        for await (const event of events) yield `${JSON.stringify(event)}\n`
      })(),
      { objectMode: false },
    )
    lines.on('error', (err) => {
      request.log.error({ err }, 'audit export failed mid-stream')
    })
    return reply.type(JSON_LINES).header('content-disposition', 'attachment; filename="audit-events.jsonl"').send(lines)
  })
}

export default auditRoutes
