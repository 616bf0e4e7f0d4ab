import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { catalogueRoutes, tagRoutes } from '../../http/routes.js'
import { Tag, TagBody, TagsList } from './tags.schemas.js'
import { changeTag, createTag, removeTag, tagsOfCompany } from './tags.service.js'

const tagsRoutes: FastifyPluginAsyncTypebox = async (app) => {
  tagRoutes(app, 'tags')
  catalogueRoutes(app, {
    path: '/v1/tags',
    scopes: { read: 'tags:read', write: 'tags:write' },
    rootKey: 'tag',
    notFound: 'No tag with this id in your company',
    schemas: { list: TagsList, item: Tag, body: TagBody },
    list: { operationId: 'listTags', summary: 'List the tags of your company (id ascending, not paged)', run: tagsOfCompany },
    create: {
      operationId: 'createTag',
      summary: 'Create a tag',
      description: '`name` is unique in your company (case-insensitive); `color` is `#rgb` or `#rrggbb`.',
      run: createTag,
    },
    update: { operationId: 'updateTag', summary: 'Rename or recolour a tag', run: changeTag },
    remove: { operationId: 'deleteTag', summary: 'Delete a tag: it is taken off every contact (a tag_removed event on each)', run: removeTag },
  })
}

export default tagsRoutes
