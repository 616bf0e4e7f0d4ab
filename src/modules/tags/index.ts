// The tags module's public face: the company's tags, their statements and the fragments contacts compose.
export { deleteTagReturning, insertTag, insertTags, keyShareTagsAmong, listTags, lockTag, tagJoin, tagsAmong, updateTag } from './tags.repository.js'
export { Tag, TagBody, TagsList } from './tags.schemas.js'
