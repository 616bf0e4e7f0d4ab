// What the /api modules' route declarations share: the OpenAPI tag of a module's routes,
// given once, the answer of a create (docs/architecture.md: POST 201 with `Location`), and
// the four operations of a company's catalogue (tags, custom fields).
import type { FastifyContextConfig, FastifyInstance, FastifyReply } from 'fastify'
import type { Static, TSchema } from 'typebox'
import type { Db } from '../db/db.js'
import type { Caller } from '../tenancy.js'
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

/** The OpenAPI texts of one operation. */
interface OperationText {
  operationId: string
  summary: string
  description?: string
}

type Scope = NonNullable<FastifyContextConfig['scope']>

/**
 * A company's catalogue (tags, custom fields): the whole list, and one item created, changed
 * or deleted by id, the create and the change taking the same body under `rootKey`.
 */
export interface Catalogue<Body extends TSchema> {
  /** The collection's path, `/v1/tags`; an item is `<path>/:id`. */
  path: string
  scopes: { read: Scope; write: Scope }
  rootKey: string
  /** The 404's message for an id that is not one of the company's items. */
  notFound: string
  schemas: { list: TSchema; item: TSchema; body: Body }
  list: OperationText & { run: (db: Db, caller: Caller) => Promise<unknown> }
  create: OperationText & { run: (db: Db, caller: Caller, body: Static<Body>) => Promise<{ id: number }> }
  update: OperationText & { run: (db: Db, caller: Caller, id: number, body: Static<Body>) => Promise<unknown> }
  remove: OperationText & { run: (db: Db, caller: Caller, id: number) => Promise<void> }
}

const texts = ({ operationId, summary, description }: OperationText) =>
  description === undefined ? { operationId, summary } : { operationId, summary, description }

/**
 * Declares a catalogue's four operations on a module's plugin. The body reaches `run` as the
 * body schema's type: it was validated against that schema (Fastify's route generics cannot
 * carry a type parameter's schema through).
 */
export function catalogueRoutes<Body extends TSchema>(app: FastifyInstance & { db: Db }, catalogue: Catalogue<Body>): void {
  const { path, scopes, rootKey, notFound, schemas } = catalogue
  const item = `${path}/:id`
  app.get(path, {
    config: { scope: scopes.read },
    schema: { ...texts(catalogue.list), response: { 200: Ref(schemas.list) } },
  }, async (request) => catalogue.list.run(app.db, request.caller))

  app.post(path, {
    config: { scope: scopes.write, rootKey },
    schema: { ...texts(catalogue.create), body: schemas.body, response: { 201: Ref(schemas.item) } },
  }, async (request, reply) => sendCreated(reply, `/api${path}`, await catalogue.create.run(app.db, request.caller, request.body as Static<Body>)))

  app.put<{ Params: Static<typeof IdParams> }>(item, {
    config: { scope: scopes.write, rootKey, notFound },
    schema: { ...texts(catalogue.update), params: IdParams, body: schemas.body, response: { 200: Ref(schemas.item) } },
  }, async (request) => catalogue.update.run(app.db, request.caller, request.params.id, request.body as Static<Body>))

  app.delete<{ Params: Static<typeof IdParams> }>(item, {
    config: { scope: scopes.write, notFound },
    schema: { ...texts(catalogue.remove), params: IdParams, response: { 204: Deleted } },
  }, async (request, reply) => {
    await catalogue.remove.run(app.db, request.caller, request.params.id)
    return reply.code(204).send(null)
  })
}
