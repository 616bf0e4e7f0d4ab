// What the /api modules' route declarations share: the OpenAPI tag of a module's routes,
// given once, and the answer of a create (docs/architecture.md: POST 201 with `Location`).
import type { FastifyInstance, FastifyReply } from 'fastify'

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
