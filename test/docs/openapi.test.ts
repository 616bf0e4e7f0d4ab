// The OpenAPI document as a generator reads it: Redocly's recommended rules find nothing,
// every operation is named and lists each status it can answer with its own description,
// records and pages are named components, and every error code is declared and documented.
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { ERROR_CODES } from '../../src/http/schemas.js'
import { openApiDocument } from '../../sdk/scripts/generate.js'

const root = fileURLToPath(new URL('../../', import.meta.url))

interface Response {
  description: string
  headers?: Record<string, unknown>
  content?: Record<string, { schema: { $ref?: string; anyOf?: { $ref?: string }[] }; examples?: Record<string, { value: { error: { status: number; code: string } } }> }>
}
interface Operation {
  operationId?: string
  summary?: string
  tags?: string[]
  requestBody?: { content: Record<string, unknown> }
  responses: Record<string, Response>
}
interface Document {
  info: { license?: { name: string } }
  servers?: { url: string }[]
  tags: { name: string; description?: string }[]
  paths: Record<string, Record<string, Operation>>
  components: { schemas: Record<string, { description?: string; properties?: Record<string, { description?: string }> }> }
}

describe('OpenAPI document', () => {
  let doc: Document
  let dir: string
  before(async () => {
    doc = (await openApiDocument()) as unknown as Document
    dir = await mkdtemp(join(tmpdir(), 'engage-openapi-'))
  })
  after(() => rm(dir, { recursive: true, force: true }))

  const operations = () =>
    Object.entries(doc.paths).flatMap(([path, item]) => Object.entries(item).map(([method, op]) => ({ name: `${method.toUpperCase()} ${path}`, path, method, op })))

  test('redocly lint with the recommended rules: no error, no warning', async () => {
    const file = join(dir, 'openapi.json')
    const config = join(dir, 'redocly.yaml')
    await writeFile(file, JSON.stringify(doc))
    await writeFile(config, 'extends:\n  - recommended\n')
    const cli = join(root, 'node_modules/@redocly/cli/bin/cli.js')
    const { stdout } = await promisify(execFile)(process.execPath, [cli, 'lint', '--format=json', `--config=${config}`, file], {
      env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
    }).catch((err: unknown) => ({ stdout: (err as { stdout?: string }).stdout ?? '' })) // exit 1 on problems: the report says which
    const report = JSON.parse(stdout) as { totals: { errors: number; warnings: number }; problems: { ruleId: string; message: string }[] }
    assert.deepEqual(report.totals, { ...report.totals, errors: 0, warnings: 0 }, JSON.stringify(report.problems, null, 1))
  })

  test('every operation: a unique camelCase operationId, a summary, a described tag', () => {
    const ids = operations().map(({ op }) => op.operationId)
    assert.equal(new Set(ids).size, ids.length)
    const described = new Set(doc.tags.filter((tag) => tag.description).map((tag) => tag.name))
    for (const { name, op } of operations()) {
      assert.match(op.operationId ?? '', /^[a-z][a-zA-Z]+$/, name)
      assert.ok(op.summary, name)
      for (const tag of op.tags ?? []) assert.ok(described.has(tag), `${name}: tag ${tag}`)
    }
    const byId = Object.fromEntries(operations().map(({ name, op }) => [op.operationId, name]))
    assert.equal(byId.listContacts, 'GET /api/v1/contacts')
    assert.equal(byId.createContact, 'POST /api/v1/contacts')
    assert.equal(byId.addContactToFlow, 'PUT /api/v1/flows/{id}/add_contact')
    assert.deepEqual(doc.servers?.map((server) => server.url), ['/'], 'relative: the docs page tries requests on the host it is served from')
    assert.equal(doc.info.license?.name, 'MIT')
  })

  test('each status on its own, with a description and the Error schema; no ranges', () => {
    for (const { name, path, method, op } of operations()) {
      if (!path.startsWith('/api/')) continue
      const statuses = Object.keys(op.responses)
      const withBody = method === 'post' || method === 'put'
      const expected = [
        ...statuses.filter((s) => s.startsWith('2')),
        ...(withBody ? ['400'] : []),
        '401',
        ...(statuses.includes('403') ? ['403'] : []),
        ...(statuses.includes('404') ? ['404'] : []),
        ...(withBody ? ['409', '413', '415'] : []),
        '422',
        '429',
        '500',
        '503',
      ]
      assert.deepEqual(statuses, expected, name)
      for (const [status, response] of Object.entries(op.responses)) {
        assert.ok(response.description && response.description !== 'Default Response', `${name} ${status}`)
        assert.ok(response.headers?.['X-Request-Id'], `${name} ${status}: X-Request-Id`)
        if (status.startsWith('2')) continue
        const json = response.content?.['application/json']
        assert.equal(json?.schema.$ref, '#/components/schemas/Error', `${name} ${status}`)
        for (const example of Object.values(json.examples ?? {})) assert.equal(example.value.error.status, Number(status), `${name} ${status}`)
      }
      const bodyTypes = name === 'POST /api/v1/contact_imports' ? ['text/csv'] : ['application/json', 'application/x-www-form-urlencoded']
      if (withBody) assert.deepEqual(Object.keys(op.requestBody?.content ?? {}), bodyTypes, name)
    }
    const response = (path: string, method: string, status: string) => doc.paths[path]?.[method]?.responses[status]
    assert.ok(response('/api/v1/contacts/{id}', 'get', '404'), 'a path id answers 404')
    assert.ok(response('/api/v1/contacts', 'post', '201')?.headers?.Location)
    assert.ok(response('/api/v1/contacts', 'get', '200')?.headers?.Link)
    assert.ok(response('/api/v1/contacts', 'get', '429')?.headers?.['Retry-After'])
    assert.ok(response('/api/v1/contacts', 'get', '200')?.headers?.['X-RateLimit-Remaining'])
  })

  test('records and pages are named components, referenced by the operations', () => {
    for (const name of ['Contact', 'ContactPage', 'Tag', 'TagList', 'CustomField', 'Flow', 'FlowPage', 'Task', 'TaskPage', 'Lead', 'LeadPage',
      'MeetTranscription', 'MeetTranscriptionPage', 'WhatsappMessage', 'WhatsappChatPage', 'User', 'UserPage', 'Company', 'Business',
      'Enrollment', 'ContactEvent', 'ContactEventPage', 'StageChangedEvent', 'Error']) {
      assert.ok(doc.components.schemas[name], name)
    }
    const ok = (path: string, method: string, status = '200') => doc.paths[path]?.[method]?.responses[status]?.content?.['application/json']?.schema.$ref
    // A list with an updated_since walk answers either shape.
    const shapes = (path: string) =>
      doc.paths[path]?.get?.responses['200']?.content?.['application/json']?.schema.anyOf?.map((s) => s.$ref)
    assert.deepEqual(shapes('/api/v1/contacts'), ['#/components/schemas/ContactPage', '#/components/schemas/ContactSyncPage'])
    assert.deepEqual(shapes('/api/v1/tasks'), ['#/components/schemas/TaskPage', '#/components/schemas/TaskSyncPage'])
    assert.equal(ok('/api/v1/contacts', 'post', '201'), '#/components/schemas/Contact')
    assert.equal(ok('/api/v1/flows/{id}/add_contact', 'put'), '#/components/schemas/Enrollment')
    assert.equal(ok('/api/v1/contact_imports', 'post', '202'), '#/components/schemas/ContactImport')
    const csv = (path: string) => doc.paths[path]?.get?.responses['200']?.content?.['text/csv']
    assert.ok(csv('/api/v1/contacts/export'), 'the export answers text/csv')
    assert.ok(csv('/api/v1/contact_imports/{id}/errors'), 'the rejected rows answer text/csv')
  })

  test('the audit export answers its own media type, application/x-ndjson, one named AuditEventLine per line', () => {
    const content = doc.paths['/api/v1/audit_events/export']?.get?.responses['200']?.content ?? {}
    assert.deepEqual(Object.keys(content), ['application/x-ndjson'])
    assert.equal(content['application/x-ndjson']?.schema.$ref, '#/components/schemas/AuditEventLine')
    const line: { description?: string; allOf?: { $ref?: string }[] } | undefined = doc.components.schemas.AuditEventLine
    assert.deepEqual(line?.allOf, [{ $ref: '#/components/schemas/AuditEvent' }])
    assert.match(line.description ?? '', /one line/i)
  })

  test('every error code is declared in the document and listed in docs/api-conventions.md', async () => {
    const conventions = await readFile(join(root, 'docs/api-conventions.md'), 'utf8')
    const declared = doc.components.schemas.Error?.properties?.error as { properties: { code: { description: string } } } | undefined
    for (const code of ERROR_CODES) {
      assert.ok(declared?.properties.code.description.includes(`\`${code}\``), `${code} in the Error schema`)
      assert.ok(conventions.includes(`| \`${code}\` |`), `${code} in docs/api-conventions.md`)
    }
    // detail codes: each one src/errors.ts can give is in the docs' table
    const errorsSource = await readFile(join(root, 'src/errors.ts'), 'utf8')
    const detailCodes = new Set([...errorsSource.matchAll(/\/, '([a-z_]+)'\]/g)].map((m) => m[1]))
    assert.ok(detailCodes.size >= 15)
    for (const code of detailCodes) assert.ok(conventions.includes(`\`${code ?? ''}\``), `detail code ${code ?? ''} in docs/api-conventions.md`)
  })
})
