// The tags module's public face: the company's catalogue of tags.
export { insertTags, keyShareTagsAmong, tagJoin, tagsAmong } from './tags.repository.js'
export { default as tagsRoutes } from './tags.routes.js'
export { Tag, TagsList } from './tags.schemas.js'
export { createTag, tagsOfCompany } from './tags.service.js'
