// The audit log over the API: a newest-first page with filters and a signed cursor, and the
// export of a time range as JSON Lines, streamed. Admins only: `config.role`, enforced by
// src/plugins/access.plugin.ts like every route's scope.
import { Readable } from 'node:stream'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import { operation, tagRoutes } from '../../http/routes.js'
import { Ref } from '../../http/schemas.js'
import { AuditEventLine, AuditEventsPage, AuditEventsQuery, AuditExportQuery } from './audit.schemas.js'
import { auditEventsPage, exportFor } from './audit.service.js'
import texts from './audit.operations.json' with { type: 'json' }

export const JSON_LINES = 'application/x-ndjson; charset=utf-8'

const auditRoutes: FastifyPluginAsyncTypebox = async (app) => {
  tagRoutes(app, 'audit')
  const cursorKey = () => app.keys.derive('sync cursor')

  app.get('/v1/audit_events', operation(texts, 'listAuditEvents', { scope: 'audit:read', role: 'admin' }, {
    querystring: AuditEventsQuery, response: { 200: Ref(AuditEventsPage) },
  }), async (request) => auditEventsPage(app.db, request.caller, cursorKey(), request.query))

  app.get('/v1/audit_events/export', operation(texts, 'exportAuditEvents', { scope: 'audit:read', role: 'admin' }, {
    querystring: AuditExportQuery,
    response: {
      200: {
        description: 'JSON Lines (`application/x-ndjson`): one AuditEventLine per line, oldest first',
        content: { 'application/x-ndjson': { schema: Type.Unsafe<Readable>(Ref(AuditEventLine)) } },
      },
    },
  }), async (request, reply) => {
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
