// What the /api modules' route declarations share: an operation's route options (its OpenAPI
// texts, read from its module's `<name>.operations.json`, its access and its schemas), the
// OpenAPI tag of a module's routes, given once, the answer of a create (docs/architecture.md:
// POST 201 with `Location`), the GET of one record by id, and the four operations of a
// company's catalogue (tags, custom fields).
import type { FastifyContextConfig, FastifyInstance, FastifyReply, FastifySchema } from 'fastify'
import type { Static, TSchema } from 'typebox'
import type { Db } from '../db/db.js'
import type { Caller } from '../tenancy.js'
import { sendJsonText } from './json-text.js'
import { Deleted, IdParams, Ref } from './schemas.js'

/**
 * Tags each route `app` declares from now on with `tag`, its group in the OpenAPI document,
 * unless the route names its own tags. `app` is a module's plugin: its hook sees only the
 * plugin's routes.
 */
export function tagRoutes(app: FastifyInstance, tag: string): void {
  app.addHook('onRoute', (route) => {
    route.schema = { ...route.schema, tags: route.schema?.tags ?? [tag] }
  })
}

/** Answers a created record: 201, its path (`collection`/id) in `Location`, and the record. */
export function sendCreated(reply: FastifyReply, collection: string, record: { id: number }): FastifyReply {
  return reply.code(201).header('location', `${collection}/${String(record.id)}`).send(record)
}

/** Answers a created record the statement wrote as JSON text, as sendCreated does. */
export function sendCreatedJson(reply: FastifyReply, collection: string, created: { id: number; json: string }): FastifyReply {
  return sendJsonText(reply.code(201).header('location', `${collection}/${String(created.id)}`), created.json)
}

/**
 * A module's OpenAPI texts by operationId (`Id`): its `<name>.operations.json`, in route order.
 * test/http/operations.test.ts holds each entry to exactly one operation of the document.
 */
export type OperationTexts<Id extends string = string> = Readonly<Record<Id, { summary: string; description?: string }>>

/**
 * The texts with each `{NAME}` replaced by `values.NAME`: a constant a text states (the most
 * subscriptions a company may have), kept where the code reads it.
 */
export function textsWith<Id extends string>(texts: OperationTexts<Id>, values: Readonly<Record<string, string | number>>): OperationTexts<Id> {
  const fill = (text: string) => text.replace(/\{([A-Z_]+)\}/g, (name: string, key: string) => (key in values ? String(values[key]) : name))
  const entries = Object.entries<{ summary: string; description?: string }>(texts).map(([id, { summary, description }]) => [
    id,
    description === undefined ? { summary: fill(summary) } : { summary: fill(summary), description: fill(description) },
  ])
  return Object.fromEntries(entries) as OperationTexts<Id>
}

type Scope = NonNullable<FastifyContextConfig['scope']>

/** An /api route's `config`: the scope it needs, always (src/plugins/access.plugin.ts), and what else applies. */
export type OperationConfig = FastifyContextConfig & { scope: Scope }

/** The OpenAPI texts of one operation, as its schema starts (a type: a route's schema is a JSON object). */
type OperationText = { operationId: string; summary: string; description?: string }

/**
 * The route options of the operation `operationId`: its `config` (the scope it needs; its
 * role, root key and 404 where they apply) and its `schema`, which starts with the
 * operation's texts in its module's `texts`.
 */
export function operation<Id extends string, S extends FastifySchema>(
  texts: OperationTexts<Id>,
  operationId: NoInfer<Id>,
  config: OperationConfig,
  schema: S,
): { config: OperationConfig; schema: OperationText & S } {
  const { summary, description } = texts[operationId]
  const text: OperationText = description === undefined ? { operationId, summary } : { operationId, summary, description }
  return { config, schema: { ...text, ...schema } }
}

/**
 * Declares GET `path` (`<collection>/:id`), the operation answering one record: what `read`
 * finds by the path's id among the caller's company's records, as `item` (`read` throws the
 * 404 for an id it does not find).
 */
export function recordRoute<Id extends string>(
  app: FastifyInstance & { db: Db },
  path: string,
  texts: OperationTexts<Id>,
  operationId: NoInfer<Id>,
  config: OperationConfig,
  item: TSchema,
  read: (db: Db, caller: Caller, id: number) => Promise<unknown>,
): void {
  app.get<{ Params: Static<typeof IdParams> }>(path, operation(texts, operationId, config, {
    params: IdParams, response: { 200: Ref(item) },
  }), async (request) => read(app.db, request.caller, request.params.id))
}

/** The four operations of a catalogue. */
type CatalogueOperation = 'list' | 'create' | 'update' | 'remove'

/**
 * A company's catalogue (tags, custom fields): the whole list, and one item created, changed
 * or deleted by id, the create and the change taking the same body under `rootKey`.
 */
export interface Catalogue<Body extends TSchema, Id extends string> {
  /** The OpenAPI tag of its operations. */
  tag: string
  /** The collection's path, `/v1/tags`; an item is `<path>/:id`. */
  path: string
  rootKey: string
  /** The 404's message for an id that is not one of the company's items. */
  notFound: string
  scopes: { read: Scope; write: Scope }
  schemas: { list: TSchema; item: TSchema; body: Body }
  /** The module's `<name>.operations.json`, and the operationId of each operation in it. */
  texts: OperationTexts<Id>
  operations: Record<CatalogueOperation, NoInfer<Id>>
  /** The service's function of each operation. */
  run: {
    list: (db: Db, caller: Caller) => Promise<unknown>
    create: (db: Db, caller: Caller, body: Static<Body>) => Promise<{ id: number }>
    update: (db: Db, caller: Caller, id: number, body: Static<Body>) => Promise<unknown>
    remove: (db: Db, caller: Caller, id: number) => Promise<void>
  }
}

/**
 * The routes plugin of a catalogue's module: its four operations, tagged. The body reaches
 * `run` as the body schema's type: it was validated against that schema (Fastify's route
 * generics cannot carry a type parameter's schema through).
 */
export function catalogueRoutes<Body extends TSchema, Id extends string>(catalogue: Catalogue<Body, Id>) {
  const { tag, path, rootKey, notFound, scopes, schemas, texts, operations, run } = catalogue
  const item = `${path}/:id`
  return async (app: FastifyInstance & { db: Db }): Promise<void> => {
    tagRoutes(app, tag)
    app.get(path, operation(texts, operations.list, { scope: scopes.read }, {
      response: { 200: Ref(schemas.list) },
    }), async (request) => run.list(app.db, request.caller))

    app.post(path, operation(texts, operations.create, { scope: scopes.write, rootKey }, {
      body: schemas.body, response: { 201: Ref(schemas.item) },
    }), async (request, reply) => sendCreated(reply, `/api${path}`, await run.create(request.db, request.caller, request.body as Static<Body>)))

    app.put<{ Params: Static<typeof IdParams> }>(item, operation(texts, operations.update, { scope: scopes.write, rootKey, notFound }, {
      params: IdParams, body: schemas.body, response: { 200: Ref(schemas.item) },
    }), async (request) => run.update(request.db, request.caller, request.params.id, request.body as Static<Body>))

    app.delete<{ Params: Static<typeof IdParams> }>(item, operation(texts, operations.remove, { scope: scopes.write, notFound }, {
      params: IdParams, response: { 204: Deleted },
    }), async (request, reply) => {
      await run.remove(request.db, request.caller, request.params.id)
      return reply.code(204).send(null)
    })
  }
}
