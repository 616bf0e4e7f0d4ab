// The Import and Export page group: Contacts → Import (upload, mapping and preview, run,
// progress that survives a reload, the rejected rows) and Contacts → Export of the list's
// current view, through the contact-imports service the API uses. The upload is the file
// itself (text/csv) sent by the page's script with the form's CSRF token in a header; it is
// stored as a draft until its mapping is confirmed.
import { Readable } from 'node:stream'
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify'
import { ApiError } from '../../errors.js'
import {
  FIELD_TARGETS,
  confirmImport,
  createImport,
  exportContacts,
  getImport,
  previewImport,
  recentImports,
  rejectedRowsCsv,
} from '../../modules/contact-imports/index.js'
import { customFieldsOfCompany } from '../../modules/custom-fields/index.js'
import { readForm } from '../frame/form.js'
import { errorPage, sendHtml } from '../frame/frame.js'
import { formRoute, pageRoute, pathId, signedIn, webCaller, type PageGroupOptions, type SignedIn } from '../frame/guard.js'
import { CSRF_FIELD } from '../shared/security.js'
import { ContactsView } from '../contacts/contacts.forms.js'
import { IMPORTS, mappingPage, progressPage, uploadPage } from './imports.pages.js'

declare module 'fastify' {
  interface FastifyRequest {
    /** The workspace's upload, not read yet. */
    csvUpload: Readable | undefined
  }
}

const CSV = 'text/csv; charset=utf-8'

/** The upload page's script posts the file to this origin: its policy lets it connect here (every other page: nowhere). */
function allowUpload(reply: FastifyReply) {
  const policy = reply.getHeader('content-security-policy')
  if (typeof policy === 'string') reply.header('content-security-policy', policy.replace("connect-src 'none'", "connect-src 'self'"))
}

/** The mapping of a form or query: `column_<i>` → target, by the draft's headers. */
function mappingOf(fields: Record<string, unknown>, headers: string[]): Record<string, string> | undefined {
  const mapping: Record<string, string> = {}
  headers.forEach((header, index) => {
    const value = fields[`column_${String(index)}`]
    if (typeof value === 'string') mapping[header] = value
  })
  return Object.keys(mapping).length > 0 ? mapping : undefined
}

const importsPages: FastifyPluginAsync<PageGroupOptions> = async (app, { config, now }) => {
  app.decorateRequest('csvUpload', undefined)
  app.addContentTypeParser('text/csv', (request, payload, done) => {
    request.csvUpload = payload
    // The guard checks the CSRF token of the body: here it comes in a header, which another site cannot send.
    done(null, { [CSRF_FIELD]: request.headers['x-csrf-token'] })
  })

  const fieldsOf = async (current: SignedIn) => (await customFieldsOfCompany(app.db, current.account)).data.map((field) => field.field)

  async function draftPage(request: FastifyRequest, reply: FastifyReply, id: number, source: Record<string, unknown>, status = 200, problems: string[] = []) {
    const current = signedIn(request)
    const caller = webCaller(request, current.account, now())
    const record = await getImport(app.db, caller, id)
    const headers = record.columns.map((column) => column.header)
    let preview
    try {
      preview = await previewImport(app.db, caller, id, mappingOf(source, headers))
    } catch (err) {
      if (!(err instanceof ApiError) || err.statusCode !== 422) throw err
      preview = await previewImport(app.db, caller, id, undefined)
      problems = [...problems, ...Object.values(err.details ?? {}).flat()]
      status = 422
    }
    const onDuplicate = source.on_duplicate === 'skip' ? 'skip' : 'update'
    return sendHtml(reply, status, mappingPage(current.chrome, {
      ...preview, fields: await fieldsOf(current), targets: FIELD_TARGETS, onDuplicate, csrf: current.csrf, problems,
    }))
  }

  app.get(IMPORTS, pageRoute('member'), async (request, reply) => {
    const current = signedIn(request)
    allowUpload(reply)
    return sendHtml(reply, 200, uploadPage(current.chrome, current.csrf, await recentImports(app.db, current.account), current.account.timezone))
  })

  app.post(IMPORTS, pageRoute('member'), async (request, reply) => {
    const current = signedIn(request)
    const caller = webCaller(request, current.account, now())
    allowUpload(reply)
    const again = async (status: number, problem: string) =>
      sendHtml(reply, status, uploadPage(current.chrome, current.csrf, await recentImports(app.db, current.account), current.account.timezone, problem))
    const body = request.csvUpload
    if (body === undefined) return again(415, 'Choose a CSV file to upload.')
    const name = typeof request.headers['x-file-name'] === 'string' ? decodeURIComponent(request.headers['x-file-name']).slice(0, 255) : undefined
    let record
    try {
      if (Number(request.headers['content-length'] ?? 0) > config.contactImportMaxBytes) throw new ApiError(413)
      record = await createImport(app.db, caller, name === undefined || name === '' ? {} : { file_name: name }, body, config.contactImportMaxBytes, true)
    } catch (err) {
      if (!(err instanceof ApiError) || (err.statusCode !== 422 && err.statusCode !== 413)) throw err
      const problems = Object.values(err.details ?? {}).flat()
      const limit = `${String(Math.floor(config.contactImportMaxBytes / (1024 * 1024)))} MiB`
      return again(err.statusCode, err.statusCode === 413 ? `This file is over ${limit}, the largest an import takes.` : `This file cannot be imported: ${problems.join('; ')}.`)
    }
    return reply.redirect(`${IMPORTS}/${String(record.id)}`, 303)
  })

  app.get(`${IMPORTS}/:id`, pageRoute('member'), async (request, reply) => {
    const current = signedIn(request)
    const id = pathId(request)
    const record = await getImport(app.db, current.account, id)
    if (record.state === 'draft') return draftPage(request, reply, id, request.query as Record<string, unknown>)
    return sendHtml(reply, 200, progressPage(current.chrome, record))
  })

  app.post(`${IMPORTS}/:id/run`, formRoute('member'), async (request, reply) => {
    const current = signedIn(request)
    const id = pathId(request)
    const caller = webCaller(request, current.account, now())
    const form = (request.body ?? {}) as Record<string, unknown>
    const record = await getImport(app.db, caller, id)
    const mapping = mappingOf(form, record.columns.map((column) => column.header)) ?? {}
    try {
      await confirmImport(app.db, caller, id, { mapping, on_duplicate: form.on_duplicate === 'skip' ? 'skip' : 'update' })
    } catch (err) {
      if (!(err instanceof ApiError) || err.statusCode !== 422) throw err
      return draftPage(request, reply, id, form, 422, Object.values(err.details ?? {}).flat())
    }
    app.importWorker?.wake()
    return reply.redirect(`${IMPORTS}/${String(id)}`, 303)
  })

  app.get(`${IMPORTS}/:id/errors.csv`, pageRoute('member'), async (request, reply) => {
    const current = signedIn(request)
    const id = pathId(request)
    await getImport(app.db, current.account, id)
    return reply.type(CSV).header('content-disposition', `attachment; filename="import-${String(id)}-errors.csv"`)
      .send(Readable.from(rejectedRowsCsv(app.db, current.account, id), { objectMode: false }))
  })

  app.get('/contacts/export', pageRoute('member'), async (request, reply) => {
    const current = signedIn(request)
    const read = readForm(ContactsView, request.query)
    if (!read.ok) {
      return sendHtml(reply, 422, errorPage(current.chrome, 'Export refused', `This view cannot be exported: ${Object.values(read.errors).flat().join('; ')}.`, { href: '/contacts', text: 'Back to contacts' }))
    }
    const { search_term, user_id, stage, tag_id } = read.value
    const lines = await exportContacts(app.db, webCaller(request, current.account, now()), { search_term, user_id, stage, tag_id })
    return reply.type(CSV).header('content-disposition', 'attachment; filename="contacts.csv"').send(Readable.from(lines, { objectMode: false }))
  })
}

export default importsPages
