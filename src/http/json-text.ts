// A body PostgreSQL already wrote as JSON (`row_to_json(...)::text`), sent as it is:
// Fastify passes a string with a JSON content type through without serializing it again,
// and the driver hands over one text column instead of parsing a row. The statement
// building the JSON answers for its shape; the route's response schema still documents it.
import type { FastifyReply } from 'fastify'

/** The content type Fastify sets itself for JSON (a reply with its own serializer sets it by hand). */
export const JSON_TYPE = 'application/json; charset=utf-8'

export function sendJsonText(reply: FastifyReply, json: string): FastifyReply {
  return reply.header('content-type', JSON_TYPE).send(json)
}
