import { catalogueRoutes } from '../../http/routes.js'
import { Tag, TagBody, TagsList } from '../tags/index.js'
import { changeTag, createTag, removeTag, tagsOfCompany } from './tags-api.service.js'
import texts from './tags-api.operations.json' with { type: 'json' }

export default catalogueRoutes({
  tag: 'tags', path: '/v1/tags', rootKey: 'tag', notFound: 'No tag with this id in your company',
  scopes: { read: 'tags:read', write: 'tags:write' }, schemas: { list: TagsList, item: Tag, body: TagBody },
  texts, operations: { list: 'listTags', create: 'createTag', update: 'updateTag', remove: 'deleteTag' },
  run: { list: tagsOfCompany, create: createTag, update: changeTag, remove: removeTag },
})
