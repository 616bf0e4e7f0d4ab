import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { sendCreated, tagRoutes } from '../../http/routes.js'
import { Deleted, IdParams, Ref } from '../../http/schemas.js'
import { Tag, TagBody, TagsList } from './tags.schemas.js'
import { changeTag, createTag, removeTag, tagsOfCompany } from './tags.service.js'

const tagsRoutes: FastifyPluginAsyncTypebox = async (app) => {
  tagRoutes(app, 'tags')

  app.get('/v1/tags', {
    config: { scope: 'tags:read' },
    schema: {
      operationId: 'listTags',
      summary: 'List the tags of your company (id ascending, not paged)',
      response: { 200: Ref(TagsList) },
    },
  }, async (request) => tagsOfCompany(app.db, request.caller))

  app.post('/v1/tags', {
    config: { scope: 'tags:write', rootKey: 'tag' },
    schema: {
      operationId: 'createTag',
      summary: 'Create a tag',
      description: '`name` is unique in your company (case-insensitive); `color` is `#rgb` or `#rrggbb`.',
      body: TagBody,
      response: { 201: Ref(Tag) },
    },
  }, async (request, reply) => sendCreated(reply, '/api/v1/tags', await createTag(app.db, request.caller, request.body)))

  app.put('/v1/tags/:id', {
    config: { scope: 'tags:write', rootKey: 'tag', notFound: 'No tag with this id in your company' },
    schema: {
      operationId: 'updateTag',
      summary: 'Rename or recolour a tag',
      params: IdParams,
      body: TagBody,
      response: { 200: Ref(Tag) },
    },
  }, async (request) => changeTag(app.db, request.caller, request.params.id, request.body))

  app.delete('/v1/tags/:id', {
    config: { scope: 'tags:write', notFound: 'No tag with this id in your company' },
    schema: {
      operationId: 'deleteTag',
      summary: 'Delete a tag: it is taken off every contact (a tag_removed event on each)',
      params: IdParams,
      response: { 204: Deleted },
    },
  }, async (request, reply) => {
    await removeTag(app.db, request.caller, request.params.id)
    return reply.code(204).send(null)
  })
}

export default tagsRoutes
