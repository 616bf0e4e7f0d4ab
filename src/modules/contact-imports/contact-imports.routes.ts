// Data in and out (docs/import-export.md): POST /contact_imports takes a CSV file as its body
// (text/csv, read as a stream and stored a chunk at a time, never whole in memory), the
// import's record and its rejected rows as CSV; GET /contacts/export streams a view of the
// contact list as CSV.
import { Readable } from 'node:stream'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { Type } from 'typebox'
import { ApiError } from '../../errors.js'
import { operation, recordRoute, tagRoutes } from '../../http/routes.js'
import { IdParams, Ref } from '../../http/schemas.js'
import { apiActing } from '../../acting.js'
import { ContactImport, ExportQuery, ImportQuery } from './contact-imports.schemas.js'
import { createImport, exportContacts, getImport, rejectedRowsCsv, tooLarge } from './contact-imports.service.js'
import texts from './contact-imports.operations.json' with { type: 'json' }

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The operation's body is a file of this media type, read by its handler as a stream (documented so). */
    fileBody?: string
  }
  interface FastifyRequest {
    /** A text/csv body, not read yet. */
    csvBody: Readable | undefined
  }
}

export const CSV = 'text/csv; charset=utf-8'

const NO_IMPORT = 'No import with this id in your company'

const csvResponse = (description: string) => ({
  description,
  content: { 'text/csv': { schema: Type.Unsafe<Readable>(Type.String({ description })) } },
})

/** Lines as a response body; a failure once the answer has started can only cut it, and is logged. */
function sendCsv(request: FastifyRequest, reply: FastifyReply, lines: AsyncIterable<string>, fileName: string) {
  const body = Readable.from(lines, { objectMode: false })
  body.on('error', (err) => {
    request.log.error({ err }, 'CSV answer failed mid-stream')
  })
  return reply.type(CSV).header('content-disposition', `attachment; filename="${fileName}"`).send(body)
}

const contactImportsRoutes: FastifyPluginAsyncTypebox = async (app) => {
  tagRoutes(app, 'contacts')
  app.decorateRequest('csvBody', undefined)
  // The body is left unread here: the handler streams it into the database after the
  // token and the parameters are checked.
  app.addContentTypeParser('text/csv', (request, payload, done) => {
    request.csvBody = payload
    done(null, undefined)
  })

  app.post('/v1/contact_imports', operation(texts, 'createContactImport', { scope: 'contacts:write', fileBody: 'text/csv' }, {
    querystring: ImportQuery, response: { 202: Ref(ContactImport) },
  }), async (request, reply) => {
    const body = request.csvBody
    if (body === undefined) throw new ApiError(415, 'Unsupported media type', { body: ['must be a CSV file, sent as Content-Type: text/csv'] })
    const max = app.config.contactImportMaxBytes
    if (Number(request.headers['content-length'] ?? 0) > max) throw tooLarge(max)
    const record = await createImport(request.db, apiActing(request), request.query, body, max)
    app.importWorker?.wake()
    return reply.code(202).header('location', `/api/v1/contact_imports/${String(record.id)}`).send(record)
  })

  recordRoute(app, '/v1/contact_imports/:id', texts, 'getContactImport', { scope: 'contacts:read', notFound: NO_IMPORT }, ContactImport, getImport)

  app.get('/v1/contact_imports/:id/errors', operation(texts, 'getContactImportErrors', { scope: 'contacts:read', notFound: NO_IMPORT }, {
    params: IdParams, response: { 200: csvResponse('the rejected rows: `line`, `reason`, then the file\'s columns') },
  }), async (request, reply) => {
    await getImport(app.db, request.caller, request.params.id)
    return sendCsv(request, reply, rejectedRowsCsv(app.db, request.caller, request.params.id), `import-${String(request.params.id)}-errors.csv`)
  })

  app.get('/v1/contacts/export', operation(texts, 'exportContacts', { scope: 'contacts:read' }, {
    querystring: ExportQuery, response: { 200: csvResponse('one contact per line, after a header line') },
  }), async (request, reply) => sendCsv(request, reply, await exportContacts(app.db, apiActing(request), request.query), 'contacts.csv'))
}

export default contactImportsRoutes
