// Every operation of the app, read from its own OpenAPI document (generated from the route
// schemas the server validates with), so a new operation is fuzzed without touching this.
export interface Schema {
  type?: string | string[]
  enum?: unknown[]
  format?: string
  pattern?: string
  minimum?: number
  maximum?: number
  minLength?: number
  maxLength?: number
  items?: Schema
  properties?: Record<string, Schema>
  required?: string[]
  anyOf?: Schema[]
}

export interface Param {
  name: string
  required: boolean
  schema: Schema
}

export interface Operation {
  /** `PUT /api/v1/contacts/{id}` */
  name: string
  method: 'GET' | 'POST' | 'PUT' | 'DELETE' | 'PATCH'
  /** The path template, `{name}` placeholders. */
  path: string
  /** The resource: the path segment after the version (`contacts`). */
  resource: string
  pathParams: Param[]
  query: Param[]
  /** The body's parameters (JSON schema of an object), if the operation takes a body. */
  body: Param[]
  /** The singular root key the body may be wrapped in (`contact`). */
  rootKey: string
}

interface OpenApiOperation {
  parameters?: { name: string; in: string; required?: boolean; schema?: Schema }[]
  requestBody?: { content?: Record<string, { schema?: Schema }> }
}

const METHODS = ['get', 'post', 'put', 'delete', 'patch'] as const

export function operationsOf(doc: { paths: Record<string, Partial<Record<string, OpenApiOperation>>> }): Operation[] {
  const operations: Operation[] = []
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const method of METHODS) {
      const op = item[method]
      if (!op) continue
      const params = op.parameters ?? []
      const param = (p: { name: string; required?: boolean; schema?: Schema }): Param => ({
        name: p.name,
        required: p.required === true,
        schema: p.schema ?? {},
      })
      const bodySchema = Object.values(op.requestBody?.content ?? {})[0]?.schema
      const required = new Set(bodySchema?.required ?? [])
      const resource = /^\/api\/v\d+\/([^/]+)/.exec(path)?.[1] ?? path.split('/')[1] ?? ''
      operations.push({
        name: `${method.toUpperCase()} ${path}`,
        method: method.toUpperCase() as Operation['method'],
        path,
        resource,
        pathParams: params.filter((p) => p.in === 'path').map(param),
        query: params.filter((p) => p.in === 'query').map(param),
        body: Object.entries(bodySchema?.properties ?? {}).map(([name, schema]) => ({ name, required: required.has(name), schema })),
        rootKey: resource.replace(/s$/, ''),
      })
    }
  }
  return operations
}
